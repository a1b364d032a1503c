"""`tuitune show`: the per-queue table (a queue, its IRQ, its CPU, its rates: one row)."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from tuitune.core.host.queuestats import QueueRates
from tuitune.core.queueview import nic_queue_rows
from tuitune.core.rates import Rates
from tuitune.core.snapshot import NicState
from tuitune.core.units import rate, size


def _r(x: float | None) -> str:
    return "-" if x is None else rate(x, whole=True)


def _b(x: float | None) -> str:
    return "-" if x is None else size(x)


def queues_table(nic: NicState, qr: QueueRates, rates: Rates | None) -> Table | Text:
    """Per-queue rates; a driver whose names no scheme knows gets its raw rises instead."""
    rows = nic_queue_rows(nic.irqs, qr, rates)
    if not rows:
        if qr.unknown:
            shown = ", ".join(f"{k} +{v}" for k, v in list(qr.unknown.items())[:12])
            return Text(
                f"per-queue counters: {nic.driver_name}'s ethtool -S names are not known here; "
                f"what rose in {qr.seconds:.1f} s: {shown}",
                style="dim",
            )
        return Text("per-queue counters: none in ethtool -S", style="dim italic")
    t = Table(
        title=f"queues of {nic.link.ifname} ({qr.source}, per second over {qr.seconds:.1f} s)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for c in ("queue", "irq", "cpu", "rx pkt", "rx B", "tx pkt", "tx B", "drops", "errors"):
        t.add_column(c, justify="left" if c in ("queue", "irq") else "right")
    for r in rows:
        t.add_row(
            str(r.queue),
            "/".join(r.irqs) or "-",
            "-" if r.cpu is None else str(r.cpu),
            _r(r.rx.get("packets")),
            _b(r.rx.get("bytes")),
            _r(r.tx.get("packets")),
            _b(r.tx.get("bytes")),
            _r(r.drops),
            _r(r.errors),
            style="red" if r.drops > 0 else None,
        )
    if qr.nic_drops:
        t.caption = "NIC-wide drops/s: " + ", ".join(
            f"{k} {_r(v)}" for k, v in qr.nic_drops.items()
        )
    return t
