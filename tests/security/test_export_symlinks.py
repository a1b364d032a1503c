"""Hole 3 of issue 14: `export --out DIR` (and `--install` into a tree) followed links.

Reproduced as found, as root, with the hostile parts owned by `nobody`: a dangling link at the
predictable backup name made root create a file outside the directory; a set-group-ID
directory and a link in place of the file turned the backup into a copy of a root-only file
another group could read; a linked --out directory was written through. Each test asserts on
the file system (nothing written outside, no secret copied) and on the one-line message.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.session_fakes import build_host
from tests.unit.core.export.test_export_verify import DEV, PROFILE

NOBODY = 65534
SECRET = "root-only: the key of the lab\n"

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the attacks are on root")


@dataclass
class Tuned:
    """A recorded host tree tuned by `tuitune apply`, and the names export writes."""

    tree: Path
    journal: Path
    names: list[str]

    def export(self, *where: str | Path) -> tuple[int, str, str]:
        res = tuitune("export", DEV, "--root", self.tree, "--journal-dir", self.journal, *where)
        return res.returncode, res.stdout, res.stderr


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Tuned]:
    base = tmp_path_factory.mktemp("tuned")
    tree = build_host(base / "host")
    (base / "tuned.toml").write_text(PROFILE)
    journal = base / "journal"
    res = tuitune("apply", base / "tuned.toml", DEV, "--root", tree, "--journal-dir", journal)
    assert res.returncode == 0, res.stderr
    first = base / "first"
    res = tuitune("export", DEV, "--root", tree, "--journal-dir", journal, "--out", first)
    assert res.returncode == 0, res.stderr
    yield Tuned(tree, journal, sorted(p.name for p in first.iterdir()))


def owned_by_nobody(path: Path) -> Path:
    os.lchown(path, NOBODY, NOBODY)
    return path


def plant_backup_links(directory: Path, name: str, target: Path, seconds: int = 300) -> None:
    """What the attacker plants: NAME.tuitune-bak-STAMP for every second to come."""
    now = int(time.time())
    for t in range(now - 2, now + seconds):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(t))
        link = directory / f"{name}.tuitune-bak-{stamp}"
        link.symlink_to(target)
        owned_by_nobody(link)


def secret_file(tmp_path: Path) -> Path:
    """A file only root may read (mode 0640, root's group)."""
    d = tmp_path / "root-only"
    d.mkdir(mode=0o700, exist_ok=True)
    secret = d / "shadow"
    secret.write_text(SECRET)
    secret.chmod(0o640)
    return secret


def holding(directory: Path, text: str) -> list[Path]:
    """Files (not links) under `directory` whose content holds `text`."""
    found = []
    for p in directory.rglob("*"):
        if p.is_file() and not p.is_symlink() and text in p.read_text(errors="replace"):
            found.append(p)
    return found


def refusal(stderr: str, *words: str) -> str:
    """The one error line (warnings and notes aside), with every word in it."""
    assert "Traceback" not in stderr
    aside = ("tuitune: note:", "tuitune: warning:", "tuitune: left out:")
    lines = [ln for ln in stderr.splitlines() if not ln.startswith(aside)]
    assert len(lines) == 1, stderr
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# (a) -------------------------------------------------------------------------------------------
def test_a_dangling_link_at_the_backup_name_creates_nothing_outside(
    tuned: Tuned, tmp_path: Path
) -> None:
    """The attack as found: nobody's --out directory holds an older export and, at every
    backup name of the next minutes, a dangling link to a file in a directory root owns (a
    link into /etc/cron.d would be root code execution)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    cron = outside / "cron-file"
    out = tmp_path / "out"
    out.mkdir()
    owned_by_nobody(out)
    for name in tuned.names:
        (out / name).write_text("* * * * * root touch /tmp/pwned\n")
        owned_by_nobody(out / name)
        plant_backup_links(out, name, cron)

    code, stdout, stderr = tuned.export("--out", out)

    assert not cron.exists()
    assert list(outside.iterdir()) == []
    assert code == 1
    refusal(stderr, str(out), "owned by nobody", "not root")
    assert "wrote" not in stdout
    # Nothing in the directory changed: the old files are the attacker's, untouched.
    for name in tuned.names:
        assert (out / name).read_text() == "* * * * * root touch /tmp/pwned\n"


def test_a_dangling_link_in_a_root_directory_is_passed_over(tuned: Tuned, tmp_path: Path) -> None:
    """The same links in a directory root owns (left from before a chown): the backup is made
    O_EXCL beside them, never through one."""
    outside = tmp_path / "outside"
    outside.mkdir()
    cron = outside / "cron-file"
    out = tmp_path / "out"
    out.mkdir()
    name = tuned.names[0]
    (out / name).write_text("# an older export\n")
    plant_backup_links(out, name, cron)

    code, stdout, stderr = tuned.export("--out", out)

    assert code == 0, stderr
    assert not cron.exists()
    [backup] = [p for p in out.glob(f"{name}.tuitune-bak-*") if not p.is_symlink()]
    assert backup.read_text() == "# an older export\n"
    assert f"wrote {out / name} (the old one is {backup})" in stdout


# (b) -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("owner", [0, NOBODY], ids=["root-owned", "nobody-owned"])
def test_a_set_group_id_directory_is_refused(tuned: Tuned, tmp_path: Path, owner: int) -> None:
    """A set-group-ID directory of nobody's group, where the file to back up is a link to a
    root-only file: the copy would have been the secret, readable by that group."""
    secret = secret_file(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    name = tuned.names[0]
    (out / name).symlink_to(secret)
    owned_by_nobody(out / name)
    os.chown(out, owner, NOBODY)
    out.chmod(0o2755)

    code, _, stderr = tuned.export("--out", out)

    assert holding(out, SECRET) == []  # main: a backup holding it, group nogroup, mode 0640
    assert (out / name).is_symlink() and secret.read_text() == SECRET
    assert sorted(p.name for p in out.iterdir()) == [name]
    assert code == 1
    why = "set-group-ID to nogroup" if owner == 0 else "owned by nobody"
    refusal(stderr, str(out), why)


# (c) -------------------------------------------------------------------------------------------
def test_a_linked_out_directory_is_not_followed(tuned: Tuned, tmp_path: Path) -> None:
    """--out names nobody's link to a directory root owns: nothing is written there."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("mine\n")
    link = tmp_path / "out"
    link.symlink_to(victim)
    owned_by_nobody(link)

    code, _, stderr = tuned.export("--out", link)

    assert sorted(p.name for p in victim.iterdir()) == ["keep"]
    assert link.is_symlink()
    assert code == 1
    refusal(stderr, str(link), "symbolic link owned by nobody", "not followed")


def test_a_link_on_the_way_to_out_is_not_followed(tuned: Tuned, tmp_path: Path) -> None:
    """The link one level up: --out nobody's-link/sub."""
    victim = tmp_path / "victim"
    (victim / "sub").mkdir(parents=True)
    link = tmp_path / "home"
    link.symlink_to(victim)
    owned_by_nobody(link)

    code, _, stderr = tuned.export("--out", link / "sub")

    assert list((victim / "sub").iterdir()) == []
    assert code == 1
    refusal(stderr, str(link), "symbolic link owned by nobody")


def test_roots_own_link_to_out_is_followed(tuned: Tuned, tmp_path: Path) -> None:
    """A link root made in a directory only root writes (like /var/run): nobody else could
    have put it there, so it is followed."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "out").symlink_to(real)

    code, _, stderr = tuned.export("--out", tmp_path / "out")

    assert code == 0, stderr
    assert sorted(p.name for p in real.iterdir()) == tuned.names


# (d) -------------------------------------------------------------------------------------------
def test_a_link_in_place_of_the_file_is_not_followed_nor_copied(
    tuned: Tuned, tmp_path: Path
) -> None:
    """`export --install` into a recorded tree whose etc/sysctl.d/90-tuitune.conf is nobody's
    link to a root-only file: neither read into a backup nor replaced through."""
    secret = secret_file(tmp_path)
    sysctl_d = tuned.tree / "etc" / "sysctl.d"
    sysctl_d.mkdir(parents=True, exist_ok=True)
    target = sysctl_d / "90-tuitune.conf"
    target.symlink_to(secret)
    owned_by_nobody(target)
    try:
        code, stdout, stderr = tuned.export("--install")
    finally:
        installed = holding(tuned.tree / "etc", SECRET)
        target.unlink()

    assert installed == []  # main: a backup beside the link holding the secret
    assert secret.read_text() == SECRET
    assert oct(secret.stat().st_mode & 0o777) == oct(0o640)
    assert code == 1
    refusal(stderr, "install failed", str(target), "symbolic link", "not replaced")
    assert "wrote" not in stdout


def test_a_link_in_place_of_an_out_file_is_not_replaced(tuned: Tuned, tmp_path: Path) -> None:
    """The same in --out: a dangling link at the file's own name is not written through."""
    outside = tmp_path / "outside"
    outside.mkdir()
    out = tmp_path / "out"
    out.mkdir()
    name = tuned.names[0]
    (out / name).symlink_to(outside / "cron-file")
    owned_by_nobody(out / name)

    code, _, stderr = tuned.export("--out", out)

    assert list(outside.iterdir()) == []
    assert (out / name).is_symlink()  # main: replaced by the file (exit 0)
    assert code == 1
    refusal(stderr, str(out / name), "symbolic link")
