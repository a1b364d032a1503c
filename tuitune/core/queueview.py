"""The NIC's queues as one row each: rates from ethtool -S beside the IRQ serving the queue
and the CPU that took most of its interrupts (show, --json, the advisor, the IRQ panel)."""

from __future__ import annotations

from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.queuestats import QueueRates, QueueRow, queue_rows
from tuitune.core.watch.cpuview import landing
from tuitune.core.watch.rates import Rates


def busiest_cpus(irqs: tuple[NicIrq, ...], rates: Rates | None) -> dict[str, int]:
    """IRQ -> the CPU that took most of its interrupts over the window."""
    out = {}
    for q in irqs:
        shares = landing(rates.irqs.get(q.irq) if rates else None)
        if shares:
            out[q.irq] = shares[0].cpu
    return out


def nic_queue_rows(
    irqs: tuple[NicIrq, ...], qr: QueueRates, rates: Rates | None
) -> tuple[QueueRow, ...]:
    return queue_rows(qr, ((q.irq, q.kind, q.index) for q in irqs), busiest_cpus(irqs, rates))
