"""Rules about where the application runs beside its NIC: `app-remote-node` (the NIC's busiest
process on another NUMA node) and `app-on-irq-cpu` (on, or off, the CPU the NIC's receive
work lands on: two schools, the benchmark decides).

Which process: the busiest of the NIC's processes over the window (CPU time, from
/proc/PID/task/*/stat: /proc has no per-process byte counts, and the process that burns CPU
beside a busy NIC is the one moving its bytes), else the one with most sockets on it. Rules
get the processes in `Facts.processes`; None (not read) gives no finding and no note.
"""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise import thresholds as t
from tuitune.core.advise.facts import Facts, Outcome, cpus, pct
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.advise.window import NEEDS_LOAD
from tuitune.core.procs.model import NicProcess
from tuitune.core.session.settings import Key, cpus_value

_NASA_PAIR = SourceRef(
    "nasa-40g",
    "40 GbE, one nuttcp stream: the application and the NIC's IRQ both on CPU 0 gave "
    "18.5-19.5 Gb/s with no loss; the application on CPUs 2, 6 or 13 (IRQ still on 0) gave "
    "7.1-17.4 Gb/s and 15,149-44,891 lost packets in 30 s (Table 4)",
)
_REDHAT_NEAR = SourceRef(
    "redhat-10g",
    "10 GbE: after moving the IRQs, pin the application near them, on the same socket, and "
    "measure again; know which cores share a socket (/proc/cpuinfo)",
)
_ESNET_STREAMS = SourceRef(
    "esnet-100g",
    "48.6 ms: one core per 10G interface for its queues, and each nuttcp stream pinned to a "
    "core of its own (-xc2/2, 3/3, ...): 97.9 Gb/s over 10 streams",
)


def _busiest(f: Facts) -> NicProcess | None:
    procs = [p for p in f.processes or () if not p.kernel_thread]
    if not procs:
        return None
    return max(procs, key=lambda p: (p.cpu_total, p.sockets, -p.ident.pid))


def _who(p: NicProcess) -> str:
    return f"{p.shown_name} (pid {p.ident.pid})"


def _key(p: NicProcess) -> Key:
    return Key.proc_affinity(p.ident.pid, p.ident.start_ticks, comm=p.ident.comm)


def _where(p: NicProcess) -> frozenset[int]:
    """Where its threads ran; its allowed CPUs when that is not known."""
    return p.ran_on or p.allowed


def app_remote_node(f: Facts) -> Iterator[Outcome]:
    rule = "app-remote-node"
    if f.processes is None:
        return
    p = _busiest(f)
    if p is None:
        yield Note(rule, f"no process has a socket on {f.ifname}'s addresses")
        return
    nodes = f.host.topology.nodes
    node = f.nic.placement.numa_node if f.nic is not None else None
    if node is None or node not in nodes or len(nodes) < 2:
        yield Note(rule, "the NIC has no NUMA node, or the host has one node: nothing to judge")
        return
    local, ran = nodes[node], _where(p)
    if not ran or ran & local:
        return
    others = sorted({n for n, cs in nodes.items() if cs & ran})
    yield Finding(
        id=rule,
        severity="risk",
        title=f"{_who(p)} runs on node {', '.join(map(str, others))}, {f.ifname} on node {node}",
        evidence=(
            f"{_who(p)}: {p.sockets + p.wildcard} socket(s) on {f.ifname}, "
            f"{pct(p.cpu_total)} of a CPU over the window (/proc/PID/task/*/stat)",
            f"its threads last ran on cpus {cpus(ran)}; allowed cpus {cpus(p.allowed)}",
            f"{f.ifname} is on NUMA node {node} (cpus {cpus(local)}; sysfs numa_node)",
        ),
        change=(Change(_key(p), cpus_value(local)),),
        sources=(_REDHAT_NEAR, _NASA_PAIR),
        context="any",
    )


def _rx_cpus(f: Facts) -> dict[int, float]:
    """Where the NIC's receive work landed over the window: its queue IRQs per CPU, else NET_RX
    softirqs (a device without IRQs: veth)."""
    total = f.window.total
    if total is None:
        return {}
    per_cpu: dict[int, float] = {}
    for q in f.queue_irqs():
        r = total.irqs.get(q.irq)
        for cpu, v in (r.per_cpu if r else {}).items():
            per_cpu[cpu] = per_cpu.get(cpu, 0.0) + v
    if sum(per_cpu.values()) <= 0:
        per_cpu = {c: r.net_rx for c, r in total.cpus.items() if r.net_rx > 0}
    return per_cpu


def app_on_irq_cpu(f: Facts) -> Iterator[Outcome]:
    rule = "app-on-irq-cpu"
    if f.processes is None:
        return
    if not f.window.loaded:
        yield Note(rule, NEEDS_LOAD)
        return
    p = _busiest(f)
    if p is None or p.cpu_total < t.APP_CPU_PCT:
        yield Note(rule, f"no process with a socket on {f.ifname} used the CPU in the window")
        return
    rx = _rx_cpus(f)
    if not rx:
        return
    hot = max(rx, key=lambda c: rx[c])
    share = rx[hot] / sum(rx.values())
    ran, local = _where(p), f.local_cpus()
    both = (
        "NASA (LAN, 40 GbE, one stream) found the application on the IRQ's own CPU best; the "
        "usual advice today is the same node but another core, so that the two do not fight "
        "for one core. Try both with B and keep the faster"
    )
    evidence = [
        f"{share * 100:.0f} % of {f.ifname}'s receive work lands on cpu{hot} "
        "(/proc/interrupts, or NET_RX in /proc/softirqs)",
        f"{_who(p)}: {pct(p.cpu_total)} of a CPU over the window, its threads last on "
        f"cpus {cpus(ran)} (allowed {cpus(p.allowed)})",
    ]
    if ran == {hot}:
        room = sorted(local - {hot})
        if not room:
            return
        yield Finding(
            id=rule,
            severity="hint",
            title=f"{_who(p)} shares cpu{hot} with {f.ifname}'s receive work: {both}",
            evidence=tuple(evidence),
            change=(Change(_key(p), cpus_value(frozenset(room))),),
            sources=(_NASA_PAIR, _REDHAT_NEAR, _ESNET_STREAMS),
            context="any",
        )
        return
    if hot in ran or not ran <= local:
        return  # spread over it and more, or off the node (app-remote-node's case)
    yield Finding(
        id=rule,
        severity="hint",
        title=f"{_who(p)} runs beside cpu{hot}, where {f.ifname}'s receive work lands: {both}",
        evidence=tuple(evidence),
        change=(Change(_key(p), str(hot)),),
        sources=(_NASA_PAIR, _REDHAT_NEAR, _ESNET_STREAMS),
        context="lan",
    )
