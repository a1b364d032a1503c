"""Bars drawn (core/sweep/chart.py) as Rich text: the label, the bar and whisker, the numbers,
fitted to the width, shared by the sweep screen and the runs screen's chart."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.cells import cell_len, set_cell_size
from rich.text import Text

from tuitune.core.sweep.chart import Bar
from tuitune.tui.look.look import Look

NOTE = "bars: median; whiskers: min..max of the repeats; noise: 95 % intervals overlap\n"


def bars_text(draw: Callable[[int, bool], Sequence[Bar]], width: int, look: Look) -> Text:
    """`draw(bar_width, ascii)` laid out in `width` columns: bars take what the labels and the
    numbers leave (each at most a third and a half of it). Widths are terminal cells (rich.cells),
    not characters: a label with wide characters (a value typed in a sweep spec, a run's note)
    takes two cells for each, and len() would push its bar out of line."""
    width = max(20, width)
    probe = draw(1, look.ascii)
    label_w = min(max((cell_len(b.label) for b in probe), default=8), width // 3)
    value_w = min(max((cell_len(b.value) for b in probe), default=4), width // 2)
    bar_w = max(6, width - label_w - value_w - 4)
    text = Text()
    for b in draw(bar_w, look.ascii):
        text.append(set_cell_size(b.label, label_w) + "  ")
        text.append(b.bar, style="green" if b.value != "-" else "")
        text.append("  " + b.value[:value_w], style="bold" if b.within_noise is False else "")
        text.append("\n")
    return text
