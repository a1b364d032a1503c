"""Rates between two samples, on the before/after captures; expected values worked by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.netdev import LinkCounters
from tuitune.core.host.procfs import parse_softirqs, parse_softnet, parse_stat
from tuitune.core.watch.rates import compute_rates, delta32
from tuitune.core.watch.snapshot import Counters


def counters(
    t: float,
    *,
    stat: str = "",
    interrupts: str = "",
    softirqs: str = "",
    softnet: str = "",
    link: dict[str, int] | None = None,
) -> Counters:
    return Counters(
        time=t,
        stat=parse_stat(stat),
        interrupts=parse_interrupts(interrupts),
        softirqs=parse_softirqs(softirqs),
        softnet=parse_softnet(softnet),
        link=LinkCounters(link) if link is not None else None,
    )


def fx(fixtures: Path, rel: str) -> str:
    return (fixtures / rel).read_text()


def test_irq_rates_igb_pair_014s(fixtures_dir: Path) -> None:
    a = counters(
        0.0,
        interrupts=fx(
            fixtures_dir, "interrupts/igb-style_16cpu_nehalem_kernel2.6.38_snapA_before.txt"
        ),
    )
    b = counters(
        0.14,
        interrupts=fx(
            fixtures_dir, "interrupts/igb-style_16cpu_nehalem_kernel2.6.38_snapB_after_0.14s.txt"
        ),
    )
    r = compute_rates(a, b)
    # IRQ 129, CPU11: 13553501 -> 13553528 = 27 interrupts in 0.14 s; nothing else moved.
    assert r.irqs["129"].per_cpu == {11: pytest.approx(27 / 0.14)}
    assert r.irqs["129"].total == pytest.approx(27 / 0.14)
    # IRQ 136, CPU10: 7832075 -> 7832109 = 34
    assert r.irqs["136"].per_cpu[10] == pytest.approx(34 / 0.14)
    assert r.irqs["128"].total == 0


def test_irq_rates_multiqueue_series(fixtures_dir: Path) -> None:
    a = counters(
        10.0, interrupts=fx(fixtures_dir, "interrupts/netutils_series_multiqueue_4cpu_snap1.txt")
    )
    b = counters(
        11.0, interrupts=fx(fixtures_dir, "interrupts/netutils_series_multiqueue_4cpu_snap2.txt")
    )
    r = compute_rates(a, b)
    # eth4-TxRx-0 (IRQ 34) on CPU3: 2758558739 -> 2758604207
    assert r.irqs["34"].per_cpu == {3: 2758604207 - 2758558739}
    # eth4-TxRx-3 (IRQ 37) on CPU0: 2839861257 -> 2839910712
    assert r.irqs["37"].per_cpu == {0: 2839910712 - 2839861257}
    assert r.irqs["38"].total == 0  # the link IRQ "eth4" is quiet


def test_net_rx_tx_softirq_rates(fixtures_dir: Path) -> None:
    stat = "cpu0 0 0 0 100\ncpu1 0 0 0 100\n" + "".join(f"cpu{i} 0 0 0 100\n" for i in range(2, 8))
    stat2 = "".join(f"cpu{i} 0 0 0 300\n" for i in range(8))
    a = counters(
        0.0, stat=stat, softirqs=fx(fixtures_dir, "softirqs/netutils_series_i7_8cpu_snap1.txt")
    )
    b = counters(
        2.0, stat=stat2, softirqs=fx(fixtures_dir, "softirqs/netutils_series_i7_8cpu_snap2.txt")
    )
    r = compute_rates(a, b)
    # NET_RX CPU1: 1833061539 -> 1833080731 = 19192 over 2 s; CPU0: 79 over 2 s
    assert r.cpus[1].net_rx == pytest.approx(19192 / 2)
    assert r.cpus[0].net_rx == pytest.approx(79 / 2)
    assert r.cpus[3].net_rx == 0
    assert r.cpus[0].net_tx == 0  # NET_TX did not move


def test_cpu_percentages_by_hand() -> None:
    a = counters(0.0, stat="cpu0 100 0 50 850 0 0 0 0 0 0\n")
    b = counters(1.0, stat="cpu0 200 0 100 1650 0 0 50 0 0 0\n")
    c = compute_rates(a, b).cpus[0]
    # deltas: user 100, system 50, idle 800, softirq 50 -> total 1000
    assert (c.usr, c.sys, c.idle, c.soft) == pytest.approx((10.0, 5.0, 80.0, 5.0))
    assert c.busy == pytest.approx(20.0)


def test_cpu_percentages_sum_to_100_with_guest_and_steal(fixtures_dir: Path) -> None:
    a = counters(0.0, stat=fx(fixtures_dir, "stat/procfs_fixture_8cpu.txt"))
    # Same host a moment later: every field advanced, guest inside user, steal present.
    text_b = "".join(
        f"cpu{i} {44490 + 40 + i} {19 + 3} {21045 + 20} {1087069 + 30} {220 + 2} {1 + 1} "
        f"{3410 + 5} {4} {10} {1}\n"
        for i in range(8)
    )
    b = counters(1.0, stat=text_b)
    r = compute_rates(a, b)
    assert sorted(r.cpus) == list(range(8))
    for c in r.cpus.values():
        parts = (c.usr, c.nice, c.sys, c.iowait, c.irq, c.soft, c.steal, c.guest, c.gnice, c.idle)
        assert sum(parts) == pytest.approx(100.0)
        assert min(parts) >= 0


def test_backwards_and_wrapping_counters() -> None:
    assert delta32(0xFFFFFFF0, 0x10) == 0x20  # 32-bit wrap: counted
    assert delta32(5000, 10) == 0  # a reset: no negative, no absurd rate
    hdr = "           CPU0       CPU1\n"
    a = counters(0.0, interrupts=hdr + " 40: 4294967290 500 PCI-MSI 1-edge eth0-TxRx-0\n")
    b = counters(1.0, interrupts=hdr + " 40:          4 100 PCI-MSI 1-edge eth0-TxRx-0\n")
    r = compute_rates(a, b)
    assert r.irqs["40"].per_cpu == {0: 10}  # wrapped on CPU0; CPU1 went back: nothing


def test_hotplug_cpu_count_changes() -> None:
    a = counters(
        0.0,
        stat="cpu0 0 0 0 10\ncpu1 0 0 0 10\ncpu2 0 0 0 10\n",
        interrupts="     CPU0  CPU1  CPU2\n 50: 10 20 30 PCI-MSI 1-edge eth0-rx-0\n",
    )
    b = counters(
        1.0,
        stat="cpu0 0 0 0 20\ncpu2 0 0 0 20\n",  # CPU1 went offline
        interrupts="     CPU0  CPU2\n 50: 15 37 PCI-MSI 1-edge eth0-rx-0\n",
    )
    r = compute_rates(a, b)
    assert sorted(r.cpus) == [0, 2]
    assert r.irqs["50"].per_cpu == {0: 5, 2: 7}  # columns matched by CPU number, not position


def test_new_or_renamed_irq_has_no_rate() -> None:
    hdr = "     CPU0\n"
    a = counters(0.0, interrupts=hdr + " 60: 100 PCI-MSI 1-edge eth0-rx-0\n")
    b = counters(1.0, interrupts=hdr + " 60: 5 PCI-MSI 1-edge nvme0q1\n 61: 9 PCI-MSI 2-edge x\n")
    r = compute_rates(a, b)
    assert "60" not in r.irqs and "61" not in r.irqs


def test_softnet_drop_and_squeeze_rates() -> None:
    row = "{:08x} {:08x} {:08x} 0 0 0 0 0 0 0 0 0 00000000\n"
    a = counters(0.0, stat="cpu0 0 0 0 10\n", softnet=row.format(100, 0xFFFFFFFE, 7))
    b = counters(0.5, stat="cpu0 0 0 0 20\n", softnet=row.format(900, 3, 17))
    c = compute_rates(a, b).cpus[0]
    assert c.drops == pytest.approx(5 / 0.5)  # wrapped from 0xfffffffe to 3
    assert c.squeezes == pytest.approx(10 / 0.5)


def test_link_rates() -> None:
    a = counters(0.0, link={"rx_bytes": 1000, "tx_bytes": 5000, "rx_dropped": 7})
    b = counters(2.0, link={"rx_bytes": 3000, "tx_bytes": 4000, "rx_dropped": 9})
    r = compute_rates(a, b)
    assert r.link == {"rx_bytes": 1000.0, "tx_bytes": 0.0, "rx_dropped": 1.0}


def test_zero_interval_gives_no_rates() -> None:
    a = counters(1.0, stat="cpu0 1 1 1 1\n")
    assert compute_rates(a, a).cpus == {}


_U32 = st.integers(0, 0xFFFFFFFF)


@given(
    st.lists(
        st.tuples(st.lists(_U32, min_size=3, max_size=3), st.lists(_U32, min_size=3, max_size=3)),
        min_size=1,
        max_size=12,
    ),
    st.lists(st.integers(0, 11), max_size=4),
)
def test_fast_totals_equal_exact_cell_by_cell(
    rows: list[tuple[list[int], list[int]]], detail_idx: list[int]
) -> None:
    """Totals from row/column sums (the fast path) equal the exact per-cell ones, whatever
    mix of growth, 32-bit wraps and resets the counters show."""
    hdr = "     CPU0 CPU1 CPU2\n"
    text_a = hdr + "".join(
        f" {40 + i}: {a[0]} {a[1]} {a[2]} PCI-MSI x q{i}\n" for i, (a, _) in enumerate(rows)
    )
    text_b = hdr + "".join(
        f" {40 + i}: {b[0]} {b[1]} {b[2]} PCI-MSI x q{i}\n" for i, (_, b) in enumerate(rows)
    )
    a, b = counters(0.0, interrupts=text_a), counters(1.0, interrupts=text_b)
    exact = compute_rates(a, b)
    fast = compute_rates(a, b, detail_irqs={str(40 + i) for i in detail_idx})
    for cpu in range(3):
        assert fast.cpus.get(cpu) == exact.cpus.get(cpu)  # no stat lines: both empty
    assert {k: v.total for k, v in fast.irqs.items()} == {k: v.total for k, v in exact.irqs.items()}
    for i in detail_idx:
        irq = str(40 + i)
        if irq in exact.irqs:
            assert fast.irqs[irq].per_cpu == exact.irqs[irq].per_cpu


def test_fast_intr_per_cpu_equals_exact_on_a_real_pair(fixtures_dir: Path) -> None:
    stat_a = "".join(f"cpu{i} 0 0 0 100\n" for i in range(4))
    stat_b = "".join(f"cpu{i} 0 0 0 200\n" for i in range(4))
    ia = fx(fixtures_dir, "interrupts/netutils_series_multiqueue_4cpu_snap1.txt")
    ib = fx(fixtures_dir, "interrupts/netutils_series_multiqueue_4cpu_snap2.txt")
    a, b = counters(0.0, stat=stat_a, interrupts=ia), counters(1.0, stat=stat_b, interrupts=ib)
    exact, fast = compute_rates(a, b), compute_rates(a, b, detail_irqs={"34"})
    assert [exact.cpus[c].intr for c in range(4)] == [fast.cpus[c].intr for c in range(4)]
    assert sum(exact.cpus[c].intr for c in range(4)) > 0
    assert fast.irqs["34"].per_cpu == exact.irqs["34"].per_cpu
    assert fast.irqs["35"].per_cpu == {} and fast.irqs["35"].total == exact.irqs["35"].total
