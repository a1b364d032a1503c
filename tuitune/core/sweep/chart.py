"""Bars for a terminal: one bar a cell (its median throughput) and the noise as a whisker over
it (min..max of the repeats), all on one scale so that cells compare by length. For a sweep's
pivot (the sweep screen) and the notebook's runs (the runs screen's chart). Plain characters
only; the screen colours them (core code draws no widgets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tuitune.core.bench.runtable import RunRow
from tuitune.core.sweep.pivot import Pivot


@dataclass(frozen=True, slots=True)
class Bar:
    label: str  # "tso off  mtu 1500"
    bar: str  # the drawn bar and whisker, `width` characters
    value: str  # "1738 Mb/s (1683..1794) -61%" or "-" / "running"
    within_noise: bool | None  # against the first row; None for the first row or unmeasured


@dataclass(frozen=True, slots=True)
class Item:
    """One bar's numbers (bits/s): its median and range, its change against the baseline."""

    label: str
    median: float | None
    low: float | None = None
    high: float | None = None
    pct: float | None = None
    within_noise: bool | None = None
    note: str = ""  # said instead of the change ("test differs")


GLYPHS = {False: ("█", "─", "┤", "├"), True: ("#", "-", "|", "|")}


def mbps(value: float) -> str:
    return f"{value / 1e6:.0f}"


def draw(
    items: Sequence[Item],
    width: int,
    ascii_only: bool = False,
    fmt: Callable[[float], str] = mbps,
    unit: str = "Mb/s",
) -> list[Bar]:
    """Each item as a bar of `width` characters, scaled to the largest maximum; `fmt` and
    `unit` write its numbers (bits/s as Mb/s unless told)."""
    full, line, right, left = GLYPHS[ascii_only]
    top = max((i.high or i.median or 0.0 for i in items), default=0.0)
    width = max(4, width)
    out = []
    for item in items:
        if item.median is None or top <= 0:
            out.append(Bar(item.label, " " * width, "-", None))
            continue
        low = item.median if item.low is None else item.low
        high = item.median if item.high is None else item.high

        def at(v: float) -> int:
            return min(width - 1, round(v / top * (width - 1)))

        cells = [" "] * width
        med, lo, hi = at(item.median), at(low), at(high)
        for i in range(med):
            cells[i] = full
        for i in range(lo, hi + 1):
            if i >= med:
                cells[i] = line
        if hi > lo:
            cells[lo], cells[hi] = left, right
        value = f"{fmt(item.median)} {unit}"
        if high > low:
            value += f" ({fmt(low)}..{fmt(high)})"
        if item.note:
            value += f" {item.note}"
        elif item.pct is not None:
            value += f" {item.pct:+.0f}%" + (" noise" if item.within_noise else "")
        out.append(Bar(item.label, "".join(cells), value, item.within_noise))
    return out


def bars(p: Pivot, width: int, ascii_only: bool = False) -> list[Bar]:
    """Every cell of the pivot in the table's order."""
    items = []
    for r in p.rows:
        for c in p.columns:
            label = r if not c else f"{r}  {p.spec.columns} {c}"
            s = p.summaries.get((r, c))
            if s is None:
                items.append(Item(label, None))
                continue
            vs = p.versus(r, c)
            pct = None if vs is None else vs.pct
            noise = None if vs is None else vs.within_noise
            items.append(Item(label, s.median, s.low, s.high, pct, noise))
    return draw(items, width, ascii_only)


def run_bars(rows: Sequence[RunRow], width: int, ascii_only: bool = False) -> list[Bar]:
    """The notebook's runs (one bar a group of repeats) against the baseline run."""
    items = []
    for r in rows:
        label = f"{r.group} {'baseline' if r.baseline else r.changes or 'same settings'}"
        tp = r.throughput
        note = "test differs" if r.test_differs else ""
        pct = None if r.baseline else r.d_throughput
        items.append(Item(label, tp.median, tp.low, tp.high, pct, None, note))
    return draw(items, width, ascii_only)
