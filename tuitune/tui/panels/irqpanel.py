"""Rows of the IRQ panel: one per queue IRQ of the NIC (or every IRQ of the host), with its
rate, where it lands per CPU, and where it is allowed to land (smp_affinity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import NamedTuple

from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.interrupts import Interrupts
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.queuestats import Direction, Measure, QueueRates
from tuitune.core.text import printable
from tuitune.core.units import rate, size
from tuitune.core.values import Unavailable
from tuitune.core.watch.cpuview import Share, affinity_pending, landing, landing_text
from tuitune.core.watch.rates import IrqRate, Rates
from tuitune.tui.look.glyphs import Glyphs
from tuitune.tui.look.palette import Palette, heat_level
from tuitune.tui.panels.rowview import CellValue, Column, Row, RowsBuilder, Span

# Queue kinds as drivers name them: a "combined" vector serves an rx and a tx ring (TxRx).
KIND_LABELS = {"combined": "TxRx", "rx": "rx", "tx": "tx", "misc": "misc"}


@dataclass(frozen=True, slots=True)
class IrqData:
    nic_irqs: tuple[NicIrq, ...]
    affinity: dict[str, IrqAffinity]
    interrupts: Interrupts | None  # the last sample: names of every IRQ for the "all" view
    rates: Rates | None  # per-second rates to show (tick, or since the baseline)
    baseline: bool  # rates are averages since the baseline: show counts too
    cpus: Sequence[int]  # CPU order of the strip
    show_all: bool
    queues: QueueRates | None = None  # per-queue rates from ethtool -S (None: not read)
    ifname: str | None = None  # the NIC whose IRQs nic_irqs are: `/` finds them by its name


def irq_columns(
    strip_width: int, baseline: bool, show_all: bool = False, queues: bool = False
) -> list[Column]:
    # A queue's own rates (ethtool -S) beside its IRQ: packets stay at 80 columns; drops and
    # bytes come with width (the highest `drop` goes first).
    per_queue = (
        [
            Column("pkt/s", 6, right=True, drop=1),
            Column("drop/s", 6, right=True, drop=3),
            Column("B/s", 8, right=True, drop=5),
        ]
        if queues
        else []
    )
    return [
        # The host's IRQs are named by their description ("Non-maskable interrupts").
        Column("name" if show_all else "queue", 24 if show_all else 10),
        Column("IRQ", 5, right=True),
        Column("avg/s" if baseline else "rate/s", 7 if show_all else 6, right=True),
        *([Column("count", 7, right=True, drop=2)] if baseline else []),
        *per_queue,
        Column("where it lands (per CPU)", max(12, strip_width), flex=True),
        Column("affinity", 9, drop=1),
        Column("effective", 9, drop=3),
        Column("node", 4, right=True, drop=4),
    ]


def _cpus(value: frozenset[int] | Unavailable | None) -> str:
    if value is None:
        return "-"
    if isinstance(value, Unavailable):
        return "locked" if value.kind == "permission" else "?"
    return format_cpulist(value) or "none"


def land_strip(r: IrqRate | None, cpus: Sequence[int], g: Glyphs, p: Palette) -> tuple[Span, ...]:
    """One character per CPU, the share of this IRQ's interrupts each took."""
    if r is None or r.total <= 0:
        return (("." * len(cpus), p.heat[0]),)
    # Neighbours of one style are one span: an IRQ mostly idle on a big host is a few spans,
    # not one per CPU, and each span is a segment to style and filter at every repaint.
    out: list[Span] = []
    text: list[str] = []
    style = p.heat[0]
    for cpu in cpus:
        share = r.per_cpu.get(cpu, 0.0) / r.total
        if share <= 0:
            ch, st = ".", p.heat[0]
        else:
            ch = g.heat[max(1, min(len(g.heat) - 1, round(share * (len(g.heat) - 1))))]
            st = p.heat[heat_level(share * 100)]
        if st != style and text:
            out.append(("".join(text), style))
            text = []
        text.append(ch)
        style = st
    if text:
        out.append(("".join(text), style))
    return tuple(out)


def busiest_text(shares: Sequence[Share], p: Palette, width: int) -> tuple[Span, ...]:
    """The CPUs that take this IRQ, named with their share ("cpu12 71%, cpu13 29%"), as
    many as `width` holds: a strip cell alone does not say which CPU it is."""
    if not shares:
        return (("idle", p.heat[0]),)
    spans: list[Span] = []
    used = 0
    for n, s in enumerate(shares):
        text = ("" if n == 0 else ", ") + f"cpu{s.cpu} {s.percent:.0f}%"
        more = f", {len(shares) - n} more"
        last = n == len(shares) - 1
        if n and used + len(text) + (0 if last else len(more)) > width:
            spans.append((more, p.muted))
            break
        spans.append((text, p.heat[heat_level(s.percent)]))
        used += len(text)
    return tuple(spans)


def land_cell(
    r: IrqRate | None, cpus: Sequence[int], g: Glyphs, p: Palette, strip: bool
) -> CellValue:
    """The strip (one cell per CPU, when they fit) followed by the busiest CPUs by number,
    drawn to the width the column gets."""
    shares = landing(r)

    def draw(width: int) -> tuple[Span, ...]:
        if strip and len(cpus) + 1 + 12 <= width:
            spans = land_strip(r, cpus, g, p)
            return (*spans, (" ", None), *busiest_text(shares, p, width - len(cpus) - 1))
        return busiest_text(shares, p, width)

    return draw


def queue_cells(qr: QueueRates, q: NicIrq | None, p: Palette) -> list[CellValue]:
    """pkt/s, drop/s, B/s of the queue(s) an IRQ serves: a TxRx vector both of its rings."""
    serves: dict[str, tuple[Direction, ...]] = {
        "rx": ("rx",),
        "tx": ("tx",),
        "combined": ("rx", "tx"),
    }
    dirs = serves.get(q.kind, ()) if q else ()
    got = [qr.of(d, q.index) for d in dirs] if q is not None and q.index is not None else []
    found = [r for r in got if r is not None]
    if not found:
        return ["-", "-", "-"]

    def total(m: Measure) -> float | None:
        vals = [r.per_s[m] for r in found if m in r.per_s]
        return sum(vals) if vals else None

    pkts, drops, nbytes = total("packets"), total("drops"), total("bytes")
    return [
        "-" if pkts is None else rate(pkts),
        "-" if drops is None else ((rate(drops), p.warn if drops > 0 else None),),
        "-" if nbytes is None else size(nbytes),
    ]


# The rows of the last tick by IRQ, with what each was made from; under CONTEXT, what every
# row was made with (columns, CPUs, look, view). irq_rows keeps a row whose inputs are equal.
IrqMemo = dict[str, tuple[object, Row]]
CONTEXT = ""  # no IRQ is called that


def _more(r: IrqRate | None, names: str) -> str:
    """What `/` finds a row by beyond what it shows: its NIC's name and queue names, its
    action names in full (a driver's or a tree's words), where it landed."""
    where = landing_text(landing(r))
    return f"{printable(names, 200)} {where}" if names else where


class _Look(NamedTuple):
    """What every row of one view is drawn with (its cells: IrqCells)."""

    cpus: tuple[int, ...]  # the strip's CPU order
    g: Glyphs
    p: Palette
    strip: bool  # the per-CPU strip fits
    show_all: bool
    baseline: bool
    interval: float


def _irq_cells(
    r: IrqRate | None,
    aff: IrqAffinity | None,
    irq: str,
    queue: str,
    is_nic: bool,
    more: tuple[CellValue, ...] | None,
    v: _Look,
) -> tuple[CellValue, ...]:
    """One IRQ's row: its name, number, rate (and count since the baseline), its queue's
    rates (`more`), where it lands, its affinity, effective CPUs and node."""
    p = v.p
    total = r.total if r else 0.0
    heat = p.heat[min(4, heat_level(total / 100))] if total else p.heat[0]
    cells: list[CellValue] = [
        ((queue, p.local) if is_nic and v.show_all else (queue, None),),
        printable(irq, 20),
        # Every row's rate is this tick's: the all view has /proc/interrupts read whole at
        # each tick (Sampler.set_all_irqs), the NIC view its IRQs' own files.
        ((rate(total), heat),),
    ]
    if v.baseline:
        cells.append(rate(total * v.interval))
    if more is not None:
        cells += more
    locked = aff is not None and (isinstance(aff.smp_affinity, Unavailable) or aff.managed)
    # NMI, LOC, TLB...: per-CPU sources of the kernel's own, no /proc/irq entry to set.
    settable = irq.isascii() and irq.isdigit()
    cells += [
        land_cell(r, v.cpus, v.g, p, v.strip),
        (
            (
                (_cpus(aff.smp_affinity) if aff else "-") if settable else "fixed",
                p.locked if locked or not settable else None,
            ),
        ),
        # Asked for, not yet followed: x86 moves an IRQ at its next interrupt.
        (("pending", p.warn),)
        if aff and affinity_pending(aff.smp_affinity, aff.effective)
        else (_cpus(aff.effective) if aff else "-"),
        str(aff.node) if aff and aff.node is not None else "-",
    ]
    return tuple(cells)


class IrqCells:
    """One IRQ's row cells, made when drawn (rowview.LazyCells): the all-IRQs view of a big
    host holds 1000 rows of which ~25 show, and making every row's cells at `a` was most of
    the key (and of the allocations that ran a young collection inside it). Equal when the
    cells would be: the same rate, affinity, names, queue rates and look."""

    __slots__ = ("_cells", "args")

    def __init__(
        self,
        r: IrqRate | None,
        aff: IrqAffinity | None,
        irq: str,
        queue: str,
        is_nic: bool,
        more: tuple[CellValue, ...] | None,
        look: _Look,
    ) -> None:
        # What differs most between two rows first: tuples compare item by item.
        self.args = (r, aff, irq, queue, is_nic, more, look)
        self._cells: tuple[CellValue, ...] | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IrqCells) and self.args == other.args

    __hash__ = None  # type: ignore[assignment]  # mutable cache: compared, never hashed

    def cells(self) -> tuple[CellValue, ...]:
        if self._cells is None:
            self._cells = _irq_cells(*self.args)
        return self._cells


def irq_rows(
    data: IrqData, strip_room: int, g: Glyphs, p: Palette, memo: IrqMemo | None = None
) -> tuple[list[Column], list[Row]]:
    """Rows for the panel; `strip_room` is the width the per-CPU column would get. With
    `memo` (irq_rows' own, from the tick before), a row whose IRQ's rate, affinity and name
    are those of the tick before is that tick's row: on a host of 1000 IRQs most are idle,
    and building each row (its landing text, its cells) was 40 % of the all-IRQs frame."""
    # The strip, a space, then at least the busiest CPU by number ("cpu12 100%").
    per_cpu_fits = len(data.cpus) + 13 <= strip_room
    qr = data.queues
    cols = irq_columns(
        len(data.cpus) + 13 if per_cpu_fits else 24, data.baseline, data.show_all, qr is not None
    )
    rates = data.rates
    interval = rates.interval if rates else 0.0
    b = RowsBuilder()
    nic = {q.irq: q for q in data.nic_irqs}

    def label(q: NicIrq) -> str:
        kind = KIND_LABELS.get(q.kind, q.kind)
        return kind if q.index is None else f"{kind} {q.index}"

    # The interval only shows in the count column (since the baseline): not compared without.
    look = _Look(
        tuple(data.cpus),
        g,
        p,
        per_cpu_fits,
        data.show_all,
        data.baseline,
        interval if data.baseline else 0.0,
    )
    ctx = (tuple(cols), look, data.ifname)
    before: IrqMemo = {}
    if memo is not None:
        if memo.get(CONTEXT, (None,))[0] == ctx:
            before = dict(memo)
        memo.clear()
        memo[CONTEXT] = (ctx, Row(CONTEXT, ()))

    def add(irq: str, queue: str, is_nic: bool, names: str = "") -> None:
        r = rates.irqs.get(irq) if rates else None
        aff = data.affinity.get(irq)
        # A NIC queue's row also shows its ring's rates (qr), new every tick: never kept.
        inputs = (queue, is_nic, r, aff, names) if qr is None or irq not in nic else None
        if memo is not None and inputs is not None:
            kept = before.get(irq)
            if kept is not None and kept[0] == inputs:
                memo[irq] = kept
                b.rows.append(kept[1])
                return
        _add(irq, queue, is_nic, r, aff, names)
        if memo is not None and inputs is not None:
            memo[irq] = (inputs, b.rows[-1])

    def _add(
        irq: str, queue: str, is_nic: bool, r: IrqRate | None, aff: IrqAffinity | None, names: str
    ) -> None:
        more = queue_cells(qr, nic.get(irq), p) if qr is not None else None
        # Where it landed, for `/`: made when filtering, not for each of 1000 rows a tick.
        b.rows.append(
            Row(
                f"irq:{irq}",
                (),
                search=f"{queue} irq{irq} {irq}",
                lazy=IrqCells(
                    r, aff, irq, queue, is_nic, None if more is None else tuple(more), look
                ),
                search_more=partial(_more, r, names),
            )
        )

    def names(q: NicIrq | None, action: str) -> str:
        # The NIC's name too: a virtio NIC's vectors are "virtio0-input.0", no "eth0" in them.
        own = f"{data.ifname} {q.name}" if q is not None and data.ifname else ""
        return f"{own} {action}".strip()

    if not data.show_all:
        for q in data.nic_irqs:
            add(q.irq, label(q), True, names(q, ""))
        return cols, b.rows
    if data.interrupts is not None:
        for row in data.interrupts.rows:
            found = nic.get(row.irq)
            name = label(found) if found is not None else (row.name or row.chip or row.irq)
            # The name cell is the queue's label for the NIC's own ("TxRx 3"), cut at 60.
            add(row.irq, printable(name, 60), found is not None, names(found, row.name))
    return cols, b.rows
