"""`tuitune completion SHELL`: the generated scripts, driven as the shell does on Tab."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.bash_complete import complete
from tests.support.command import tuitune
from tuitune.cli import SUBCOMMANDS


def _script(shell: str, tmp_path: Path) -> Path:
    # Through `python -m tuitune`, the way an installed copy is asked for it.
    done = tuitune("completion", shell)
    assert done.returncode == 0, done.stderr
    path = tmp_path / f"tuitune.{shell}"
    path.write_text(done.stdout)
    return path


@pytest.fixture(scope="module")
def bash_script(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _script("bash", tmp_path_factory.mktemp("completion"))


def test_a_subcommand_completes_from_its_first_letters(bash_script: Path) -> None:
    assert complete(bash_script, ["tuitune", "ex"]) == ["export"]
    assert complete(bash_script, ["tuitune", "apply-a"]) == ["apply-affinity"]


def test_the_first_word_offers_every_subcommand_and_the_interfaces(bash_script: Path) -> None:
    offered = complete(bash_script, ["tuitune", ""])
    assert set(SUBCOMMANDS) <= set(offered)
    assert "lo" in offered  # `tuitune IFACE`: this namespace's loopback is always there


def test_an_interface_argument_completes_from_sys_class_net(bash_script: Path) -> None:
    assert complete(bash_script, ["tuitune", "show", "l"]) == ["lo"]
    assert complete(bash_script, ["tuitune", "export", "--format", "udev", "l"]) == ["lo"]


def test_options_and_choices_complete(bash_script: Path) -> None:
    assert complete(bash_script, ["tuitune", "export", "--ma"]) == ["--match"]
    assert complete(bash_script, ["tuitune", "export", "lo", "--match", "d"]) == ["driver"]
    assert complete(bash_script, ["tuitune", "completion", ""]) == ["bash", "zsh", "fish"]


def test_a_directory_option_completes_directories(bash_script: Path, tmp_path: Path) -> None:
    (tmp_path / "tree-a").mkdir()
    (tmp_path / "tree-file").write_text("")
    offered = complete(bash_script, ["tuitune", "show", "--root", f"{tmp_path}/tree"])
    assert offered == [f"{tmp_path}/tree-a"]


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_zsh_and_fish_scripts_parse(shell: str, tmp_path: Path) -> None:
    script = _script(shell, tmp_path)
    text = script.read_text()
    assert "tuitune" in text and "export" in text
    found = shutil.which(shell)
    if found is None:
        pytest.skip(f"{shell} is not installed: only the script's text was checked")
    check = [found, "-n", str(script)] if shell == "zsh" else [found, "--no-execute", str(script)]
    subprocess.run(check, check=True, timeout=30)


def test_fish_completes_a_subcommand_and_an_interface(tmp_path: Path) -> None:
    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed")
    script = _script("fish", tmp_path)

    def offered(line: str) -> list[str]:
        out = subprocess.run(
            [fish, "--no-config", "-c", f"source {script}; complete -C '{line}'"],
            check=True,
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout
        return [row.split("\t")[0] for row in out.splitlines()]

    assert offered("tuitune ex") == ["export"]
    assert offered("tuitune show l") == ["lo"]
