"""A sweep's pivot as bars, for a terminal: one bar a cell (its median throughput) and the
noise as a whisker over it (min..max of the repeats), all on one scale so that cells compare
by length. Plain characters only; the screen colours them (core code draws no widgets).
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.sweep.pivot import Pivot


@dataclass(frozen=True, slots=True)
class Bar:
    label: str  # "tso off  mtu 1500"
    bar: str  # the drawn bar and whisker, `width` characters
    value: str  # "1738 Mb/s (1683..1794) -61%" or "-" / "running"
    within_noise: bool | None  # against the first row; None for the first row or unmeasured


GLYPHS = {False: ("█", "─", "┤", "├"), True: ("#", "-", "|", "|")}


def bars(p: Pivot, width: int, ascii_only: bool = False) -> list[Bar]:
    """Every cell of the pivot in the table's order, bars scaled to the largest maximum."""
    full, line, right, left = GLYPHS[ascii_only]
    top = max((s.high for s in p.summaries.values()), default=0.0)
    width = max(4, width)
    out = []
    for r in p.rows:
        for c in p.columns:
            label = r if not c else f"{r}  {p.spec.columns} {c}"
            s = p.summaries.get((r, c))
            if s is None or top <= 0:
                out.append(Bar(label, " " * width, "-", None))
                continue

            def at(v: float) -> int:
                return min(width - 1, round(v / top * (width - 1)))

            cells = [" "] * width
            med, lo, hi = at(s.median), at(s.low), at(s.high)
            for i in range(med):
                cells[i] = full
            for i in range(lo, hi + 1):
                if i >= med:
                    cells[i] = line
            if hi > lo:
                cells[lo], cells[hi] = left, right
            vs = p.versus(r, c)
            value = f"{s.median / 1e6:.0f} Mb/s"
            if s.high > s.low:
                value += f" ({s.low / 1e6:.0f}..{s.high / 1e6:.0f})"
            if vs is not None and vs.pct is not None:
                value += f" {vs.pct:+.0f}%" + (" noise" if vs.within_noise else "")
            out.append(Bar(label, "".join(cells), value, None if vs is None else vs.within_noise))
    return out
