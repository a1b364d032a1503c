"""How a run names where the lab's server sat against the CPU that receives its packets."""

from __future__ import annotations

from tuitune.core.bench.model import BenchSpec
from tuitune.core.bench.placement import describe, rx_cpus

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
