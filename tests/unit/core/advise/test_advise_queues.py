"""The per-queue rules on a recorded igb host (8 queues, eth0) with ethtool -S windows built
from the captures' names (rx_queue_N_packets / rx_queue_N_drops)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.unit.advise_hosts import one, recorded
from tuitune.core.advise import Context, Facts, advise


def stats(packets: list[int], drops: list[int]) -> tuple[tuple[str, int], ...]:
    out: list[tuple[str, int]] = []
    for q, (p, d) in enumerate(zip(packets, drops, strict=True)):
        out += [(f"rx_queue_{q}_packets", p), (f"rx_queue_{q}_bytes", p * 100)]
        out += [(f"rx_queue_{q}_drops", d), (f"tx_queue_{q}_packets", 0)]
    return tuple(out)


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


def window(f: Facts, before: list[int], after: list[int], drops_after: list[int]) -> Facts:
    w = replace(
        f.window,
        driver_before=stats(before, [0] * len(before)),
        driver_after=stats(after, drops_after),
    )
    return replace(f, window=w)


def test_ring_drops_name_the_queue_and_the_ring(pegged: Facts) -> None:
    secs = pegged.window.seconds
    n = int(500 * secs)
    f = window(pegged, [0] * 4, [n] * 4, [0, 0, int(20 * secs), 0])
    lan = one(f, "queue-ring-drops")
    assert lan is not None and lan.severity == "bottleneck" and lan.change == ()
    assert "rx queue 2 20/s" in lan.evidence[0]
    assert lan.evidence[1].startswith("rx ring ")  # the ring's size beside the drops
    wan = one(replace(f, context=Context("wan")), "queue-ring-drops")
    assert wan is not None
    assert [(c.key.label, c.value) for c in wan.change] == [("eth0 rings rx", "4096")]


def test_no_ring_drops_no_finding(pegged: Facts) -> None:
    n = int(500 * pegged.window.seconds)
    assert one(window(pegged, [0] * 4, [n] * 4, [0] * 4), "queue-ring-drops") is None


def test_one_hot_queue_is_an_imbalance(pegged: Facts) -> None:
    secs = pegged.window.seconds
    hot = window(pegged, [0] * 4, [int(x * secs) for x in (9000, 300, 300, 400)], [0] * 4)
    found = one(hot, "queue-imbalance")
    assert found is not None
    assert "rx queue 0 takes 90 % of the packets for 25 % of the table" in found.title
    assert found.sources[0].id == "kernel-doc"


def test_an_even_spread_or_a_trickle_is_no_imbalance(pegged: Facts) -> None:
    secs = pegged.window.seconds
    even = window(pegged, [0] * 4, [int(x * secs) for x in (3000, 2500, 2000, 2500)], [0] * 4)
    assert one(even, "queue-imbalance") is None
    trickle = window(pegged, [0] * 4, [int(x * secs) for x in (900, 1, 1, 1)], [0] * 4)
    assert one(trickle, "queue-imbalance") is None


def test_without_ethtool_stats_the_rules_say_so(pegged: Facts) -> None:
    f = replace(pegged, window=replace(pegged.window, driver_before=None))
    notes = {n.rule for n in advise(f).notes}
    assert {"queue-ring-drops", "queue-imbalance"} <= notes
