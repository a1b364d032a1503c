"""How a run names where the lab's server and the iperf3 client sat against the CPU that
receives the packets, and the NIC's NUMA node."""

from __future__ import annotations

import pytest

from tests.support.fixture_hosts import host_32cpu
from tuitune.core.bench.model import BenchSpec
from tuitune.core.bench.placement import (
    CLIENT_NAME,
    client_placement,
    describe,
    placement_line,
    rx_cpus,
)
from tuitune.core.watch.snapshot import NicState

ONLINE = frozenset({0, 1, 2, 3})


def test_names_each_placement() -> None:
    rx = frozenset({0})
    assert describe(frozenset({0}), ONLINE, rx, "IRQ") == "on cpu 0 with its IRQ"
    assert describe(frozenset({1}), ONLINE, rx, "NET_RX") == (
        "on cpu 1, away from its NET_RX (cpu 0)"
    )
    assert describe(frozenset({0, 1}), ONLINE, rx, "IRQ") == "on cpu 0-1, its IRQ on cpu 0"
    # Not pinned: where the scheduler put it is not a setting, so two runs stay alike.
    assert describe(ONLINE, ONLINE, rx, "IRQ") == "on any cpu (not pinned)"
    assert describe(frozenset({2}), ONLINE, frozenset(), "NET_RX") == "on cpu 2"


def test_a_veth_receives_on_the_pinned_senders_cpu() -> None:
    pinned = BenchSpec("198.18.0.2", client_cpu=1)
    assert rx_cpus(None, pinned) == (frozenset({1}), "NET_RX")
    # Unpinned, or the peer sending: where it lands is not known from the request.
    assert rx_cpus(None, BenchSpec("198.18.0.2")) == (frozenset(), "NET_RX")
    reverse = BenchSpec("198.18.0.2", client_cpu=1, direction="reverse")
    assert rx_cpus(None, reverse) == (frozenset(), "NET_RX")


@pytest.fixture(scope="module")
def igb(tmp_path_factory: pytest.TempPathFactory) -> NicState:
    """The recorded 2-node host (real captures): its igb on node 0, every queue IRQ on cpu 0."""
    reader, ifname = host_32cpu(tmp_path_factory.mktemp("igb"), samples=1)
    with reader:
        return reader.nic_state(ifname)


def test_the_client_is_named_against_the_nics_irqs_and_node(igb: NicState) -> None:
    online = frozenset(range(32))
    assert igb.placement.numa_node == 0
    beside = client_placement(igb, BenchSpec("192.0.2.9", client_cpu=0), online)
    assert beside == {CLIENT_NAME: "on cpu 0 with its IRQ, on the NIC's node 0"}
    away = client_placement(igb, BenchSpec("192.0.2.9", client_cpu=8), online)
    assert away == {CLIENT_NAME: "on cpu 8, away from its IRQ (cpu 0), off the NIC's node 0"}
    # Not pinned by -A: the affinity it inherits from tuitune (taskset -c 1 tuitune bench).
    inherited = client_placement(igb, BenchSpec("192.0.2.9"), online, frozenset({1}))
    assert inherited == {CLIENT_NAME: "on cpu 1, away from its IRQ (cpu 0), on the NIC's node 0"}
    free = client_placement(igb, BenchSpec("192.0.2.9"), online, online)
    assert free == {CLIENT_NAME: "on any cpu (not pinned)"}
    # A veth has neither IRQs nor a node: its NET_RX is the pinned client's own CPU.
    assert client_placement(None, BenchSpec("198.18.0.2", client_cpu=1), frozenset({0, 1})) == {
        CLIENT_NAME: "on cpu 1 with its NET_RX"
    }
    assert placement_line({"iperf3 server": "on cpu 0", CLIENT_NAME: "on cpu 1"}) == (
        "iperf3 client on cpu 1; iperf3 server on cpu 0"
    )
