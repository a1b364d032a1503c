"""The next-step line (tuitune.core.guide): what it says at each point of the tuning loop,
and the busy core it names (issue 22 item 15)."""

from __future__ import annotations

from tuitune.core.guide import HotCore, Situation, Steps, hot_core, next_hint
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.watch.rates import CpuRates, IrqRate, Rates

NOW = Situation("eth0")


def cpu(n: int, idle: float) -> CpuRates:
    zero = dict.fromkeys(("usr", "nice", "iowait", "irq", "steal", "guest", "gnice"), 0.0)
    return CpuRates(
        cpu=n, sys=0.0, soft=100.0 - idle, idle=idle, intr=0.0, net_rx=0.0, net_tx=0.0,
        drops=0.0, squeezes=0.0, **zero,
    )  # fmt: skip


def test_the_loop_step_by_step() -> None:
    assert next_hint(Steps(), Situation(None)) == "Next: n picks the interface to tune"
    assert next_hint(Steps(), NOW).startswith("Next: B measures (iperf3")
    assert next_hint(Steps(), Situation("veth0", lab=True)).startswith(
        "Next: B measures the lab's link"
    )
    assert next_hint(Steps(), Situation("eth0", bench_running=True)).startswith("Measuring:")
    hot = HotCore(3, 98.4, ("TxRx 0", "TxRx 1", "TxRx 2"))
    measured = Steps(runs=1, hot=hot)
    assert next_hint(measured, NOW) == (
        "cpu3 was 98% busy with TxRx 0, TxRx 1 ...: 2, then s spreads or e moves"
    )
    assert next_hint(Steps(runs=1), NOW).startswith("Next: change one setting")
    changed = Steps(runs=1, changes=1, hot=hot)
    assert next_hint(changed, NOW) == "Next: B measures again with your change (u undoes it)"
    again = Steps(runs=2, changes=1, changes_at_last_run=1)
    assert next_hint(again, NOW).startswith("Next: N compares the runs")
    assert next_hint(Steps(runs=2, changes=1, changes_at_last_run=1, compared=True), NOW) == ""


def test_every_line_fits_80_columns() -> None:
    hot = HotCore(1151, 100.0, ("mlx5_comp63@pci:0000:af:00.0", "mlx5_comp62@pci:0000:af:00.0"))
    for steps in (Steps(), Steps(runs=1, hot=hot), Steps(runs=1, hot=HotCore(1151, 100.0, ()))):
        assert len(next_hint(steps, NOW)) <= 78, next_hint(steps, NOW)


def test_hot_core_names_the_nic_irqs_that_land_there() -> None:
    rates = Rates(
        1.0,
        {0: cpu(0, 2.0), 1: cpu(1, 60.0)},
        {"92": IrqRate("92", 900.0, {0: 880.0, 1: 20.0}), "93": IrqRate("93", 50.0, {1: 50.0})},
        {},
    )
    irqs = (NicIrq("92", "eth0-TxRx-0", "combined", 0), NicIrq("93", "eth0-TxRx-1", "combined", 1))
    nic = type("Nic", (), {"irqs": irqs})()
    found = hot_core(rates, nic)  # type: ignore[arg-type]
    assert found == HotCore(0, 98.0, ("TxRx 0",))
    calm = Rates(1.0, {0: cpu(0, 50.0)}, {}, {})
    assert hot_core(calm, None) is None
