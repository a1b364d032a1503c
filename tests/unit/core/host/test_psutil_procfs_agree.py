"""psutil on the live host and the hand-written /proc reading kept for recorded trees must say
the same of a real process: its name, whether it counts as a root daemon, and when it is gone.

The children here are this test's own: a python that renames itself (prctl PR_SET_NAME) to a
name no other process has, once as root and once as nobody.
"""

from __future__ import annotations

import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.host import daemon
from tuitune.core.host.root import HostRoot
from tuitune.core.lab import procs as lab_procs

# Renames itself, says so, then waits for stdin to close.
CHILD = (
    "import ctypes, sys; ctypes.CDLL(None).prctl(15, sys.argv[1].encode(), 0, 0, 0);"
    "print('ready', flush=True); sys.stdin.read()"
)
NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


def _spawn(name: str, as_nobody: bool) -> subprocess.Popen[str]:
    cmd = [*(NOBODY if as_nobody else []), sys.executable, "-I", "-c", CHILD, name]
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stdout.readline() == "ready\n"
    return child


@pytest.fixture
def name() -> str:
    return "tt-" + secrets.token_hex(5)  # 13 characters: the kernel keeps all of it


@pytest.fixture
def children(name: str) -> Iterator[tuple[subprocess.Popen[str], subprocess.Popen[str]]]:
    mine, nobodys = _spawn(name, False), _spawn(name, True)
    try:
        yield mine, nobodys
    finally:
        for child in (mine, nobodys):
            child.kill()
            child.wait()


def test_name_is_the_kernels(children: tuple[subprocess.Popen[str], ...], name: str) -> None:
    for child in children:
        comm = Path(f"/proc/{child.pid}/comm").read_text().strip()
        assert lab_procs.process_comm(child.pid) == comm == name


def test_daemon_pids_agree_live_and_as_a_tree(
    children: tuple[subprocess.Popen[str], subprocess.Popen[str]], name: str
) -> None:
    mine, nobodys = children
    live = daemon.daemon_pids(HostRoot(), name)  # psutil
    tree = daemon.daemon_pids(HostRoot(live=False), name)  # /proc read as a recorded tree
    # root's child from a root-owned python counts both ways; nobody's counts neither way.
    assert live == tree == (mine.pid,)
    assert nobodys.pid not in live


def test_kill_leaves_no_process_either_way(
    children: tuple[subprocess.Popen[str], subprocess.Popen[str]],
) -> None:
    mine, _ = children
    assert lab_procs.kill(mine.pid)
    # Our own child is a zombie until waited for: gone for psutil and for /proc's state alike.
    state = Path(f"/proc/{mine.pid}/stat").read_text().rpartition(")")[2].split()[0]
    assert state == "Z"
    assert lab_procs.process_comm(mine.pid) is not None  # a zombie keeps its name, as in /proc
    mine.wait()
    assert lab_procs.process_comm(mine.pid) is None
    assert not Path(f"/proc/{mine.pid}").exists()
