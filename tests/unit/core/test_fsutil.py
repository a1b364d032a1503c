"""tuitune.core.fsutil: the one way tuitune creates files. The rules, one by one, as root
with the hostile parts owned by nobody (the attacks through the commands are in
tests/security/)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tuitune.core import fsutil
from tuitune.core.fsutil import FsError, UnsafePath

NOBODY = 65534

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the rules for root")


def nobodys(path: Path) -> Path:
    os.lchown(path, NOBODY, NOBODY)
    return path


def refused(fn: Callable[[], object], *words: str) -> str:
    with pytest.raises(UnsafePath) as exc:
        fn()
    msg = str(exc.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg
    return msg


# -- the directory rule ----------------------------------------------------------------------
def test_a_root_directory_is_written_and_made_with_its_parents(tmp_path: Path) -> None:
    fsutil.write_file(tmp_path / "a" / "b" / "f.conf", b"x\n", 0o640, follow=False)
    f = tmp_path / "a" / "b" / "f.conf"
    assert f.read_bytes() == b"x\n"
    assert stat.S_IMODE(f.stat().st_mode) == 0o640
    assert sorted(p.name for p in f.parent.iterdir()) == ["f.conf"]  # no temporary left


@pytest.mark.parametrize(
    ("uid", "gid", "mode", "why"),
    [
        (NOBODY, 0, 0o755, "owned by nobody (uid 65534), not root"),
        (0, 0, 0o775, "writable by its group (mode 0775) without the sticky bit"),
        (0, 0, 0o777, "writable by group and others (mode 0777)"),
        (0, NOBODY, 0o2755, "set-group-ID to nogroup"),
    ],
)
def test_a_directory_others_can_change_is_refused(
    tmp_path: Path, uid: int, gid: int, mode: int, why: str
) -> None:
    d = tmp_path / "d"
    d.mkdir()
    os.chown(d, uid, gid)
    d.chmod(mode)
    refused(lambda: fsutil.open_dir(d), str(d), why)
    refused(lambda: fsutil.write_file(d / "f", b"x", follow=False), why)
    assert list(d.iterdir()) == []


def test_a_sticky_world_writable_directory_is_fine(tmp_path: Path) -> None:
    """/tmp: O_EXCL and the sticky bit keep the others' names apart."""
    d = tmp_path / "tmp"
    d.mkdir()
    d.chmod(0o1777)
    fsutil.write_file(d / "f", b"x", follow=False)
    assert (d / "f").read_bytes() == b"x"


# -- links --------------------------------------------------------------------------------------
def test_another_users_link_is_never_followed(tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    nobodys_link = tmp_path / "theirs"
    nobodys_link.symlink_to(real)
    nobodys(nobodys_link)
    refused(lambda: fsutil.open_dir(nobodys_link), "symbolic link owned by nobody")
    refused(lambda: fsutil.write_file(nobodys_link / "f", b"x", follow=False), "not followed")
    refused(lambda: fsutil.read_file(nobodys_link / "f", 10), "not followed")
    assert list(real.iterdir()) == []


def test_roots_link_in_a_directory_others_write_is_not_followed(tmp_path: Path) -> None:
    """Root's link, but in nobody's directory: they could have renamed root's link in."""
    home = tmp_path / "home"
    home.mkdir()
    nobodys(home)
    (home / "link").symlink_to(tmp_path)
    refused(lambda: fsutil.open_dir(home / "link"), "in a directory others can write")


def test_roots_links_in_roots_directories_are_followed(tmp_path: Path) -> None:
    """Like /var/run -> ../run: relative, absolute, and as the file itself (a dotfile)."""
    (tmp_path / "run").mkdir()
    (tmp_path / "var").mkdir()
    (tmp_path / "var" / "run").symlink_to("../run")
    fsutil.write_file(tmp_path / "var" / "run" / "f", b"1", follow=False)
    assert (tmp_path / "run" / "f").read_bytes() == b"1"
    (tmp_path / "abs").symlink_to(tmp_path / "run")
    assert fsutil.read_file(tmp_path / "abs" / "f", 10) == b"1"
    (tmp_path / "dot").symlink_to("run/f")
    fsutil.write_file(tmp_path / "dot", b"2", follow=True)
    assert (tmp_path / "dot").is_symlink() and (tmp_path / "run" / "f").read_bytes() == b"2"


def test_a_link_at_the_file_is_refused_when_not_followed(tmp_path: Path) -> None:
    (tmp_path / "outside").mkdir()
    link = tmp_path / "f"
    link.symlink_to(tmp_path / "outside" / "made")
    refused(lambda: fsutil.write_file(link, b"x", follow=False), "not replaced")
    with fsutil.open_dir(tmp_path) as d:
        refused(lambda: d.backup("f"), "symbolic link")
        refused(lambda: d.read("f", 10), "symbolic link")
    assert list((tmp_path / "outside").iterdir()) == []


def test_links_in_a_loop_end(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to("b")
    (tmp_path / "b").symlink_to("a")
    with pytest.raises(FsError, match="too many levels of symbolic links"):
        fsutil.open_dir(tmp_path / "a")


# -- what is read -------------------------------------------------------------------------------
def test_reading_refuses_what_is_not_a_file(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")  # must not hang
    with pytest.raises(FsError, match="a FIFO, not a file"):
        fsutil.read_file(tmp_path / "fifo", 10)
    with pytest.raises(FsError, match="a device, not a file"):
        fsutil.read_file("/dev/zero", 10)
    with pytest.raises(FsError, match="a directory, not a file"):
        fsutil.read_file(tmp_path, 10)
    (tmp_path / "big").write_bytes(b"x" * 11)
    with pytest.raises(FsError, match="larger than 10 bytes"):
        fsutil.read_file(tmp_path / "big", 10)
    assert fsutil.read_file(tmp_path / "big", 11) == b"x" * 11
    assert fsutil.read_file(tmp_path / "missing" / "f", 10) is None


def test_a_hard_link_in_another_users_directory_is_not_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("s")
    home = tmp_path / "home"
    home.mkdir()
    nobodys(home)
    os.link(secret, home / "notebook")
    refused(lambda: fsutil.read_file(home / "notebook", 10), "2 names (hard links)")


# -- what is written ----------------------------------------------------------------------------
def test_a_backup_keeps_owner_and_mode_and_passes_over_planted_names(tmp_path: Path) -> None:
    f = tmp_path / "f.conf"
    f.write_text("old\n")
    os.chown(f, 0, NOBODY)
    f.chmod(0o640)
    with fsutil.open_dir(tmp_path) as d:
        first = d.backup("f.conf", when=0)
        (tmp_path / "outside").mkdir()
        assert first is not None
        (tmp_path / first).unlink()
        (tmp_path / first).symlink_to(tmp_path / "outside" / "x")  # dangling, planted
        second = d.backup("f.conf", when=0)
    assert second == f"{first}.1"
    copy = tmp_path / second
    st = copy.stat()
    assert copy.read_text() == "old\n"
    assert (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)) == (0, NOBODY, 0o640)
    assert list((tmp_path / "outside").iterdir()) == []


def test_keep_mode_and_umask(tmp_path: Path) -> None:
    f = tmp_path / "f"
    f.write_text("1")
    f.chmod(0o600)
    fsutil.write_file(f, b"2", None, follow=False)
    assert stat.S_IMODE(f.stat().st_mode) == 0o600
    old = os.umask(0o027)
    try:
        fsutil.write_file(tmp_path / "g", b"1", None, follow=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "g").stat().st_mode) == 0o640


def test_append_refuses_a_file_another_user_owns(tmp_path: Path) -> None:
    fsutil.append_file(tmp_path / "n.jsonl", b"1\n")
    fsutil.append_file(tmp_path / "n.jsonl", b"2\n")
    assert (tmp_path / "n.jsonl").read_bytes() == b"1\n2\n"
    nobodys(tmp_path / "n.jsonl")
    refused(lambda: fsutil.append_file(tmp_path / "n.jsonl", b"3\n"), "owned by nobody")
    assert (tmp_path / "n.jsonl").read_bytes() == b"1\n2\n"


def test_a_failed_rename_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "f").write_text("old")

    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(FsError) as exc:
        fsutil.write_file(tmp_path / "f", b"new", follow=False)
    assert str(exc.value) == f"{tmp_path / 'f'}: No space left on device"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]
    assert (tmp_path / "f").read_text() == "old"


def test_a_plain_user_may_write_its_own_group_writable_directory() -> None:
    """Not root: owned by us (umask 002 makes it group-writable) is fine."""
    top = Path(tempfile.mkdtemp(prefix="tuitune-fsutil-"))  # tmp_path: root's 0700 dirs above
    top.chmod(0o755)
    d = top / "mine"
    d.mkdir()
    d.chmod(0o775)
    nobodys(d)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            fsutil.write_file(d / "f", b"x", follow=False)
            os.write(w, b"ok")
        except BaseException as exc:
            os.write(w, str(exc).encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        said = f.read()
    os.waitpid(pid, 0)
    try:
        assert said == "ok"
        assert (d / "f").stat().st_uid == NOBODY
    finally:
        shutil.rmtree(top)
