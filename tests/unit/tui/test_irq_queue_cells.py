"""The IRQ panel's per-queue cells: a queue's rates (ethtool -S) on its IRQ's row."""

from __future__ import annotations

from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.queuestats import queue_rates
from tuitune.tui.look.glyphs import UNICODE
from tuitune.tui.look.palette import DEFAULT_PALETTE
from tuitune.tui.panels.irqpanel import IrqData, irq_rows
from tuitune.tui.panels.rowview import plain_text

# Names as mlx5 / mlx4 give them (tests/fixtures/captures/ethtool_S/mlx4_en_-S_PARTIAL_ethq21.txt).
BEFORE = (("rx0_packets", 0), ("rx0_bytes", 0), ("tx0_packets", 0), ("rx1_packets", 0))
AFTER = (("rx0_packets", 3000), ("rx0_bytes", 4_500_000), ("tx0_packets", 1000), ("rx1_packets", 0))


def rows(with_queues: bool) -> tuple[list[str], list[list[str]]]:
    irqs = (NicIrq("41", "mlx5_comp0@pci:0000:81:00.0", "combined", 0),
            NicIrq("42", "mlx5_comp1@pci:0000:81:00.0", "combined", 1),
            NicIrq("40", "mlx5_async0@pci:0000:81:00.0", "misc", None))  # fmt: skip
    data = IrqData(
        nic_irqs=irqs,
        affinity={},
        interrupts=None,
        rates=None,
        baseline=False,
        cpus=[0, 1],
        show_all=False,
        queues=queue_rates(BEFORE, AFTER, 1.0) if with_queues else None,
    )
    cols, got = irq_rows(data, 40, UNICODE, DEFAULT_PALETTE)
    return [c.title for c in cols], [[plain_text(c) for c in r.values] for r in got]


def test_each_queue_irq_row_carries_its_queue_rates() -> None:
    titles, cells = rows(True)
    assert titles[3:6] == ["pkt/s", "drop/s", "B/s"]
    # TxRx 0 serves rx0 and tx0: 3000 + 1000 packets/s; no drop counter for it in this driver.
    assert cells[0][:6] == ["TxRx 0", "41", "0", "4000", "-", "4.3 MiB"]
    assert cells[1][3] == "0"
    assert cells[2][3:6] == ["-", "-", "-"]  # the misc vector serves no queue


def test_no_ethtool_stats_no_queue_columns() -> None:
    titles, _ = rows(False)
    assert "pkt/s" not in titles
