"""`export --ansible --install-tuitune DIR` reads DIR as a file another user may have touched:
only the wheelhouse layout's names, no link followed, each wheel pinned by sha256 in
requirements.txt, and this version of tuitune among them; anything else is one line."""

from __future__ import annotations

import hashlib
import io
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tuitune import __version__
from tuitune.core.export.ansible import install_files
from tuitune.core.export.ansible_install import bootstrap_script, install_tasks
from tuitune.core.export.wheelhouse import SHARE, WheelhouseError, read_wheelhouse


def _house(top: Path, wheels: dict[str, bytes], pinned: dict[str, bytes] | None = None) -> Path:
    (top / "wheels").mkdir(parents=True)
    lines = ["# a comment"]
    for name, data in wheels.items():
        (top / "wheels" / name).write_bytes(data)
    for name, data in (pinned if pinned is not None else wheels).items():
        dist, version = name.split("-")[:2]
        lines.append(f"{dist}=={version} --hash=sha256:{hashlib.sha256(data).hexdigest()}")
    (top / "requirements.txt").write_text("\n".join(lines) + "\n")
    for rel in SHARE:
        (top / "share" / rel).parent.mkdir(parents=True, exist_ok=True)
        (top / "share" / rel).write_text(f"{rel}\n")
    (top / "bootstrap").mkdir()
    (top / "bootstrap" / PIP).write_bytes(b"pip wheel")
    digest = hashlib.sha256(b"pip wheel").hexdigest()
    (top / "bootstrap/SHA256SUMS").write_text(f"{digest}  {PIP}\n")
    return top


PIP = "pip-25.3-py3-none-any.whl"


WHEELS = {
    f"tuitune-{__version__}-py3-none-any.whl": b"tuitune wheel",
    "psutil-7.2.2-cp36-abi3-manylinux_2_12_x86_64.whl": b"psutil wheel",
}


def test_the_role_gets_the_pinned_wheels_and_the_share_files(tmp_path: Path) -> None:
    house = _house(tmp_path / "wh", WHEELS)
    (house / "wheels" / "notes.txt").write_text("not a wheel: not shipped")
    files = install_files(read_wheelhouse(house))
    assert list(files) == ["roles/tuitune_nic/files/wheelhouse.tar"]
    data = files["roles/tuitune_nic/files/wheelhouse.tar"]
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        members = {m.name: m for m in tar.getmembers()}
        shipped = sorted(n for n, m in members.items() if m.isfile())
        assert shipped == sorted(
            ["requirements.txt", "bootstrap/SHA256SUMS", f"bootstrap/{PIP}"]
            + ["bootstrap/install-venv.sh"]
            + ["wheels/" + n for n in WHEELS]
            + ["share/" + r for r in SHARE]
        )
        wheel = tar.extractfile(f"wheels/tuitune-{__version__}-py3-none-any.whl")
        assert wheel is not None and wheel.read() == b"tuitune wheel"
        # Nothing a path could use, owned by root, one fixed time (the next run compares).
        assert all(not n.startswith("/") and ".." not in n.split("/") for n in members)
        assert {(m.uid, m.gid, m.mode, m.mtime) for m in members.values() if m.isfile()} == {
            (0, 0, 0o644, 1_700_000_000)
        }
    # Two exports of one wheelhouse are the same bytes.
    assert install_files(read_wheelhouse(house))["roles/tuitune_nic/files/wheelhouse.tar"] == data


def test_a_wheel_requirements_does_not_pin_is_refused(tmp_path: Path) -> None:
    house = _house(tmp_path / "wh", WHEELS, {**WHEELS, next(iter(WHEELS)): b"other bytes"})
    with pytest.raises(WheelhouseError, match=r"is not one requirements\.txt pins by sha256"):
        read_wheelhouse(house)


@pytest.mark.parametrize(
    ("sums", "why"),
    [
        (f"{'0' * 64}  {PIP}\n", "does not match its sha256"),
        (f"{'0' * 64}  ../{PIP}\n", "is not one line naming pip's wheel"),
        (f"{'0' * 64}  evil-1.0-py3-none-any.whl\n", "is not one line naming pip's wheel"),
        ("", "is not one line naming pip's wheel"),
    ],
)
def test_a_pip_wheel_its_sum_does_not_name_is_refused(tmp_path: Path, sums: str, why: str) -> None:
    house = _house(tmp_path / "wh", WHEELS)
    (house / "bootstrap/SHA256SUMS").write_text(sums)
    with pytest.raises(WheelhouseError, match=re.escape(why)):
        read_wheelhouse(house)


def test_the_role_runs_the_shipped_pip_into_a_venv_made_without_pip(tmp_path: Path) -> None:
    install = read_wheelhouse(_house(tmp_path / "wh", WHEELS))
    assert install.pip_wheel == PIP
    (task,) = [
        t for t in install_tasks(install) if isinstance(t, dict) and "in its venv" in str(t["name"])
    ]
    assert "ansible.builtin.pip" not in task
    script = bootstrap_script(install).decode()
    assert '-m venv --without-pip "$venv"' in script and "sha256sum --check --strict" in script
    assert f'/bootstrap/{PIP}/pip" install' in script and "--require-hashes" in script


def test_another_tuitune_version_is_refused(tmp_path: Path) -> None:
    house = _house(tmp_path / "wh", {"tuitune-0.0.1-py3-none-any.whl": b"old"})
    with pytest.raises(
        WheelhouseError, match=re.escape(f"pins tuitune 0.0.1, this is {__version__}")
    ):
        read_wheelhouse(house)


def test_a_link_in_the_wheelhouse_is_not_followed(tmp_path: Path) -> None:
    house = _house(tmp_path / "wh", WHEELS)
    secret = tmp_path / "secret"
    secret.write_text("root's")
    (house / "share/man/man1/tuitune.1").unlink()
    (house / "share/man/man1/tuitune.1").symlink_to(secret)
    with pytest.raises(WheelhouseError, match="symbolic link"):
        read_wheelhouse(house)


def test_the_cli_says_it_in_one_line_and_writes_nothing(tmp_path: Path) -> None:
    def export(*args: str) -> subprocess.CompletedProcess[str]:
        return tuitune("export", "lo", *args)

    res = export("--install-tuitune", "index")
    assert (res.returncode, res.stderr) == (
        2,
        "tuitune: --install-tuitune puts tuitune into the playbook's role: "
        "give --ansible --out DIR\n",
    )
