"""`tuitune export --ansible`: the playbook run for real by ansible-playbook.

The export ships the wheelhouse scripts/wheelhouse builds (`--install-tuitune`, built once per
test session): the same runs install tuitune under the tree (its venv in TREE/opt/tuitune, the
command linked at TREE/usr/local/bin/tuitune, where the exported unit runs it) and verify.yml
runs that installed command.

A recorded host tree is tuned through the journal (`tuitune apply`), exported twice (plain
`--out`, and `--ansible --out`), then the generated playbook is run with `-c local` against
that same tree: `tuitune_root` is the tree, so every path the playbook writes is under the
test's temporary directory, never this machine's /etc; the handlers (sysctl -p, udevadm,
systemctl) are skipped by the role itself whenever tuitune_root is not "/", and
`tuitune_apply_now=false` says so twice. The tree's hostname is hostile Jinja: it lands in the
files' comments and the play's name and must come out as text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.platform_trees import TREE_OWNS, pepc_tree
from tests.support.session_fakes import build_host
from tests.support.wheelhouse import wheelhouse
from tests.unit.core.export.test_export_verify import PROFILE

DEV = "eno49"
TEMPLATES = "roles/tuitune_nic/templates/etc"
HOST_PYTHON = "/usr/bin/python3" if Path("/usr/bin/python3").exists() else sys.executable
HOSTILE = "lab{{ lookup('pipe','touch PWNED') }}{% raw %}{#"
# The platform's files in the same run (issue 32): the CPU unit and the driver's modprobe.d.
PLATFORM = """
[cpu]
cpus = "1"
governor = "performance"

[module_params.igb]
InterruptThrottleRate = 3
"""


def ansible_playbook() -> str:
    beside = Path(sys.executable).parent / "ansible-playbook"
    found = str(beside) if beside.exists() else shutil.which("ansible-playbook")
    if found is None:
        pytest.skip("ansible-playbook is not installed (pip install -e '.[test]' installs it)")
    return found


# ansible-playbook waits for each task's worker in a loop that sleeps this long between
# looks (ansible-core's default: 1 ms, for a responsive terminal). Under the VM bench's TCG one
# look costs about a millisecond itself, so the controller spun a whole guest CPU beside every
# module run; at 50 ms it sleeps instead. Its only effect is a task's result noticed up to 50 ms
# later. It has no environment variable: only a config file sets it.
CONFIG = "[defaults]\ninternal_poll_interval = 0.05\n"


def ansible_env(tmp: Path) -> dict[str, str]:
    """A clean environment for ansible-playbook, its state and its config file under `tmp`."""
    home = tmp / "ansible"
    home.mkdir(parents=True, exist_ok=True)
    (home / "ansible.cfg").write_text(CONFIG)
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp),
        "ANSIBLE_CONFIG": str(home / "ansible.cfg"),
        "ANSIBLE_HOME": str(home),
        "ANSIBLE_LOCAL_TEMP": str(tmp / "ansible/tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "LC_ALL": "C.UTF-8",
    }


def run_playbook(
    play: Path, root: Path, tmp: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    env = ansible_env(tmp)
    cmd = [
        ansible_playbook(),
        "-i", "localhost,", "-c", "local",
        "-e", "tuitune_hosts=localhost",
        "-e", f"ansible_python_interpreter={sys.executable}",
        "-e", f"tuitune_root={root}",
        "-e", "tuitune_apply_now=false",
        # The host's own Python makes the venv (--install-tuitune), as on a real host.
        "-e", f"tuitune_install_python={HOST_PYTHON}",
        *extra,
        str(play),
    ]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp, timeout=900)


def recap(out: str) -> dict[str, int]:
    m = re.search(r"localhost\s*:\s*(.*)", out.split("PLAY RECAP", 1)[-1])
    assert m, out
    return {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", m.group(1))}


def tuned(tmp: Path) -> tuple[Path, Path, Path]:
    """(tree, plain export dir, playbook dir) of a host tuned and exported as a user would."""
    tree = build_host(tmp / "host")
    (tree / "proc/sys/kernel/hostname").write_text(HOSTILE + "\n")
    # The NIC on a PCI bus, as on real hosts: its ID_PATH is what the fleet's rules match.
    pci = tree / "sys/devices/pci0000:3a/0000:3b:00.0"
    pci.mkdir(parents=True)
    (tree / f"sys/class/net/{DEV}/device").symlink_to(pci)
    pepc_tree(tree, "clx2s0", keep=TREE_OWNS)  # intel/pepc's recorded CPU power
    igb = tree / "sys/module/igb"
    (igb / "parameters").mkdir(parents=True)
    (igb / "parameters/InterruptThrottleRate").write_text("8000\n")
    drv = tree / "sys/bus/pci/drivers/igb"
    drv.mkdir(parents=True)
    (drv / "module").symlink_to(igb)
    (pci / "driver").symlink_to(drv)
    profile = tmp / "tuned.toml"
    profile.write_text(PROFILE + PLATFORM)
    journal = tmp / "journal"
    assert tuitune("apply", profile, DEV, "--root", tree, "--journal-dir", journal).returncode == 0
    for attempt in range(3):
        plain, play = tmp / f"plain{attempt}", tmp / f"play{attempt}"
        res = tuitune("export", DEV, "--root", tree, "--journal-dir", journal, "--out", plain)
        assert res.returncode == 0, res.stderr
        res = tuitune(
            "export", DEV, "--root", tree, "--journal-dir", journal, "--ansible", "--out", play,
            "--install-tuitune", wheelhouse(),
        )  # fmt: skip
        assert res.returncode == 0, res.stderr
        assert "matching the NIC by ID_PATH" in res.stderr  # the default, and why, said
        # The files say when they were written, to the minute: both exports in the same one.
        if stamp(plain / "90-tuitune.conf") == stamp(
            play / TEMPLATES / "sysctl.d/90-tuitune.conf.j2"
        ):
            return tree, plain, play
    raise AssertionError("the two exports never fell in the same minute")


def stamp(path: Path) -> str:
    return next(ln for ln in path.read_text().splitlines() if "Written by" in ln)


def test_the_playbook_installs_the_export_byte_for_byte_and_is_idempotent(
    tmp_path: Path,
) -> None:
    ansible_playbook()
    tree, plain, play = tuned(tmp_path)
    exported = sorted(p.name for p in plain.iterdir())
    assert "90-tuitune-eno49.rules" in exported and "affinity-eno49.conf" in exported
    assert "90-tuitune-igb.conf" in exported and "tuitune-cpu-power.service" in exported

    def installed() -> dict[str, bytes]:
        return {
            p.name: p.read_bytes()
            for p in (tree / "etc").rglob("*")
            if p.is_file() and p.name in exported
        }

    assert installed() == {}
    # --check before the first run: says what it would do, writes nothing.
    res = run_playbook(play / "playbook.yml", tree, tmp_path, "--check")
    assert res.returncode == 0, res.stdout + res.stderr
    assert installed() == {}

    res = run_playbook(play / "playbook.yml", tree, tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert recap(res.stdout)["failed"] == 0 and recap(res.stdout)["changed"] > 0
    # The platform's handlers were notified and skipped (tuitune_apply_now=false).
    for handler in (
        "daemon-reload, enable and run tuitune-cpu-power.service",
        "rebuild the initramfs",
        "the driver's options are read at its next load",
    ):
        assert f"RUNNING HANDLER [tuitune_nic : Tuitune: {handler}" in res.stdout, res.stdout
    got = installed()
    assert sorted(got) == exported
    for name in exported:
        assert got[name] == (plain / name).read_bytes(), f"{name} differs from the export"
    assert HOSTILE in got["90-tuitune.conf"].decode()  # the hostname came through as text
    assert not (tmp_path / "PWNED").exists()
    # The files installed are the ones tuitune verify reads, and they match the tree.
    res = tuitune("verify", "--installed", "--root", tree)
    assert res.returncode == 0, res.stdout + res.stderr
    # tuitune itself, installed from the shipped wheelhouse, where the unit runs it.
    unit = (tree / "etc/systemd/system/tuitune-affinity@.service").read_text()
    assert "ExecStart=/usr/local/bin/tuitune apply-affinity --follow %I" in unit
    command = tree / "usr/local/bin/tuitune"
    assert os.readlink(command) == f"{tree}/opt/tuitune/bin/tuitune"
    # By default pip wrote the bytecode of what it installed (the guest's run turns it off).
    assert (
        len(
            list(
                (tree / "opt/tuitune/lib").glob("python3*/site-packages/textual/__pycache__/*.pyc")
            )
        )
        > 20
    )
    version = subprocess.run([command, "--version"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("tuitune ")
    assert (tree / "usr/local/share/man/man1/tuitune.1").read_text().startswith('.\\"')
    assert (tree / "usr/local/share/bash-completion/completions/tuitune").stat().st_size > 0

    res = run_playbook(play / "playbook.yml", tree, tmp_path)
    assert res.returncode == 0 and recap(res.stdout)["changed"] == 0, res.stdout

    # Someone edits a file: --check --diff shows the way back and changes nothing.
    rules = next((tree / "etc/udev/rules.d").glob("90-tuitune-eno49.rules"))
    rules.write_text(rules.read_text().replace('ATTR{mtu}="9000"', 'ATTR{mtu}="1500"'))
    res = run_playbook(play / "playbook.yml", tree, tmp_path, "--check", "--diff")
    assert res.returncode == 0, res.stdout + res.stderr
    assert '-ATTR{mtu}="1500"' in res.stdout and '+ATTR{mtu}="9000"' in res.stdout
    assert recap(res.stdout)["changed"] == 1
    assert 'ATTR{mtu}="1500"' in rules.read_text()
    assert not (tmp_path / "PWNED").exists()

    # A live value drifts: verify.yml (tuitune verify --installed on each host) fails the host.
    (tree / "proc/sys/net/core/somaxconn").write_text("4096\n")
    res = run_playbook(play / "verify.yml", tree, tmp_path, "-e", f"tuitune_command={command}")
    assert res.returncode != 0 and recap(res.stdout)["failed"] == 1, res.stdout
    assert "net.core.somaxconn: file says 8192, live 4096" in res.stdout
