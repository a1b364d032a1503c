"""Where the application ran against where the NIC's receive work landed, named for the
runs table: "iperf3 server" -> "on cpu 0 with its IRQ".

NASA's Table 4 (40G LAN, one stream) is a grid of such placements: the application on the
CPU of the NIC's IRQs, or on another one. A run records its placement as one more setting, so
the table's "changed" column says "iperf3 server on cpu 0 with its NET_RX" beside the numbers,
and two runs that differ only by where the server sat are told apart.

Where the receive work lands: the CPUs the NIC's queue IRQs are delivered to (effective
affinity), or for a NIC without IRQs of its own (a veth, the lab) the CPU of the client
pinned with -A: a veth's packets are received on the CPU that sent them, in the NET_RX
softirq of that CPU's backlog.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from tuitune.core.bench.model import BenchSpec
from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.watch.snapshot import NicState

SERVER_NAME = "iperf3 server"  # the lab's server in the runs table
CLIENT_NAME = "iperf3 client"  # the client every run starts, lab or not


def rx_cpus(nic: NicState | None, spec: BenchSpec) -> tuple[frozenset[int], str]:
    """(CPUs, "IRQ" or "NET_RX"): where the NIC's receive work lands; empty when unknown."""
    if nic is not None and nic.irqs:
        cpus: set[int] = set()
        for q in nic.irqs:
            aff = nic.irq_affinity.get(q.irq)
            if aff is None:
                continue
            for got in (aff.effective, aff.smp_affinity):  # effective first: where it lands
                if isinstance(got, frozenset) and got:
                    cpus |= got
                    break
        return frozenset(cpus), "IRQ"
    # No IRQs (a veth): what the peer receives is received on the sending client's CPU. The
    # host's per-CPU counters cannot say it instead: a busy backlog runs one NET_RX for many
    # packets while each ACK back raises its own, and other work on the host moves %soft.
    if spec.client_cpu is not None and spec.direction == "normal":
        return frozenset({spec.client_cpu}), "NET_RX"
    return frozenset(), "NET_RX"


def describe(allowed: frozenset[int], online: frozenset[int], rx: frozenset[int], what: str) -> str:
    """ "on cpu 0 with its IRQ", "on cpu 1, away from its NET_RX (cpu 0)", "on any cpu".

    A process allowed on every online CPU is not placed at all: saying where the scheduler
    happened to put it would make two identical runs look different in the table."""
    if not allowed or (online and allowed >= online):
        return "on any cpu (not pinned)"
    cpus = format_cpulist(allowed)
    if not rx:
        return f"on cpu {cpus}"
    if allowed <= rx:
        return f"on cpu {cpus} with its {what}"
    if allowed & rx:
        return f"on cpu {cpus}, its {what} on cpu {format_cpulist(rx)}"
    return f"on cpu {cpus}, away from its {what} (cpu {format_cpulist(rx)})"


def affinity_of(pid: int) -> frozenset[int] | None:
    """The CPUs `pid` may run on; None once it has exited (or was never there)."""
    try:
        return frozenset(os.sched_getaffinity(pid))
    except (ProcessLookupError, PermissionError, OSError):
        return None


def placement_settings(
    procs: Iterable[tuple[str, frozenset[int] | None]],
    nic: NicState | None,
    spec: BenchSpec,
    online: frozenset[int],
) -> dict[str, str]:
    """{"iperf3 server": "on cpu 0 with its IRQ"} for each (name, allowed CPUs) still known."""
    rx, what = rx_cpus(nic, spec)
    return {
        name: describe(allowed, online, rx, what) for name, allowed in procs if allowed is not None
    }


def lab_server(lab: object) -> tuple[str, frozenset[int] | None]:
    """The lab's iperf3 server and its allowed CPUs (None: it is not running, or its pid now
    belongs to another process)."""
    from tuitune.core.lab import Lab, server_running

    if not isinstance(lab, Lab) or lab.server_pid is None or not server_running(lab):
        return SERVER_NAME, None
    return SERVER_NAME, affinity_of(lab.server_pid)


def online_cpus() -> frozenset[int]:
    """This machine's online CPUs (the lab and its server always run here); empty if unread."""
    try:
        with open("/sys/devices/system/cpu/online", encoding="ascii") as f:
            return frozenset(parse_cpulist(f.read()))
    except (OSError, CpuListError, ValueError):
        return frozenset()


def lab_placement(lab: object, nic: NicState | None, spec: BenchSpec) -> dict[str, str]:
    """The lab server's placement as settings of a run, {} without a lab or a server."""
    if lab is None:
        return {}
    name, allowed = lab_server(lab)
    if spec.server_cpu is not None and allowed is not None:
        allowed = frozenset({spec.server_cpu})  # -A N,M: iperf3 pins its server for the test
    return placement_settings([(name, allowed)], nic, spec, online_cpus())


def node_part(allowed: frozenset[int], nic: NicState | None) -> str:
    """ ", on the NIC's node 0" / ", off the NIC's node 0": only when the NIC has a node and
    the process is pinned (an unpinned one is on every node)."""
    place = nic.placement if nic is not None else None
    if place is None or place.numa_node is None or not place.local_cpus or not allowed:
        return ""
    if allowed <= place.local_cpus:
        return f", on the NIC's node {place.numa_node}"
    if not allowed & place.local_cpus:
        return f", off the NIC's node {place.numa_node}"
    return f", partly on the NIC's node {place.numa_node}"


def client_placement(
    nic: NicState | None,
    spec: BenchSpec,
    online: frozenset[int],
    inherited: frozenset[int] | None = None,
) -> dict[str, str]:
    """{"iperf3 client": "on cpu 1, away from its IRQ (cpu 0), off the NIC's node 0"}.

    Where the client may run: the CPU of -A N (iperf3 pins itself), else the affinity it
    inherits from tuitune (`inherited`; None: this process's own)."""
    if spec.processes and spec.stream_cpus:  # each stream process on its own CPU
        allowed = frozenset(spec.stream_cpus)
    elif spec.client_cpu is not None:
        allowed = frozenset({spec.client_cpu})
    else:
        allowed = inherited if inherited is not None else affinity_of(0) or frozenset()
    rx, what = rx_cpus(nic, spec)
    text = describe(allowed, online, rx, what)
    if not text.startswith("on any cpu"):
        text += node_part(allowed, nic)
    # The first runs named only iperf3's; another engine's client is named as itself.
    return {CLIENT_NAME if spec.engine == "iperf3" else f"{spec.engine} client": text}


def run_placement(lab: object, nic: NicState | None, spec: BenchSpec) -> dict[str, str]:
    """Every placement a run records: the client's, and the lab's server when there is one."""
    server = lab_placement(lab, nic, spec) if spec.engine == "iperf3" else {}  # its daemon's
    return client_placement(nic, spec, online_cpus()) | server


def placement_line(placed: dict[str, str]) -> str:
    """ "iperf3 client on cpu 1 with its NET_RX; iperf3 server on any cpu (not pinned)"."""
    return "; ".join(f"{name} {where}" for name, where in sorted(placed.items()))


def pick_stream_cpus(nic: NicState | None, online: frozenset[int], n: int) -> tuple[int, ...]:
    """A CPU for each of n streams, beside the NIC's queues: the CPUs of the NIC's NUMA node
    (all online ones when it has none, as a veth), those not taking its queue IRQs first, so a
    stream's process does not share a core with the softirq work of its own packets; cycled
    when there are fewer CPUs than streams. ESnet pinned each stream to its own NIC-local core
    (`nuttcp -xc`); this is that rule, not a measured optimum."""
    place = nic.placement if nic is not None else None
    local = place.local_cpus if place is not None and place.local_cpus else frozenset()
    pool = sorted((local & online) or online)
    if not pool or n <= 0:
        return ()
    rx = set(rx_cpus(nic, BenchSpec("-"))[0])
    ordered = [c for c in pool if c not in rx] + [c for c in pool if c in rx]
    return tuple(ordered[i % len(ordered)] for i in range(n))
