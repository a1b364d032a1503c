"""Which processes are a system daemon: root's, running a binary only root can replace.

A process name (/proc/PID/comm) is whatever its owner chose: any user can start a process called
"irqbalance" or "NetworkManager". On this machine's /proc a process counts as the daemon only
when its real, effective and saved uids are all 0 and its executable (/proc/PID/exe: the inode
it runs, and the directories of the path it was started from) is root-owned and writable by
nobody else (tuitune.core.proc's rule). As a plain user tuitune cannot read a root process's
exe link; a uid-0 process then counts on its uid alone (no other user can make one, and a plain
user's tuitune never stops or starts anything).

A recorded host tree (`--root`) is only ever read: its processes count by name, and by uid 0
when the tree holds their status file.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from tuitune.core.host.root import HostRoot
from tuitune.core.proc import ProgramRefused, check_path

COMM_LEN = 15  # the kernel keeps this many characters of a process name
ROOT_ONLY = frozenset({0})
_REAL_PROC = Path("/proc")


def _tree_uids(root: HostRoot, pid: str) -> tuple[int, ...] | None:
    try:
        text = root.read_proc(f"{pid}/status")
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        if line.startswith("Uid:"):
            fields = line.split()[1:]
            if fields and all(f.isdigit() for f in fields):
                return tuple(int(f) for f in fields)
    return None


def _named(root: HostRoot, comm: str) -> list[str]:
    """The pids (as /proc entries) whose name is `comm`: the cheap first pass, one small read
    per process."""
    try:
        entries = os.listdir(root.proc)
    except OSError:
        return []
    found = []
    for entry in entries:
        if not (entry.isascii() and entry.isdigit()):
            continue
        try:
            name = root.read_proc(f"{entry}/comm").strip()
        except (OSError, UnicodeDecodeError):
            continue  # gone between listdir and read, or not a name
        if name == comm[:COMM_LEN]:
            found.append(entry)
    return found


def _tree_pids(root: HostRoot, comm: str) -> list[int]:
    pids = []
    for entry in _named(root, comm):
        uids = _tree_uids(root, entry)
        if uids is None or not any(uids):
            pids.append(int(entry))
    return pids


def root_binary_problem(pid: int) -> str | None:
    """Why the executable `pid` runs is not one only root can replace (None: it is). Raises
    PermissionError when tuitune may not look (a plain user and a root process)."""
    link = f"/proc/{pid}/exe"
    st = os.stat(link)  # the inode it runs, even if its path was replaced since
    if st.st_uid != 0:
        return f"its executable is owned by uid {st.st_uid}"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return "its executable is writable by others"
    path = os.readlink(link).removesuffix(" (deleted)")  # an upgrade replaced it: still root's
    try:
        check_path(os.path.dirname(path) or "/", owners=ROOT_ONLY)
    except ProgramRefused as exc:
        return exc.why
    return None


def _live_pids(root: HostRoot, comm: str) -> list[int]:
    """This machine's processes named `comm` that count as the system's daemon: found by
    their kernel name (one small read a process; psutil's process_iter took 77 us a process,
    2.6 times that, and a big host has thousands), then psutil gives the few matches' uids;
    the executable check stays tuitune's own (proc.check_path)."""
    named = _named(root, comm)
    if not named:  # the usual case: psutil (1 MB, issue 38) is not loaded for nothing
        return []
    import psutil  # only here: it costs start-up time every other path does not need

    pids = []
    for pid in map(int, named):
        try:
            p = psutil.Process(pid)  # pinned by its start time from here on
            # The name again, from the pinned process: the pid may have been reused since the
            # first pass (psutil lengthens a 15-character name only from an argv[0] that
            # starts with it, so cutting it back is the same comparison).
            if p.name()[:COMM_LEN] != comm[:COMM_LEN]:
                continue
            uids = p.uids()
        except psutil.Error:
            continue
        if any(uids):
            continue  # not root's: whoever it is, it is not the system's daemon
        try:
            if root_binary_problem(p.pid) is not None:
                continue
        except PermissionError:
            if os.geteuid() == 0:
                continue
        except OSError:
            continue  # gone meanwhile, or a kernel thread (no executable)
        pids.append(p.pid)
    return pids


def daemon_pids(root: HostRoot, comm: str) -> tuple[int, ...]:
    """The pids of `comm` that count as the system's daemon (see the module's docstring)."""
    if root.live and root.proc == _REAL_PROC:
        return tuple(sorted(_live_pids(root, comm)))
    return tuple(sorted(_tree_pids(root, comm)))
