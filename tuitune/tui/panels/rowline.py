"""One row of a RowView as a Strip: its cells cut or padded to their columns' widths.

A tick repaints the rows whose numbers changed (a CPU list's every row on a busy host), so
this is per cell per line: a plain cell that fits is padded in one string operation, and the
line's pieces of one style are joined as they come, not made into segments and merged after.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tuitune.core.text import escape_hidden

Span = tuple[str, Style | None]
# A callable cell is drawn at the width its column gets (bars scale to the space they have).
CellValue = str | tuple[Span, ...] | Callable[[int], tuple[Span, ...]]


@dataclass(frozen=True, slots=True)
class Column:
    title: str
    width: int
    right: bool = False  # numbers align right
    flex: bool = False  # takes the width left over (several flex columns share it)
    drop: int = 0  # when the panel is too narrow, columns with the highest `drop` go first
    clip: bool = False  # cut long cells silently (bars), instead of marking the cut with "~"


def cell_segments(
    cell: CellValue, width: int, right: bool, base: Style, clip: bool = False
) -> list[Segment]:
    """A cell cut or padded to exactly `width` characters."""
    if callable(cell):
        cell = cell(width)
    spans: tuple[Span, ...] = ((cell, None),) if isinstance(cell, str) else cell
    if not all(t.isprintable() for t, _ in spans):  # the last net for every panel's cells:
        spans = tuple((escape_hidden(t), s) for t, s in spans)  # a tree's text, escaped
    length = sum(len(t) for t, _ in spans)
    out: list[Segment] = []
    if length > width:
        # Cut from the right and mark it, so a cut value never reads as a whole one.
        room, cut = width - (0 if clip else 1), []
        for text, style in spans:
            if room <= 0:
                break
            cut.append((text[:room], style))
            room -= len(cut[-1][0])
        spans = (*cut, ("~", None)) if width > 0 and not clip else tuple(cut)
        length = width
    pad = Segment(" " * (width - length), base) if length < width else None
    if pad and right:
        out.append(pad)
    out.extend(Segment(t, base + s if s else base) for t, s in spans if t)
    if pad and not right:
        out.append(pad)
    return out


def row_strip(
    cells: Sequence[CellValue], layout: Sequence[tuple[int, Column, int]], width: int, base: Style
) -> Strip:
    """The line of a row's `cells` in `layout` (rowview.fit_columns), one space between the
    columns, exactly `width` cells wide. Neighbours of one style are one segment (a cell's
    padding, the space after it): every later step of a repaint (background, colour filter,
    crop, the compositor's cuts) is per segment."""
    out: list[Segment] = []
    texts: list[str] = []  # the pieces of the segment being made, all in style `style`
    style = base

    def put(text: str, st: Style) -> None:
        nonlocal texts, style
        if not text:
            return
        if st is not style and st != style:
            if texts:
                out.append(Segment("".join(texts), style))
            texts, style = [], st
        texts.append(text)

    ncells = len(cells)
    for n, (i, col, w) in enumerate(layout):
        if n:
            put(" ", base)
        cell = cells[i] if i < ncells else ""
        if isinstance(cell, str) and len(cell) <= w and cell.isprintable():
            put(cell.rjust(w) if col.right else cell.ljust(w), base)  # most cells: a number
            continue
        if isinstance(cell, tuple) and all(t.isprintable() for t, _ in cell):
            pad = w - sum(len(t) for t, _ in cell)
            if pad >= 0:  # it fits: a number in its heat colour
                if pad and col.right:
                    put(" " * pad, base)
                for t, s in cell:
                    put(t, base + s if s else base)
                if pad and not col.right:
                    put(" " * pad, base)
                continue
        for seg in cell_segments(cell, w, col.right, base, col.clip):
            put(seg.text, seg.style or base)
    if texts:
        out.append(Segment("".join(texts), style))
    length = sum(len(seg.text) for seg in out)
    if all(seg.text.isascii() for seg in out):
        # One cell a character: the length is known, and the pad or cut is made here.
        if length == width:
            return Strip(out, width)
        if length < width:
            return Strip(out, length).extend_cell_length(width, base)
    # Wide characters (a CJK name) take two cells: Textual measures and cuts them.
    return Strip(out).extend_cell_length(width, base).crop(0, width)
