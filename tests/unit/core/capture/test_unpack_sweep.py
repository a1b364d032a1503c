"""`--root CAPTURE` unpacks into a directory named by its pid (issue 34): one left behind by
a process killed with SIGKILL (no atexit ran) is removed by the next unpack, one of a
process still alive is kept, and a parent that is not ours alone is not swept at all."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tarfile
from pathlib import Path

from tuitune.core.capture.unpack import sweep, unpacked

DEAD = 2**22 + 7  # above any pid_max (4194304): never a live process


def _capture(tmp: Path) -> Path:
    (tmp / "proc").mkdir()
    (tmp / "proc/stat").write_text("cpu  1 2 3 4\n")
    cap = tmp / "cap.tar.gz"
    with tarfile.open(cap, "w:gz") as tar:
        tar.add(tmp / "proc", arcname="proc")
    return cap


def test_a_dead_processs_directory_is_swept_a_live_ones_kept(tmp_path: Path) -> None:
    parent = tmp_path / "roots"
    parent.mkdir(mode=0o700)
    (parent / f"{DEAD}-abc").mkdir()
    (parent / f"{DEAD}-abc/proc").mkdir()
    (parent / f"{os.getppid()}-def").mkdir()  # pytest's parent: alive
    got = unpacked(_capture(tmp_path), parent)
    assert got.parent == parent and got.name.startswith(f"{os.getpid()}-")
    assert (got / "proc/stat").read_text() == "cpu  1 2 3 4\n"
    assert sorted(p.name for p in parent.iterdir()) == sorted([got.name, f"{os.getppid()}-def"])


def test_a_parent_others_can_write_is_not_used(tmp_path: Path) -> None:
    parent = tmp_path / "shared"
    parent.mkdir()
    parent.chmod(0o777)
    (parent / f"{DEAD}-abc").mkdir()
    got = unpacked(_capture(tmp_path), parent)
    assert got.parent != parent  # a private temporary directory instead, as before
    assert (parent / f"{DEAD}-abc").is_dir()  # nothing removed in a place others share


def test_sigkill_leaves_a_directory_the_next_start_removes(tmp_path: Path) -> None:
    parent = tmp_path / "roots"
    parent.mkdir(mode=0o700)
    cap = _capture(tmp_path)
    code = (
        "import sys; from pathlib import Path; from tuitune.core.capture.unpack import unpacked;"
        f"print(unpacked(Path({str(cap)!r}), Path({str(parent)!r})), flush=True);"
        "sys.stdin.read()"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        left = Path(child.stdout.readline().strip())  # unpacked: the child waits on stdin
        assert left.is_dir()
        child.send_signal(signal.SIGKILL)
        child.wait()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert left.is_dir()  # SIGKILL: no atexit ran
    assert sweep(parent) == [left.name]
    assert not left.exists()
