"""The CPU latency request in force (PM QoS): the global one from /dev/cpu_dma_latency and each
CPU's own resume latency, and which C-states they keep the CPUs out of.

Reading the device is safe: opening it adds a request at the default value, which is the
"no constraint" value (PM_QOS_CPU_LATENCY_DEFAULT_VALUE), and the kernel keeps the smallest
request, so nothing in force changes; the close removes it (kernel/power/qos.c,
cpu_latency_qos_open/read/release; DPDK's rte_power_qos reads it the same way). Only root may
open it (mode 0600).
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import struct

from tuitune.core.host.root import HostRoot, open_in_tree, read_value
from tuitune.core.values import Unavailable, from_oserror

DMA_LATENCY = "/dev/cpu_dma_latency"
# PM_QOS_CPU_LATENCY_DEFAULT_VALUE (2000 * USEC_PER_SEC): what the device reads with no request.
NO_REQUEST = 2_000_000_000
NOT_IN_TREE = "not recorded in a host tree (read from /dev/cpu_dma_latency on a live host)"

LatencyRequest = int | None | Unavailable  # microseconds; None: no request in force
# Descriptors read (readlink) in one search for the request's holders: another user decides how
# many their processes hold (procs/sockets.py's FD_BUDGET, for the same reason and cost).
HOLDER_BUDGET = 16384
Holders = tuple[tuple[int, str], ...]  # (pid, comm as read: another user's text)


def parse_request(data: bytes) -> LatencyRequest:
    """The device's answer: one native s32, microseconds."""
    if len(data) != 4:
        return Unavailable("error", f"{DMA_LATENCY}: {len(data)} bytes, not a 32-bit value")
    (value,) = struct.unpack("=i", data)
    if value < 0:
        return Unavailable("error", f"{DMA_LATENCY}: {value}, not a latency")
    return None if value >= NO_REQUEST else int(value)


def read_request(live: bool, path: str = DMA_LATENCY) -> LatencyRequest:
    """The global CPU latency request in force; a state in a recorded tree, for a plain user,
    or where the file is not the kernel's character device (O_NOFOLLOW, O_NONBLOCK: a link or
    a FIFO planted there is refused, never followed or waited on)."""
    if not live:
        return Unavailable("missing", NOT_IN_TREE)
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return Unavailable("unsupported", f"no {path} (a kernel without PM QoS)")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return Unavailable("permission", f"root reads {path}")
        return from_oserror(exc, path)
    try:
        st = os.fstat(fd)
        if not stat.S_ISCHR(st.st_mode) or st.st_uid != 0:
            return Unavailable("error", f"{path} is not the kernel's device: not read")
        return parse_request(os.read(fd, 8))
    except OSError as exc:
        return from_oserror(exc, path)
    finally:
        os.close(fd)


def resume_limit(text: str) -> int | None:
    """A CPU's pm_qos_resume_latency_us as a limit in us: "0" is no limit, "n/a" the strictest
    (drivers/base/power/sysfs.c swaps the two on show and store), None when unreadable."""
    if text == "n/a":
        return 0
    if text.isascii() and text.isdigit():
        value = int(text)
        return value if value > 0 else None
    return None


def limit_for(
    cpu: int,
    request: LatencyRequest,
    resume: tuple[tuple[frozenset[int], str], ...],
) -> int | None:
    """The exit latency limit the idle governor applies on `cpu`: the smaller of the global
    request and the CPU's own (cpuidle_governor_latency_req); None: no limit."""
    limits = [request] if isinstance(request, int) else []
    for cpus, text in resume:
        if cpu in cpus and (own := resume_limit(text)) is not None:
            limits.append(own)
    return min(limits) if limits else None


def holders(root: HostRoot, budget: int = HOLDER_BUDGET) -> tuple[Holders, bool]:
    """The processes holding the device open (each /proc/PID/fd link's text, never followed),
    and whether every descriptor was read (False: the budget ran out first). Looked for only
    when a request is in force, so an idle host pays nothing."""
    try:
        pids = sorted(int(n) for n in root.listdir(root.proc_path("")) if n.isdigit())
    except OSError:
        return (), False
    found: list[tuple[int, str]] = []
    left = budget
    for pid in pids:
        path = root.proc_path(f"{pid}/fd")
        try:
            dfd = open_in_tree(path, os.O_RDONLY | os.O_DIRECTORY, root.jail, str(path))
        except OSError:
            continue  # gone, or not ours to read
        try:
            with os.scandir(dfd) as entries:
                for entry in entries:
                    if left <= 0:
                        return tuple(found), False
                    left -= 1
                    with contextlib.suppress(OSError):
                        if os.readlink(entry.name, dir_fd=dfd) == DMA_LATENCY:
                            comm = read_value(root, root.proc_path(f"{pid}/comm"), "comm")
                            found.append((pid, comm if isinstance(comm, str) else "?"))
                            break
        except OSError:
            pass
        finally:
            os.close(dfd)
    return tuple(found), True
