"""The lab's processes: its iperf3 server (found by its pidfile and its listening socket),
stopping a process, and what /proc says of a pid. Split out of lab.py, which re-exports these.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

from tuitune.core import fsutil
from tuitune.core.lab_state import Lab

_TCP_LISTEN = "0A"  # the state column of /proc/net/tcp


def _is_server(lab: Lab, pid: int) -> bool:
    """pid is this lab's iperf3 server (its command line names the lab's pidfile), not some
    other process that got the pid after the server died."""
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return _comm(pid) == "iperf3" and os.fsencode(lab.pidfile) in args


def _read_pidfile(path: Path) -> int | None:
    try:
        data = fsutil.read_file(path, 64, follow=False)
    except OSError:
        return None
    text = (data or b"").decode("ascii", "replace").strip("\0 \n")  # the pid and a NUL
    return int(text) if text.isdigit() else None


def _listening(pid: int, port: int) -> bool:
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


def _kill(pid: int, timeout: float = 3.0) -> bool:
    """SIGTERM, then SIGKILL if it lingers; True once it is gone."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return True
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if _comm(pid) is None or _state(pid) == "Z":
                return True
            time.sleep(0.02)
    return _comm(pid) is None


def _proc_pids() -> Iterator[int]:
    for name in os.listdir("/proc"):
        if name.isdigit():
            yield int(name)


def _comm(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return None


def _state(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return None
