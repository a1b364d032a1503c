"""A throughput profile's IRQ placement scaled to the host (core/profiles/placement.py): on
the recorded 2-node E5-2640 host (netutils-linux's 82599ES, eth2 local to node 0) the queue
IRQs go one a core onto node 0's CPUs, each shown with its old affinity, as requests `tuitune
apply` takes by queue name; a one-node host, a latency profile and a running irqbalance place
nothing and say why."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.unit.core.test_recommend import host_10g, host_100g  # noqa: F401 (fixtures)
from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.profiles import find
from tuitune.core.profiles.placement import irq_placement, with_placement
from tuitune.core.profiles.recommend import host_facts
from tuitune.core.watch.hostreader import HostReader


def _placed(tree: Path, ifname: str, profile: str = "lan-10g") -> tuple:  # type: ignore[type-arg]
    root = HostRoot.fixture(tree)
    facts = host_facts(root, ifname)
    with HostReader(root) as r:
        snap = r.snapshot(ifname)
    prof = find(profile)
    assert prof is not None
    return prof, facts, snap


def test_queue_irqs_go_onto_the_nic_local_cores(host_10g: Path) -> None:  # noqa: F811
    prof, facts, snap = _placed(host_10g, "eth2")
    requests, scaled, kept = irq_placement(prof, facts, snap.nic, snap.host)
    assert requests and not kept
    local = parse_cpulist("0-7,16-23")
    assert {int(r.text) for r in requests} <= local
    assert all(r.kind == "irq_affinity" for r in requests)
    # one a core first: the first eight queues on eight different physical cores 0-7
    assert [int(r.text) for r in requests[:8]] == list(range(8))
    assert scaled[0].setting.startswith("irq ") and "NIC-local" in scaled[0].why
    placed, _, _ = with_placement(prof, facts, snap.nic, snap.host)
    assert placed.to_profile().requests[-len(requests) :] == requests  # after the picks


def test_one_node_or_latency_or_irqbalance_places_nothing(host_10g: Path, host_100g: Path) -> None:  # noqa: F811
    prof, facts, snap = _placed(host_100g, "enp1s0f0np0")
    assert irq_placement(prof, facts, snap.nic, snap.host)[0] == ()
    assert "one NUMA node" in irq_placement(prof, facts, snap.nic, snap.host)[2][0]
    prof, facts, snap = _placed(host_10g, "eth2", "low-latency")
    assert "latency profile" in irq_placement(prof, facts, snap.nic, snap.host)[2][0]
    prof, facts, snap = _placed(host_10g, "eth2")
    host = replace(snap.host, irqbalance=replace(snap.host.irqbalance, running=True))
    requests, _, kept = irq_placement(prof, facts, snap.nic, host)
    assert requests == () and "irqbalance is running" in kept[0]
