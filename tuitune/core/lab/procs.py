"""The lab's processes: its iperf3 server (found by its pidfile and its listening socket),
stopping a process, and what the kernel says of a pid. Split out of lab.py, which re-exports
these.

Processes are looked at through psutil (the live host's /proc, never a recorded tree: the lab
exists only on this machine). A psutil.Process remembers the start time of the pid it was made
for, so a signal is never sent to a process that took over the pid since (psutil refuses with
NoSuchProcess). Two reads stay hand-written, each for a reason: which namespace a process is in
(psutil has no namespaces) and whether it listens (psutil reads /proc/net/tcp of tuitune's own
namespace, while the server listens in the peer's: /proc/PID/net/tcp is the peer's view).
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.core import fsutil
from tuitune.core.lab.state import Lab

if TYPE_CHECKING:
    import psutil

_TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


# What a lab's servers may be: its iperf3 daemon, and the per-run servers of lab_servers.py
# (one per stream, nuttcp, sockperf). `tuitune lab --down` stops these inside the lab.
SERVER_PROGRAMS = ("iperf3", "nuttcp", "sockperf")


def _process(pid: int) -> psutil.Process | None:
    """The process `pid` is now, None when there is none (or it cannot be looked at)."""
    import psutil  # only here: `tuitune show` and the screen's start never pay for it

    try:
        return psutil.Process(pid)
    except (psutil.Error, ValueError):
        return None


def is_server(lab: Lab, pid: int) -> bool:
    """pid is this lab's iperf3 server (its command line names the lab's pidfile), not some
    other process that got the pid after the server died."""
    import psutil

    p = _process(pid)
    try:
        return p is not None and p.name() == "iperf3" and str(lab.pidfile) in p.cmdline()
    except psutil.Error:
        return False


def read_pidfile(path: Path) -> int | None:
    try:
        data = fsutil.read_file(path, 64, follow=False)
    except OSError:
        return None
    text = (data or b"").decode("ascii", "replace").strip("\0 \n")  # the pid and a NUL
    return int(text) if text.isdigit() else None


def listening(pid: int, port: int) -> bool:
    """A TCP socket on `port` in LISTEN state in pid's network namespace."""
    try:
        lines = Path(f"/proc/{pid}/net/tcp").read_text().splitlines()[1:]
    except OSError:
        return False
    for line in lines:
        f = line.split()
        if len(f) > 3 and f[3] == _TCP_LISTEN and int(f[1].rpartition(":")[2], 16) == port:
            return True
    return False


def kill(pid: int, timeout: float = 3.0) -> bool:
    """SIGTERM, then SIGKILL if it lingers; True once it is gone (a zombie is gone: only its
    parent's wait is missing)."""
    import psutil

    p = _process(pid)
    if p is None:
        return True
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            p.send_signal(sig)  # refused if the pid is another process's by now
        except psutil.NoSuchProcess:
            return True
        except psutil.Error:
            return False
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _gone(p):
                return True
            time.sleep(0.02)
    return _gone(p)


def _gone(p: psutil.Process) -> bool:
    import psutil

    try:
        return not p.is_running() or p.status() == psutil.STATUS_ZOMBIE
    except psutil.Error:
        return True


def proc_pids() -> Iterator[int]:
    for name in os.listdir("/proc"):
        if name.isdigit():
            yield int(name)


def process_comm(pid: int) -> str | None:
    """The process's name (None: no such process). psutil completes a name the kernel cut at
    15 characters from argv[0] only when argv[0] starts with it, so it claims no more than the
    kernel's own name does."""
    import psutil

    p = _process(pid)
    try:
        return None if p is None else p.name()
    except psutil.Error:
        return None
