"""The sweep and runs charts line their bars up in terminal cells, wide characters included."""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

from tuitune.core.sweep.chart import Bar
from tuitune.tui.look.look import Look
from tuitune.tui.screens.bars import bars_text

LABELS = ("mtu 1500", "名前 9000", "ring 4096 🚀")  # CJK and an emoji: two cells each


def _draw(width: int, ascii_only: bool) -> Sequence[Bar]:
    return [Bar(label, "#" * width, "1 Gb/s", None) for label in LABELS]


def test_every_bar_starts_in_the_same_column() -> None:
    lines = bars_text(_draw, 60, Look()).plain.splitlines()
    starts = {cell_len(line[: line.index("#")]) for line in lines}
    assert len(starts) == 1, lines
    assert all(cell_len(line) <= 60 for line in lines)
