"""A sweep's pivot as an SVG chart for a report or a ticket: the screen's picture (one bar a
cell, its median; a whisker from the min to the max of its repeats; the change against the
first row, marked "noise" when the intervals overlap), drawn with plain SVG elements so any
browser or document tool shows it. Every text in it (labels from someone's spec, the source)
is escaped: a label cannot add markup or scripts.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from tuitune.core.sweep.pivot import Pivot

ROW = 22  # px a cell
LABEL = 260  # px for the cell's label
BAR = 420  # px for the longest whisker
VALUE = 260  # px for the numbers


def to_svg(p: Pivot) -> str:
    cells = [(r, c) for r in p.rows for c in p.columns]
    top = max((s.high for s in p.summaries.values()), default=0.0) or 1.0
    head = [f"sweep {p.sweep_id} ({p.spec.design}, {p.spec.repeats} repeat(s) a cell)"]
    if p.spec.source:
        head.append(f"source: {p.spec.source}")
    head.append(f"test: {p.test or '-'}; order: {p.order}")
    y0 = 18 * len(head) + 16
    width = LABEL + BAR + VALUE
    height = y0 + ROW * len(cells) + 34
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="monospace" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
    ]
    for i, line in enumerate(head):
        weight = ' font-weight="bold"' if i == 0 else ""
        out.append(f'<text x="8" y="{18 * (i + 1)}"{weight}>{escape(line)}</text>')

    def x(v: float) -> float:
        return LABEL + v / top * (BAR - 10)

    for i, (r, c) in enumerate(cells):
        y = y0 + i * ROW
        label = r if not c else f"{r}, {p.spec.columns} {c}"
        out.append(f'<text x="8" y="{y + 15}">{escape(label)}</text>')
        s = p.summaries.get((r, c))
        if s is None:
            out.append(f'<text x="{LABEL}" y="{y + 15}" fill="gray">not measured</text>')
            continue
        vs = p.versus(r, c)
        fill = "#4a7ab5" if vs is None or vs.within_noise else "#c0504d"
        out.append(
            f'<rect x="{LABEL}" y="{y + 4}" width="{x(s.median) - LABEL:.1f}" height="14" '
            f'fill="{fill}"><title>{escape(label)}</title></rect>'
        )
        mid = y + 11
        lo, hi = x(s.low), x(s.high)
        out.append(f'<line x1="{lo:.1f}" y1="{mid}" x2="{hi:.1f}" y2="{mid}" stroke="black"/>')
        for end in (lo, hi):
            out.append(
                f'<line x1="{end:.1f}" y1="{y + 6}" x2="{end:.1f}" y2="{y + 16}" stroke="black"/>'
            )
        value = f"{s.median / 1e6:.0f} Mb/s"
        if s.high > s.low:
            value += f" ({s.low / 1e6:.0f}..{s.high / 1e6:.0f})"
        if vs is not None and vs.pct is not None:
            value += f" {vs.pct:+.0f}%" + (" noise" if vs.within_noise else "")
        out.append(f'<text x="{LABEL + BAR}" y="{y + 15}">{escape(value)}</text>')
    note = (
        "bar: median; whisker: min..max of the repeats; red: outside the first row's noise "
        "(95 % intervals apart)"
    )
    out.append(f'<text x="8" y="{height - 12}" fill="gray">{escape(note)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


__all__ = ["to_svg"]
