"""A throughput profile's IRQ placement scaled to the host: the NIC's queue IRQs onto its
NIC-local cores, one per physical core (`irqplan.spread_plan`, as the live screen's spread).

The reports place the receive work on the NIC's own socket: NASA's affinity table (LAN: IRQs
and the application on CPU 0, the CPU beside the NIC, 18500-19500 Mb/s against 7100-17400
elsewhere) and ESnet's one core per interface (WAN). Their CPU numbers are their hosts'; what
carries over is the rule "the NIC-local cores", which this host names in `local_cpulist`. Only
on a host with more than one NUMA node: with one, every CPU is as near the NIC as any other,
and the reports measured no gain from moving IRQs there (Red Hat's 5012 -> 5150 Mb/s moved
them off a CPU the application shared, a different effect). Not for a latency profile (Red
Hat's TCP_RR runs placed nothing). Not while irqbalance runs: it would move them back.
"""

from __future__ import annotations

from dataclasses import replace

from tuitune.core.cpulist import format_cpulist
from tuitune.core.irqplan import spread_plan
from tuitune.core.profiles import ShippedProfile
from tuitune.core.profiles.scale import HostFacts, Scaled
from tuitune.core.session.profile_model import Request
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import HostState, NicState

WHY = (
    "the NIC's queue IRQs on its NIC-local cores, one a core (NASA's affinity table, LAN; "
    "ESnet's core per interface, WAN)"
)


def irq_placement(
    prof: ShippedProfile, facts: HostFacts, nic: NicState | None, host: HostState
) -> tuple[tuple[Request, ...], list[Scaled], list[str]]:
    """The affinity requests (by queue name, as `tuitune apply` takes them), each as a
    scaled line with its old value, and what was left and why."""
    if prof.goal != "throughput":
        return (), [], ["IRQ affinity left: a latency profile (no report placed IRQs for it)"]
    if facts.numa_nodes <= 1 or not facts.nic_cpus:
        return (
            (),
            [],
            [
                "IRQ affinity left: one NUMA node (or no NIC locality): every CPU is as near "
                "the NIC, nothing to place"
            ],
        )
    queues = [] if nic is None else [q for q in nic.irqs if q.kind != "misc"]
    if nic is None or not queues:
        return (), [], [f"IRQ affinity left: {facts.ifname} has no queue IRQs"]
    if host.irqbalance.running:
        return (
            (),
            [],
            [
                "IRQ affinity left: irqbalance is running and would move the IRQs back "
                "(systemctl stop irqbalance first)"
            ],
        )
    local = format_cpulist(facts.nic_cpus)
    requests: list[Request] = []
    scaled: list[Scaled] = []
    for q, cpu in spread_plan(nic, host):
        requests.append(Request("irq_affinity", q.name, str(cpu), f"profile {prof.name}: irqs"))
        why = f"{WHY}; node {facts.nic_node} CPUs {local}"
        aff = nic.irq_affinity.get(q.irq)
        was = None if aff is None or isinstance(aff.smp_affinity, Unavailable) else aff.smp_affinity
        scaled.append(Scaled(f"irq {q.irq} ({q.name})", str(cpu), why, _cpus(was)))
    return tuple(requests), scaled, []


def with_placement(
    prof: ShippedProfile, facts: HostFacts, nic: NicState | None, host: HostState
) -> tuple[ShippedProfile, list[Scaled], list[str]]:
    """`prof` with its IRQ placement for this host (applied after its picks, as `tuitune
    apply` writes IRQs after channels), and the lines that say it."""
    requests, scaled, kept = irq_placement(prof, facts, nic, host)
    return replace(prof, extra=requests), scaled, kept


def _cpus(cpus: frozenset[int] | None) -> str | None:
    return None if cpus is None else format_cpulist(cpus)
