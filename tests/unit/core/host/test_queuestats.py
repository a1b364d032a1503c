"""Per-queue counters read off real `ethtool -S` captures (tests/fixtures/captures/ethtool_S)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuitune.core.host.queuestats import (
    Direction,
    Measure,
    QueueRates,
    classify,
    nic_drops,
    parse_ethtool_s,
    per_queue,
    queue_rates,
    queue_rows,
    rows_json,
)

CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures" / "ethtool_S"


def capture(name: str) -> tuple[tuple[str, int], ...]:
    return parse_ethtool_s((CAPTURES / name).read_text())


def values(name: str, driver: str | None = None) -> dict[tuple[str, int], dict[Measure, int]]:
    return {(q.direction, q.queue): dict(q.values) for q in per_queue(capture(name), driver)}


def rate_of(r: QueueRates, d: Direction, q: int) -> float | None:
    got = r.of(d, q)
    return None if got is None else got.per_s["packets"]


def test_every_capture_has_a_source() -> None:
    sources = (CAPTURES.parent / "SOURCES.md").read_text()
    for f in CAPTURES.iterdir():
        assert f.name in sources, f.name


def test_bnx2x_bracket_scheme_sums_unicast_multicast_broadcast() -> None:
    got = values("bnx2x_eth0_-S_PARTIAL_ethq6.txt")
    assert got[("rx", 0)] == {
        "bytes": 209487403324,
        "packets": 194386668 + 1977213 + 1314918,
        "drops": 0,
        "errors": 0,
    }
    assert got[("tx", 1)]["packets"] == 132407943 + 0 + 8249
    assert got[("tx", 1)]["bytes"] == 48398427765
    assert set(got) == {("rx", 0), ("rx", 1), ("tx", 0), ("tx", 1)}


def test_mlx4_ring_scheme_and_nic_totals_left_out() -> None:
    got = values("mlx4_en_-S_PARTIAL_ethq21.txt")
    assert got[("rx", 5)] == {"packets": 17373290830, "bytes": 2261358567251}
    assert got[("tx", 0)] == {"packets": 48124213736, "bytes": 72239938474198}
    assert len(got) == 12  # rx_packets / tx_bytes (the NIC's totals) are not queues


def test_ena_queue_first_scheme_counts_cnt_as_packets() -> None:
    got = values("ena_eth0_-S_PARTIAL_ethq15.txt")
    assert got[("rx", 0)]["packets"] == 9300271
    assert got[("rx", 0)]["bytes"] == 64430725908
    assert got[("tx", 0)]["packets"] == 2005711
    assert got[("tx", 0)]["errors"] == 0  # dma_mapping_err, linearize_failed, bad_req_id...
    assert got[("tx", 1)] == {"packets": 4468943, "bytes": 485087354}


def test_virtio_plain_packets_win_over_xdp_packets() -> None:
    got = values("virtio_net_eth0_-S_PARTIAL_netdata17015.txt")
    assert [got[("rx", q)]["packets"] for q in range(4)] == [77805, 341999, 24064, 156304]
    assert got[("rx", 1)]["drops"] == 0


def test_veth_counts_its_xdp_path_as_packets() -> None:
    got = values("veth_qa_-S_kernel6.18_thismachine.txt", "veth")
    assert got[("rx", 0)] == {"packets": 0, "bytes": 0, "drops": 0, "errors": 0}
    assert got[("tx", 0)] == {"packets": 0, "errors": 0}


def test_ice_and_ixgbe_queue_scheme() -> None:
    ice = values("ice_enp59s0f0_-S_PARTIAL_ethq27.txt")
    assert ice[("tx", 2)] == {"packets": 1, "bytes": 62}
    assert len(ice) == 6
    ixgbe = values("ixgbe_x520_-S_PARTIAL_ethq24.txt")
    assert ixgbe[("rx", 16)] == {"packets": 0, "bytes": 0}
    assert ixgbe[("rx", 12)] == {"bytes": 0}  # the slice starts mid-queue


def test_be2net_rxq_scheme() -> None:
    got = values("be2net_-S_PARTIAL_netutils208.txt")
    assert got[("rx", 0)]["packets"] == 388868940376
    assert got[("rx", 0)]["drops"] == 3885606854  # drops_no_skbs + drops_no_frags


def test_nic_wide_drops_found_by_their_names() -> None:
    assert nic_drops(capture("igb_eth0_-S_PARTIAL_netdata988.txt")) == {
        "rx_over_errors": 0,
        "rx_no_buffer_count": 527,
        "rx_missed_errors": 4954,
    }
    ixgbe = nic_drops(capture("ixgbe_enp3s0f0_-S_PARTIAL_ethq1.txt"))
    assert set(ixgbe) == {
        "rx_no_buffer_count",
        "rx_over_errors",
        "rx_fifo_errors",
        "rx_missed_errors",
    }


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("rx-3.packets", ("rx", 3, "packets")),  # i40e (source: i40e_ethtool.c)
        ("rx-1.rx_bytes", ("rx", 1, "bytes")),  # sfc
        ("tx_bytes[7]", ("tx", 7, "bytes")),  # gve (source: gve_ethtool.c)
        ("rx12_packets", ("rx", 12, "packets")),  # mlx5
        ("rx_packets", None),
        ("rx_queue_x_packets", None),
        ("rx_queue_1234567_packets", None),  # bounded queue numbers
    ],
)
def test_classify(name: str, want: tuple[str, int, str] | None) -> None:
    assert classify(name) == want


def test_rates_per_queue_and_unknown_driver_raw_deltas() -> None:
    before = capture("mlx4_en_-S_PARTIAL_ethq21.txt")
    after = tuple((k, v + (2000 if k == "rx3_packets" else 0)) for k, v in before)
    r = queue_rates(before, after, 2.0)
    assert rate_of(r, "rx", 3) == 1000.0
    assert rate_of(r, "rx", 2) == 0.0
    assert r.unknown == {}
    # A driver with no known scheme: its rises are kept raw, not dropped.
    odd_before = (("mmc_rx_framecount_gb", 10), ("mmc_tx_framecount_gb", 5))
    odd_after = (("mmc_rx_framecount_gb", 25), ("mmc_tx_framecount_gb", 5))
    odd = queue_rates(odd_before, odd_after, 1.0)
    assert odd.queues == ()
    assert odd.unknown == {"mmc_rx_framecount_gb": 15}


def test_counter_that_went_backwards_is_no_rise() -> None:
    r = queue_rates((("rx0_packets", 100),), (("rx0_packets", 5),), 1.0)
    assert rate_of(r, "rx", 0) == 0.0


def test_rows_put_each_queue_beside_its_irq_and_cpu() -> None:
    before = capture("ena_eth0_-S_PARTIAL_ethq15.txt")
    after = tuple(
        (k, v + 50 if k in ("queue_0_rx_cnt", "queue_1_tx_cnt") else v) for k, v in before
    )
    qr = queue_rates(before, after, 0.5)
    # ena names its vectors IF-Tx-Rx-N: combined, one per queue (core/host/irqmap.py).
    rows = queue_rows(qr, [("41", "combined", 0), ("42", "combined", 1), ("40", "misc", None)],
                      {"41": 3})  # fmt: skip
    assert [(r.queue, r.irqs, r.cpu) for r in rows] == [(0, ("41",), 3), (1, ("42",), None)]
    assert rows[0].rx["packets"] == 100.0 and rows[1].tx["packets"] == 100.0
    doc = rows_json(qr, rows)
    assert doc["queues"] == [
        {"queue": 0, "irqs": ["41"], "cpu": 3, "rx": rows[0].rx, "tx": rows[0].tx},
        {"queue": 1, "irqs": ["42"], "cpu": None, "rx": {}, "tx": rows[1].tx},
    ]


def test_virtio_since_qstats_keeps_only_drops_and_xdp_is_not_packets() -> None:
    # virtio_net's rx0_xdp_packets counts what an XDP program saw, not the queue's traffic.
    got = values("virtio_net_eth0_-S_kernel6.18_thismachine.txt", "virtio_net")
    assert got == {("rx", 0): {"drops": 0}}


def test_vmxnet3_blocks_per_queue() -> None:
    """vmxnet3 repeats one set of names under each "Tx Queue#: N" / "Rx Queue#: N" line:
    packets and bytes add unicast, multicast and broadcast; the drop sub-counters (too many
    frags, hdr err...) are not counted twice."""
    got = values("vmxnet3_eth0_-S_2queues_2daygeek.txt", "vmxnet3")
    assert got[("rx", 0)] == {
        "packets": 5084776 + 154143,
        "bytes": 4673133395 + 45415676,
        "drops": 0,
        "errors": 0,
    }
    assert got[("tx", 1)]["packets"] == 3711838 + 1186
    assert got[("tx", 1)]["bytes"] == 346309662 + 49812
    assert sorted(got) == [("rx", 0), ("rx", 1), ("tx", 0), ("tx", 1)]
    # a rise on one queue shows on that queue alone
    before = capture("vmxnet3_eth0_-S_2queues_2daygeek.txt")
    after = tuple(
        (n, v + 1000 if n.strip() == "ucast pkts rx" and i > 50 else v)
        for i, (n, v) in enumerate(before)
    )
    r = queue_rates(before, after, 1.0, "vmxnet3")
    assert (rate_of(r, "rx", 0), rate_of(r, "rx", 1), rate_of(r, "tx", 0)) == (0.0, 1000.0, 0.0)


def test_mlx5_rings_and_its_hot_queue() -> None:
    """A real mlx5 paste (63 rings): each `rxN_packets` is its ring; the port totals
    `rx_packets` and `rx_packets_phy` are not a queue; rx0 carries almost everything, which
    is what the per-queue view and the `queue-imbalance` rule are for."""
    got = values("mlx5_core_eth01_-S_grep_rxN_packets_63rings.txt", "mlx5_core")
    assert set(got) == {("rx", q) for q in range(63)}
    assert got[("rx", 0)] == {"packets": 221870072}
    assert got[("rx", 29)] == {"packets": 2889641}
    total = sum(v["packets"] for v in got.values())
    assert got[("rx", 0)]["packets"] / total > 0.9
    zero = tuple(
        (name, 0) for name, _ in capture("mlx5_core_eth01_-S_grep_rxN_packets_63rings.txt")
    )
    r = queue_rates(
        zero, capture("mlx5_core_eth01_-S_grep_rxN_packets_63rings.txt"), 10.0, "mlx5_core"
    )
    assert rate_of(r, "rx", 0) == 22187007.2 and r.unknown == {}


@given(
    st.lists(
        st.one_of(
            st.from_regex(
                r"(rx|tx)_queue_[0-9]{1,3}_(packets|bytes|drops|xdp_drops)", fullmatch=True
            ),
            st.from_regex(r"queue_[0-9]{1,2}_(rx|tx)_(packets|bytes)", fullmatch=True),
            st.text(max_size=30),
        ),
        max_size=20,
    )
)
def test_classify_remembered_equals_classify_worked_out(names: list[str]) -> None:
    # Issue 38: classify keeps its answers (a driver's names repeat at every tick); the
    # answer kept is the one the schemes give, asked once or many times.
    for name in names + names:
        assert classify(name) == classify.__wrapped__(name)


def test_a_ticks_names_are_matched_once() -> None:
    stats = tuple((f"rx_queue_{q}_packets", q) for q in range(64))
    per_queue(stats)
    before = classify.cache_info()
    per_queue(stats)  # the next tick: the same names
    after = classify.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 64
