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
import ipaddress
import os
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from tuitune.core.cpulist import CpuListError, parse_cpulist
from tuitune.core.host.root import HostRoot, open_in_tree
from tuitune.core.procs.model import NicProcess, ProcIdent, ThreadRun

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

PF_KTHREAD = 0x00200000  # include/linux/sched.h: the task is a kernel thread
KTHREADD_PID = 2  # every kernel thread's parent
_CMDLINE_MAX = 1 << 16  # argv beyond this is elided: ARG_MAX is larger, no view needs it
_STAT_MAX = 4096
_STATUS_MAX = 1 << 16
_TABLES = ("tcp", "tcp6", "udp", "udp6")
_TCP_LISTEN = "0A"
# systemd unit names (systemd.unit(5)): ASCII letters, digits, ":-_.\" and one "@".
_UNIT = re.compile(r"^[A-Za-z0-9:_.\\@-]{1,255}\.(service|scope)$")


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


_USER_MANAGER = re.compile(r"^user@([0-9]{1,10})\.service$")


def unit_of(cgroup: bytes) -> tuple[str, int | None] | None:
    """The systemd unit of a process from /proc/PID/cgroup (its v2 path,
    "0::/system.slice/nginx.service"), and whose manager owns it: None for systemd's system
    manager, a uid for that user's manager (user@UID.service). None outside any unit.

    A unit is the first cgroup below the slices: what lies under a unit's cgroup is that
    unit's own, and may be delegated (user@UID.service always is, a container's scope may be),
    so its owner can name a cgroup there "sshd.service". Such names are never taken for units
    of the system manager; inside user@UID.service the user's manager's unit is found the same
    way, and called theirs."""
    for line in cgroup.decode("utf-8", "replace").splitlines():
        hier, _, path = line.partition(":")
        if hier != "0":
            continue
        _, _, path = path.partition(":")
        owner: int | None = None
        for part in path.split("/"):
            if not part or part.endswith(".slice"):
                continue
            user = _USER_MANAGER.match(part)
            if user is not None and owner is None:
                owner = int(user.group(1))
                continue
            return (part, owner) if _UNIT.match(part) else None
    return None


def systemd_unit(cgroup: bytes) -> str | None:
    """The unit's name from `unit_of` (whichever manager owns it)."""
    found = unit_of(cgroup)
    return found[0] if found is not None else None


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


# Descriptors read (readlink) in one scan of every process. Another user can hold ~20k per
# process in as many processes as they like: reading them all made `show` 12-19 times slower
# (25 x 20k on a loaded 2-CPU VM, where one readlink cost ~16 us). Processes are searched
# fewest descriptors first, so servers of ordinary size are found and a hog is what is left
# unsearched, and said so; 16k readlinks cost a quarter of a second there.
FD_BUDGET = 16384


def _open_fd_dir(root: HostRoot, pid: int) -> int | None:
    path = root.proc / f"{pid}/fd"
    try:
        return open_in_tree(path, os.O_RDONLY | os.O_DIRECTORY, root.jail, str(path))
    except OSError:
        return None


def _fd_count(dfd: int) -> int | None:
    """How many descriptors the process holds, from the size of its /proc/PID/fd (Linux 6.2
    and later: one stat, no listing); None where the kernel says 0 (older kernels, a tree)."""
    with contextlib.suppress(OSError):
        size = os.fstat(dfd).st_size
        if size > 0:
            return size
    return None


def _socket_inodes(dfd: int, budget: int) -> tuple[list[int], int, bool]:
    """The socket inodes among the first `budget` descriptors of an open /proc/PID/fd, how
    many were read, and whether all of them were."""
    out: list[int] = []
    read = 0
    with os.scandir(dfd) as entries:
        for entry in entries:
            if read >= budget:
                return out, read, False
            read += 1
            with contextlib.suppress(OSError):
                target = os.readlink(entry.name, dir_fd=dfd)  # the link's text; not followed
                if target.startswith("socket:[") and target.endswith("]"):
                    inode = target[8:-1]
                    if inode.isascii() and inode.isdigit():
                        out.append(int(inode))
    return out, read, True


def socket_inodes_of(root: HostRoot, pid: int, budget: int = FD_BUDGET) -> list[int]:
    """The inodes of the sockets `pid` holds open (its /proc/PID/fd links "socket:[N]"), of
    its first `budget` descriptors."""
    dfd = _open_fd_dir(root, pid)
    if dfd is None:
        return []
    try:
        return _socket_inodes(dfd, budget)[0]
    except OSError:
        return []
    finally:
        os.close(dfd)


def scan_sockets(
    root: HostRoot, pids_: Iterable[int], budget: int | None = None
) -> tuple[dict[int, list[int]], tuple[int, int]]:
    """Each process's socket inodes, reading at most `budget` descriptors in all: processes
    with fewest descriptors first (counted without reading them where the kernel can), so a
    few processes holding huge numbers cannot make the scan slow. Also (processes, their
    descriptors) left unsearched past the budget."""
    counted: list[tuple[int, int, int | None]] = []  # (order, pid, count)
    for pid in pids_:
        dfd = _open_fd_dir(root, pid)
        if dfd is None:
            continue
        try:
            n = _fd_count(dfd)
        finally:
            os.close(dfd)
        counted.append((n if n is not None else 0, pid, n))
    counted.sort()
    found: dict[int, list[int]] = {}
    left = FD_BUDGET if budget is None else budget
    skipped, skipped_fds = 0, 0
    for _, pid, n in counted:
        if left <= 0 or (n is not None and n > left):
            skipped += 1
            skipped_fds += n or 0
            continue
        dfd = _open_fd_dir(root, pid)
        if dfd is None:
            continue
        try:
            inodes, read, whole = _socket_inodes(dfd, left)
        except OSError:
            continue
        finally:
            os.close(dfd)
        left -= read
        if not whole:
            skipped += 1
            skipped_fds += (n or read) - read
        found[pid] = inodes
    return found, (skipped, skipped_fds)


# ---- addresses and socket tables ------------------------------------------------------------
def _hex_v4(word: str) -> ipaddress.IPv4Address:
    # The kernel prints the address's 32 bits as a host-order integer (little-endian here).
    return ipaddress.IPv4Address(bytes.fromhex(word)[::-1])


def _hex_v6(text: str) -> IPAddress:
    raw = b"".join(bytes.fromhex(text[i : i + 8])[::-1] for i in range(0, 32, 8))
    addr = ipaddress.IPv6Address(raw)
    return addr.ipv4_mapped or addr  # a dual-stack socket's IPv4 peer


def parse_socket_table(text: str, v6: bool) -> list[tuple[IPAddress, str, int]]:
    """(local address, state, inode) of each socket in /proc/net/tcp{,6} or udp{,6}."""
    out: list[tuple[IPAddress, str, int]] = []
    for line in text.splitlines()[1:]:
        cols = line.split()
        if len(cols) < 10:
            continue
        addr, _, _port = cols[1].partition(":")
        try:
            local = _hex_v6(addr) if v6 else _hex_v4(addr)
            inode = int(cols[9])
        except ValueError:
            continue
        if inode:
            out.append((local, cols[3], inode))
    return out


def _v4_addresses(root: HostRoot, ifname: str) -> set[IPAddress]:
    """A tree's IPv4 addresses of `ifname`: the LOCAL host entries of /proc/net/fib_trie that
    lie in one of the interface's routes (/proc/net/route)."""
    try:
        trie, routes = root.read_net("fib_trie"), root.read_net("route")
    except OSError:
        return set()
    local: set[ipaddress.IPv4Address] = set()
    last: str | None = None
    for line in trie.splitlines():
        word = line.strip()
        if word.startswith("|--"):
            last = word[3:].strip()
        elif last and word.startswith("/32 host LOCAL"):
            with contextlib.suppress(ValueError):
                local.add(ipaddress.IPv4Address(last))
    nets: list[ipaddress.IPv4Network] = []
    for line in routes.splitlines()[1:]:
        cols = line.split()
        if len(cols) >= 8 and cols[0] == ifname:
            with contextlib.suppress(ValueError):
                dest, mask = _hex_v4(cols[1]), _hex_v4(cols[7])
                if int(mask):
                    nets.append(ipaddress.IPv4Network(f"{dest}/{mask}", strict=False))
    return {a for a in local if any(a in n for n in nets)}


def _v6_addresses(root: HostRoot, ifname: str) -> set[IPAddress]:
    try:
        text = root.read_net("if_inet6")
    except OSError:
        return set()
    out: set[IPAddress] = set()
    for line in text.splitlines():
        cols = line.split()
        if len(cols) == 6 and cols[5] == ifname and len(cols[0]) == 32:
            with contextlib.suppress(ValueError):
                out.add(ipaddress.IPv6Address(bytes.fromhex(cols[0])))
    return out


def interface_addresses(root: HostRoot, ifname: str) -> frozenset[IPAddress]:
    """The IPv4 and IPv6 addresses of `ifname`, as seen from the calling thread's namespace
    (run on the host's kernel thread)."""
    if root.live:
        with contextlib.suppress(Exception):  # psutil may fail oddly on a strange host
            import psutil

            found: set[IPAddress] = set()
            for snic in psutil.net_if_addrs().get(ifname, []):
                with contextlib.suppress(ValueError):
                    found.add(ipaddress.ip_address(snic.address.partition("%")[0]))
            return frozenset(found)
    return frozenset(_v4_addresses(root, ifname) | _v6_addresses(root, ifname))


def nic_socket_inodes(
    root: HostRoot, addresses: Iterable[IPAddress]
) -> tuple[frozenset[int], frozenset[int]]:
    """(inodes of sockets bound to one of `addresses`, inodes of sockets bound to any address:
    a TCP listener or a UDP socket on 0.0.0.0 or ::)."""
    wanted = set(addresses)
    on: set[int] = set()
    anywhere: set[int] = set()
    for table in _TABLES:
        try:
            text = root.read_net(table)
        except OSError:
            continue
        for local, state, inode in parse_socket_table(text, table.endswith("6")):
            if local in wanted:
                on.add(inode)
            elif local.is_unspecified and (table.startswith("udp") or state == _TCP_LISTEN):
                anywhere.add(inode)
    return frozenset(on), frozenset(anywhere)


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
