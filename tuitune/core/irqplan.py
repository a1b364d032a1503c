"""Where a NIC's queue IRQs should go: plans over the host's topology, for the live screen's
spread key, headless commands and the advisor alike."""

from __future__ import annotations

from tuitune.core.host.irqmap import NicIrq
from tuitune.core.watch.snapshot import HostState, NicState


def spread_plan(nic: NicState, host: HostState) -> list[tuple[NicIrq, int]]:
    """One queue IRQ per physical core, over the NIC-local CPUs (all online CPUs when the
    device has no NUMA locality), like the vendors' `set_irq_affinity local`: SMT siblings
    come last, so two queues share a core only when there are more queues than cores."""
    topo = host.topology
    local = nic.placement.local_cpus or topo.online
    order = [c for c in topo.cpus if c.cpu in local and c.cpu in topo.online]
    first: list[int] = []
    rest: list[int] = []
    seen: set[tuple[object, object]] = set()
    for c in order:
        core: tuple[object, object] = (c.package, c.core) if c.core is not None else ("cpu", c.cpu)
        (rest if core in seen else first).append(c.cpu)
        seen.add(core)
    cpus = first + rest or sorted(topo.online)
    queues = [q for q in nic.irqs if q.kind != "misc"]
    return [(q, cpus[i % len(cpus)]) for i, q in enumerate(queues)] if cpus else []
