"""A profile's `[processes]` table: CPU affinity for the processes running at apply time,
named by command (docs/processes.md).

    [processes]
    nuttcp = "node-local"        # the CPUs of the NIC's NUMA node
    iperf3 = "irq:eth2-TxRx-0"   # the CPUs of that queue's IRQ (NASA's pairing)
    mover  = "nic-local"         # the device's own local_cpulist
    db     = "2-5"               # a CPU list

A name matches a process whose name (comm, which the kernel cuts at 15 bytes) or whose argv[0]
file name is it, in the host's network namespace (for `--netns`, the namespace's processes);
kernel threads never. A process is not a lasting thing: its affinity does not survive its
restart, and a profile applied again reaches the processes running then.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from tuitune.core.host.cpus import read_topology
from tuitune.core.host.netdev import read_placement
from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover
from tuitune.core.procs.model import printable
from tuitune.core.session.access import HostAccess
from tuitune.core.session.profile_model import ProfileError, Request, is_text, plain, shown
from tuitune.core.session.settings import Key, cpus_value

COMM_MAX = 15  # TASK_COMM_LEN - 1
NAME_MAX = 255
SPECIALS = ("node-local", "nic-local")
IRQ_PREFIX = "irq:"


def parse_processes(table: Mapping[str, Any]) -> list[Request]:
    """The requests of `[processes]`: name -> affinity text, both checked for shape here."""
    out = []
    for name, value in table.items():
        origin = f"[processes] {plain(name)}"
        if not (0 < len(name) <= NAME_MAX and name.isprintable() and "/" not in name):
            raise ProfileError(f"{origin}: not a command name (printable, no '/')")
        if not isinstance(value, str) or not is_text(value, 4096) or not value.strip():
            raise ProfileError(
                f'{origin}: {shown(value)} is not an affinity ("node-local", "nic-local", '
                '"irq:QUEUE" or a CPU list such as "0-3")'
            )
        out.append(Request("proc_affinity", name, value.strip(), origin))
    return out


def _netns_inode(path: str) -> int | None:
    try:
        return os.stat(path).st_ino
    except OSError:
        return None


def _argv0(root: HostRoot, pid: int) -> str:
    argv = discover.read_cmdline(root, pid)
    return argv[0] if argv else ""


def _matching(access: HostAccess, name: str) -> list[tuple[Key, str]]:
    """(process key, shown name) of every process called `name` in the host's namespace.
    Runs on the kernel thread, which is inside that namespace."""
    root = access.root
    mine = _netns_inode("/proc/thread-self/ns/net") if root.live else None
    found = []
    for pid in discover.pids(root):
        ident = discover.read_ident(root, pid)
        if ident is None:
            continue
        if ident.comm != name[:COMM_MAX] and os.path.basename(_argv0(root, pid)) != name:
            continue
        reading = discover.read_process(root, pid)
        if reading is None or reading.kernel_thread or reading.ident != ident:
            continue
        if mine is not None and _netns_inode(f"/proc/{pid}/ns/net") != mine:
            continue
        key = Key.proc_affinity(pid, ident.start_ticks, comm=ident.comm)
        found.append((key, f"{printable(ident.comm)} (pid {pid})"))
    return found


def _cpus(
    access: HostAccess, r: Request, ifname: str | None, wanted: Mapping[Key, str]
) -> str | None:
    """The CPU list text an affinity stands for on this host; raises ValueError (one line)."""
    text = r.text
    if text not in SPECIALS and not text.startswith(IRQ_PREFIX):
        return text  # a CPU list: its own validation checks it
    if ifname is None:
        raise ValueError(f"{r.origin}: {text!r} needs an interface (tuitune apply FILE IFACE)")
    if text.startswith(IRQ_PREFIX):
        queue = text[len(IRQ_PREFIX) :]
        irq = access.irq_key(ifname, queue)
        if irq is None:
            raise ValueError(f"{r.origin}: no IRQ named {queue!r} serves {ifname} on this host")
        if irq in wanted:  # the profile moves that IRQ too: pair with where it will be
            return wanted[irq]
        now = access.read(irq)
        if not isinstance(now, str):
            raise ValueError(f"{r.origin}: {now}")
        return now
    placement = access.run(read_placement, access.root, ifname)
    if text == "nic-local":
        cpus = placement.local_cpus
    else:
        node = placement.numa_node
        nodes = access.run(read_topology, access.root).nodes
        cpus = nodes.get(node) if node is not None else None
    if not cpus:
        raise ValueError(
            f"{r.origin}: {ifname} has no {'NUMA node' if text == 'node-local' else 'local CPUs'}"
            " (a virtual device?): name the CPUs instead"
        )
    return cpus_value(cpus)


def resolve_processes(
    access: HostAccess,
    requests: list[Request],
    ifname: str | None,
    wanted: Mapping[Key, str],
    errors: list[str],
    skipped: list[str] | None,
) -> dict[Key, str]:
    """Process keys and CPU list texts for the processes running now. A name no process has is
    a `skipped` line (an error without `skipped`); a bad affinity is an error."""
    out: dict[Key, str] = {}
    for r in requests:
        try:
            text = _cpus(access, r, ifname, wanted)
        except ValueError as exc:
            errors.append(str(exc))
            continue
        found = access.run(_matching, access, r.name)
        if not found:
            (errors if skipped is None else skipped).append(
                f"{r.origin}: no process of that name runs here now"
            )
        for key, _ in found:
            if text is not None:
                out[key] = text
    return out


__all__ = ["parse_processes", "resolve_processes"]
