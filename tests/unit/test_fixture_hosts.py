"""The TUI's fixture hosts: recorded trees whose counters move by what the real captures say.

Expected values are read from the capture files here with a plain text split (not the
product's parsers, not the helper under test), so a wrong mapping in either shows.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path

import pytest

from tests.support.fakes.ethtool_text import parse_rings
from tests.support.fixture_hosts import (
    ReplayReader,
    host_4cpu_series,
    host_32cpu,
    host_256cpu,
)
from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.ethtool import Feature, Rings
from tuitune.core.watch.rates import Rates, compute_rates
from tuitune.core.watch.snapshot import Counters

Builder = Callable[..., tuple[ReplayReader, str]]
SERIES = "interrupts/netutils_series_multiqueue_4cpu_snap{}.txt"


def row_counts(text: str, name: str) -> list[int]:
    """The per-CPU counts of the /proc/interrupts row whose last word is `name`."""
    (line,) = [ln for ln in text.splitlines() if ln.split() and ln.split()[-1] == name]
    counts = []
    for tok in line.partition(":")[2].split():
        if not tok.isdigit():
            break
        counts.append(int(tok))
    return counts


def series_delta(fixtures: Path, name: str, step: int) -> int:
    """How much row `name` rose from snapshot step+1 to step+2 of the multiqueue series."""
    a = (fixtures / SERIES.format(step + 1)).read_text()
    b = (fixtures / SERIES.format(step + 2)).read_text()
    return sum(row_counts(b, name)) - sum(row_counts(a, name))


def ticks(reader: ReplayReader, ifname: str, n: int) -> list[Counters]:
    return [reader.counters(ifname) for _ in range(n)]


def irq_of(reader: ReplayReader, ifname: str, name: str) -> str:
    (irq,) = [i.irq for i in reader.nic_state(ifname).irqs if i.name == name]
    return irq


def feature(features: object, name: str) -> Feature:
    assert isinstance(features, tuple)
    (f,) = [f for f in features if isinstance(f, Feature) and f.name == name]
    return f


def assert_pegged(r: Rates, pegged: int, busy: set[int]) -> None:
    """One core all sys + softirq with softnet drops and squeezes; `busy` moderately busy;
    every other CPU idle and without network softirqs."""
    hot = r.cpus[pegged]
    assert hot.sys + hot.soft == pytest.approx(100.0) and hot.idle == 0.0
    assert hot.net_rx > 0 and hot.drops > 0 and hot.squeezes > 0
    assert {c for c, x in r.cpus.items() if 10 <= x.busy < 90} == busy
    idle = [x for c, x in r.cpus.items() if c != pegged and c not in busy]
    assert idle and all(x.busy < 5 and x.net_rx == x.drops == x.squeezes == 0 for x in idle)


def test_host_32cpu(fixtures_dir: Path, tmp_path: Path) -> None:
    reader, ifname = host_32cpu(tmp_path)
    with reader:
        nic, host = reader.nic_state(ifname), reader.host_state()
        irq = irq_of(reader, ifname, "eth0-TxRx-5")
        a, b, c = ticks(reader, ifname, 3)
    r = compute_rates(a, b)
    assert b.time - a.time == r.interval == 1.0
    assert_pegged(r, 0, {1, 2, 3})
    # All 8 queues fire on CPU0 and only there, as the capture shows them.
    queues = [i for i in nic.irqs if i.kind == "combined"]
    assert sorted(i.name for i in queues) == sorted(f"eth0-TxRx-{q}" for q in range(8))
    assert all(set(r.irqs[i.irq].per_cpu) == {0} for i in queues)
    assert all(nic.irq_affinity[i.irq].smp_affinity == frozenset({0}) for i in queues)
    # eth0-TxRx-5 replays eth5-TxRx-1 of the real series, one real step per tick.
    for rates, step in ((r, 0), (compute_rates(b, c), 1)):
        expected = series_delta(fixtures_dir, "eth5-TxRx-1", step)
        assert expected > 0
        assert rates.irqs[irq].total == expected and rates.irqs[irq].per_cpu == {0: expected}
    assert r.cpus[0].intr > sum(r.irqs[i.irq].total for i in queues)  # plus the timer
    assert r.link["rx_packets"] > 0 and r.link["rx_bytes"] > r.link["rx_packets"]
    # ethtool state from the igb captures.
    ring_capture = (fixtures_dir / "ethtool/netutils_igb-i350_eth0_-g.txt").read_text()
    assert isinstance(nic.rings, Rings) and nic.rings == parse_rings(ring_capture)
    assert (nic.rings.rx_max, nic.rings.rx) == (4096, 256)
    assert nic.driver_name == "igb"
    assert feature(nic.features, "rx-gro").active  # generic-receive-offload: on
    # Placement and topology of a 2-socket host.
    node0, node1 = parse_cpulist("0-7,16-23"), parse_cpulist("8-15,24-31")
    assert nic.placement.numa_node == 0 and nic.placement.local_cpus == node0
    assert nic.placement.bus == "0000:02:00.0"
    assert host.topology.nodes == {0: node0, 1: node1}
    assert host.topology.order()[:4] == [0, 16, 1, 17]  # SMT siblings side by side


def test_host_256cpu(fixtures_dir: Path, tmp_path: Path) -> None:
    reader, ifname = host_256cpu(tmp_path)
    with reader:
        nic, host = reader.nic_state(ifname), reader.host_state()
        irq = irq_of(reader, ifname, "eth0-TxRx-0")
        a, b = ticks(reader, ifname, 2)
    r = compute_rates(a, b)
    assert a.interrupts.cpus == tuple(range(256)) and len(r.cpus) == 256
    assert_pegged(r, 0, {1, 2, 3, 64, 65, 129})
    expected = series_delta(fixtures_dir, "eth4-TxRx-0", 0)
    assert r.irqs[irq].total == expected and r.irqs[irq].per_cpu == {0: expected}
    local = parse_cpulist(
        (fixtures_dir / "sys/igb_i350_256cpu_2node_local_cpulist.txt").read_text()
    )
    assert nic.placement.local_cpus == local and nic.placement.numa_node == 0
    assert host.topology.nodes == {0: local, 1: frozenset(range(256)) - local}
    assert isinstance(nic.rings, Rings) and nic.rings.rx_max == 4096
    # The driver's bus-info agrees with where sysfs puts the device.
    assert getattr(nic.driver, "bus_info", None) == nic.placement.bus == "0000:45:00.0"


def test_host_4cpu_series_replays_the_real_samples(fixtures_dir: Path, tmp_path: Path) -> None:
    reader, ifname = host_4cpu_series(tmp_path, interval=0.5)
    with reader:
        nic = reader.nic_state(ifname)
        samples = ticks(reader, ifname, 5)
    assert [s.time for s in samples] == [0.0, 0.5, 1.0, 1.5, 2.0]
    irqs = {i.name: i.irq for i in nic.irqs}
    # NET_RX on CPU1 in each snapshot of the real softirqs series ("NET_RX: cpu0 cpu1 ...").
    rx = [
        int(line.split()[2])
        for n in range(1, 6)
        for line in (fixtures_dir / f"softirqs/netutils_series_i7_8cpu_snap{n}.txt")
        .read_text()
        .splitlines()
        if line.split()[:1] == ["NET_RX:"]
    ]
    for step, (a, b) in enumerate(pairwise(samples)):
        r = compute_rates(a, b)
        for name, cpu in (("eth4-TxRx-0", 3), ("eth4-TxRx-3", 0)):
            expected = series_delta(fixtures_dir, name, step) / 0.5
            assert expected > 0 and r.irqs[irqs[name]].per_cpu == {cpu: expected}
        assert r.cpus[1].net_rx == (rx[step + 1] - rx[step]) / 0.5 > 0
    # One queue per CPU, in the order the capture's counts show.
    affinity = [nic.irq_affinity[irqs[f"eth4-TxRx-{q}"]].smp_affinity for q in range(4)]
    assert affinity == [frozenset({3}), frozenset({2}), frozenset({1}), frozenset({0})]
    assert nic.placement.numa_node is None and nic.placement.local_cpus == frozenset(range(4))


def test_replay_holds_the_last_sample(tmp_path: Path) -> None:
    reader, ifname = host_4cpu_series(tmp_path, samples=2)
    with reader:
        a, b, c, d = ticks(reader, ifname, 4)
        assert reader.calls == 4
    assert [x.time for x in (a, b, c, d)] == [0.0, 1.0, 2.0, 3.0]
    assert compute_rates(a, b).link["rx_packets"] > 0
    held = compute_rates(b, c)
    assert held.interval == 1.0 and held.cpus == {}  # no jiffies passed
    assert all(x.total == 0 for x in held.irqs.values()) and set(held.link.values()) == {0.0}
    assert c.interrupts == d.interrupts == b.interrupts


def test_replay_needs_samples(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="no samples"):
        ReplayReader(tmp_path)


def tree_files(root: Path) -> dict[str, bytes | str]:
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        rel = str(path.relative_to(root))
        if path.is_symlink():
            out[rel] = "-> " + os.readlink(path)
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


@pytest.mark.parametrize("build", [host_32cpu, host_256cpu, host_4cpu_series])
def test_built_twice_the_trees_are_identical(build: Builder, tmp_path: Path) -> None:
    trees = []
    for run in ("one", "two"):
        reader, _ = build(tmp_path / run)
        reader.close()
        trees.append(tree_files(reader.root.proc.parent))
    assert trees[0] == trees[1]
    assert len(trees[0]) > 20
    synthesised = trees[0]["SYNTHESISED"]
    assert isinstance(synthesised, bytes) and b"proc/stat: synthesised" in synthesised
