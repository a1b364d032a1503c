"""Find the processes with sockets on a NIC's addresses, from /proc.

The socket tables (/proc/net/tcp, tcp6, udp, udp6) are read through `HostRoot.read_net`, so on
a --netns host they are the namespace's own (the kernel thread joined it); a socket's inode
is then looked for among every process's /proc/PID/fd links. psutil's net_connections reads
/proc/net of the main thread's namespace, so it cannot see a namespace's sockets: the procfs
path is used on the live host and on a recorded --root tree alike. psutil gives the live
host's interface addresses (getifaddrs on the kernel thread, so the namespace's); a tree's
come from /proc/net/if_inet6, fib_trie and route.

Every file here is written by the kernel about processes other users own: names and argv are
read as bytes (a name need not be UTF-8), and a process that exits while it is being read is
left out, never an error.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from tuitune.core.cpulist import CpuListError, parse_cpulist
from tuitune.core.host.root import HostRoot, open_in_tree
from tuitune.core.procs.cgroup import systemd_unit, unit_of
from tuitune.core.procs.model import NicProcess, ProcIdent, ThreadRun
from tuitune.core.procs.sockets import (
    FD_BUDGET,
    IPAddress,
    interface_addresses,
    nic_socket_inodes,
    parse_socket_table,
    scan_sockets,
    socket_inodes_of,
)

PF_KTHREAD = 0x00200000  # include/linux/sched.h: the task is a kernel thread
KTHREADD_PID = 2  # every kernel thread's parent
_CMDLINE_MAX = 1 << 16  # argv beyond this is elided: ARG_MAX is larger, no view needs it
_STAT_MAX = 4096
_STATUS_MAX = 1 << 16


@dataclass(frozen=True)
class StatFields:
    """What tuitune uses of /proc/PID/stat (proc(5) numbering)."""

    comm: str  # field 2, without its parentheses
    state: str  # 3
    ppid: int  # 4
    flags: int  # 9
    ticks: int  # 14 utime + 15 stime
    start_ticks: int  # 22
    last_cpu: int  # 39


@dataclass(frozen=True)
class ProcReading:
    """One process at one reading (before a window turns two of them into a NicProcess)."""

    ident: ProcIdent
    ppid: int
    flags: int
    cmdline: tuple[str, ...]
    allowed: frozenset[int]
    threads: tuple[ThreadRun, ...]
    sockets: int = 0
    wildcard: int = 0
    unit: str | None = None
    unit_user: int | None = None  # the unit is this uid's user manager's (None: the system's)

    @property
    def kernel_thread(self) -> bool:
        return is_kernel_thread(self.ident.pid, self.ppid, self.flags)


@dataclass(frozen=True)
class Reading:
    """The NIC's processes at one moment; two of them make a window (see `window`)."""

    at: float  # time.monotonic() when it was taken
    procs: Mapping[int, ProcReading]  # by PID
    addresses: frozenset[IPAddress] = frozenset()
    # Past the scan's bound (FD_BUDGET): processes whose descriptors were not all searched,
    # and how many descriptors they hold. Shown, so a missing process is explained.
    unsearched: tuple[int, int] = (0, 0)


def is_kernel_thread(pid: int, ppid: int, flags: int) -> bool:
    return bool(flags & PF_KTHREAD) or pid == KTHREADD_PID or ppid == KTHREADD_PID


# ---- raw reads ------------------------------------------------------------------------------
def _read_bytes(root: HostRoot, rel: str, limit: int) -> bytes:
    """At most `limit` bytes of /proc/REL (inside a --root tree, never a link out); OSError
    when it cannot be read (the process exited: ENOENT or ESRCH)."""
    fd = open_in_tree(root.proc / rel, os.O_RDONLY | os.O_NOCTTY, root.jail, f"/proc/{rel}")
    try:
        chunks: list[bytes] = []
        total = 0
        while total < limit and (chunk := os.read(fd, min(1 << 16, limit - total))):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def _text(raw: bytes) -> str:
    # A name is bytes the process chose: keep them all; printable() shows a bad one as \xNN.
    return raw.decode("utf-8", "surrogateescape")


def parse_stat(raw: bytes) -> StatFields | None:
    """Parse /proc/PID/stat; None for text that is not one. comm may hold spaces and ")": it
    runs from the first "(" to the LAST ")"."""
    _, open_, rest = raw.partition(b"(")
    comm, close, tail = rest.rpartition(b")")
    if not open_ or not close:
        return None
    fields = tail.split()
    try:  # fields[0] is field 3 (state)
        return StatFields(
            comm=_text(comm),
            state=fields[0].decode("ascii", "replace"),
            ppid=int(fields[1]),
            flags=int(fields[6]),
            ticks=int(fields[11]) + int(fields[12]),
            start_ticks=int(fields[19]),
            last_cpu=int(fields[36]),
        )
    except (IndexError, ValueError):
        return None


def _status_field(raw: bytes, name: bytes) -> str | None:
    for line in raw.split(b"\n"):
        key, colon, value = line.partition(b":")
        if colon and key == name:
            return value.strip().decode("ascii", "replace")
    return None


def _allowed(raw: bytes) -> frozenset[int]:
    text = _status_field(raw, b"Cpus_allowed_list")
    if text is None:
        return frozenset()
    try:
        return parse_cpulist(text)
    except CpuListError:
        return frozenset()


def _uid(raw: bytes) -> int | None:
    text = _status_field(raw, b"Uid")  # real, effective, saved, filesystem
    parts = text.split() if text else []
    return int(parts[1]) if len(parts) > 1 and parts[1].isascii() and parts[1].isdigit() else None


# ---- one process ----------------------------------------------------------------------------
def read_ident(root: HostRoot, pid: int) -> ProcIdent | None:
    """Who holds `pid` now (None: nobody, or unreadable)."""
    found = _ident(root, pid)
    return found[0] if found is not None else None


def _ident(root: HostRoot, pid: int) -> tuple[ProcIdent, StatFields, bytes] | None:
    """read_ident's answer with the parsed stat and the raw status it came from."""
    try:
        stat = parse_stat(_read_bytes(root, f"{pid}/stat", _STAT_MAX))
        status = _read_bytes(root, f"{pid}/status", _STATUS_MAX)
    except OSError:
        return None
    uid = _uid(status)
    if stat is None or uid is None:
        return None
    return ProcIdent(pid, stat.start_ticks, uid, stat.comm), stat, status


def read_cmdline(root: HostRoot, pid: int) -> tuple[str, ...]:
    """The argv of `pid` (empty for a kernel thread, a zombie, or one that exited)."""
    try:
        argv = _read_bytes(root, f"{pid}/cmdline", _CMDLINE_MAX)
    except OSError:
        return ()
    return tuple(_text(a) for a in argv.rstrip(b"\0").split(b"\0")) if argv else ()


def read_thread(root: HostRoot, pid: int, tid: int) -> ThreadRun | None:
    base = f"{pid}/task/{tid}"
    try:
        stat = parse_stat(_read_bytes(root, f"{base}/stat", _STAT_MAX))
        status = _read_bytes(root, f"{base}/status", _STATUS_MAX)
    except OSError:
        return None
    if stat is None:
        return None
    return ThreadRun(tid, stat.comm, stat.last_cpu, _allowed(status), stat.ticks)


def thread_ids(root: HostRoot, pid: int) -> list[int]:
    try:
        names = root.listdir(root.proc / f"{pid}/task")
    except OSError:
        return []
    return sorted(int(n) for n in names if n.isascii() and n.isdigit())


def read_process(root: HostRoot, pid: int) -> ProcReading | None:
    """One process with its threads; None when it exited (or cannot be read)."""
    found = _ident(root, pid)
    if found is None:
        return None
    ident, stat, status = found
    try:
        argv = _read_bytes(root, f"{pid}/cmdline", _CMDLINE_MAX)
    except OSError:
        return None
    cgroup = b""
    with contextlib.suppress(OSError):
        cgroup = _read_bytes(root, f"{pid}/cgroup", _STATUS_MAX)
    threads = tuple(t for tid in thread_ids(root, pid) if (t := read_thread(root, pid, tid)))
    unit = unit_of(cgroup)
    return ProcReading(
        ident=ident,
        ppid=stat.ppid,
        flags=stat.flags,
        cmdline=tuple(_text(a) for a in argv.rstrip(b"\0").split(b"\0")) if argv else (),
        allowed=_allowed(status),
        threads=threads,
        unit=unit[0] if unit else None,
        unit_user=unit[1] if unit else None,
    )


def pids(root: HostRoot) -> list[int]:
    try:
        names = root.listdir(root.proc)
    except OSError:
        return []
    return sorted(int(n) for n in names if n.isascii() and n.isdigit())


# ---- a reading and a window -----------------------------------------------------------------
def read_nic_processes(
    root: HostRoot, ifname: str, *, wildcard: bool = True, addresses: Iterable[IPAddress] = ()
) -> Reading:
    """The processes holding sockets on `ifname`'s addresses (with `wildcard`, also those
    serving on every address). Run on the host's kernel thread. `addresses` adds to the
    interface's own (a test, or an address the caller knows)."""
    addrs = interface_addresses(root, ifname) | frozenset(addresses)
    on, anywhere = nic_socket_inodes(root, addrs)
    if not wildcard:
        anywhere = frozenset()
    procs: dict[int, ProcReading] = {}
    unsearched = (0, 0)
    if on or anywhere:
        held, unsearched = scan_sockets(root, pids(root))
        for pid, inodes in held.items():
            n_on = sum(1 for i in inodes if i in on)
            n_any = sum(1 for i in inodes if i in anywhere)
            if not (n_on or n_any):
                continue
            found = read_process(root, pid)
            if found is not None:
                procs[pid] = replace(found, sockets=n_on, wildcard=n_any)
    return Reading(time.monotonic(), procs, addrs, unsearched)


def clock_ticks() -> int:
    return os.sysconf("SC_CLK_TCK")


def window(
    before: Reading | None,
    after: Reading,
    *,
    local_cpus: frozenset[int] | None,
    caller_uid: int | None = None,
    hz: int | None = None,
) -> tuple[NicProcess, ...]:
    """The NIC's processes of `after`, with CPU use per CPU since `before` (None: a single
    reading, no CPU use yet). A thread's utime+stime delta is put on the CPU it was last seen
    on (proc(5) gives no per-CPU split; a thread that moved mid-window is counted where it
    ended). A process whose PID was reused between the readings starts afresh.

    Sorted by CPU use, then by sockets: the process that moves most of the NIC's bytes
    usually burns the most CPU."""
    uid = os.geteuid() if caller_uid is None else caller_uid
    seconds = (after.at - before.at) if before is not None else 0.0
    per_tick = 100.0 / ((hz or clock_ticks()) * seconds) if seconds > 0 else 0.0
    out: list[NicProcess] = []
    for pid, now in after.procs.items():
        then = before.procs.get(pid) if before is not None else None
        if then is not None and then.ident.start_ticks != now.ident.start_ticks:
            then = None  # another process on the same PID
        old = {t.tid: t.ticks for t in then.threads} if then is not None else {}
        by_cpu: dict[int, float] = {}
        if then is not None and per_tick:
            for t in now.threads:
                delta = t.ticks - old.get(t.tid, t.ticks)
                if delta > 0:
                    by_cpu[t.last_cpu] = by_cpu.get(t.last_cpu, 0.0) + delta * per_tick
        ran_on = frozenset(t.last_cpu for t in now.threads)
        on_node = None if local_cpus is None or not ran_on else ran_on <= local_cpus
        out.append(
            NicProcess(
                ident=now.ident,
                cmdline=now.cmdline,
                allowed=now.allowed,
                threads=now.threads,
                cpu_by_cpu=by_cpu,
                sockets=now.sockets,
                kernel_thread=now.kernel_thread,
                on_nic_node=on_node,
                owner_is_caller=now.ident.uid == uid,
                wildcard=now.wildcard,
                unit=now.unit,
                unit_user=now.unit_user,
                ran_on=ran_on,
            )
        )
    out.sort(key=lambda p: (-p.cpu_total, -p.sockets, p.ident.pid))
    return tuple(out)


def nic_processes(
    root: HostRoot, ifname: str, *, local_cpus: frozenset[int] | None, wildcard: bool = True
) -> tuple[NicProcess, ...]:
    """One reading, no window: who uses the NIC and where they may run (for `show`, a
    profile's apply, the advisor's single look)."""
    return window(None, read_nic_processes(root, ifname, wildcard=wildcard), local_cpus=local_cpus)


__all__ = [
    "FD_BUDGET",
    "PF_KTHREAD",
    "IPAddress",
    "ProcReading",
    "Reading",
    "StatFields",
    "interface_addresses",
    "is_kernel_thread",
    "nic_processes",
    "nic_socket_inodes",
    "parse_socket_table",
    "parse_stat",
    "read_cmdline",
    "read_ident",
    "read_nic_processes",
    "read_process",
    "read_thread",
    "scan_sockets",
    "socket_inodes_of",
    "systemd_unit",
    "thread_ids",
    "unit_of",
    "window",
]
