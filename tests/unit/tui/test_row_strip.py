"""A row's line made in one pass (rowline.row_strip, issue 38) shows what the cells cut or
padded one by one, merged and cut to the width show: the same characters in the same styles,
in no more segments (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from tuitune.tui.panels.rowline import cell_segments, row_strip
from tuitune.tui.panels.rowview import CellValue, Column, fit_columns

BASE = Style(color="white")
STYLES = st.sampled_from([None, Style(color="red"), Style(bold=True), Style(color="white")])
TEXT = st.text(st.sampled_from("ab 0.9~\t\x1b漢é"), max_size=8)


def _bar(width: int) -> tuple[tuple[str, Style | None], ...]:
    return (("u" * (width // 2), Style(color="red")), ("." * (width - width // 2), None))


CELLS: st.SearchStrategy[CellValue] = st.one_of(
    TEXT,
    st.lists(st.tuples(TEXT, STYLES), max_size=3).map(tuple),
    st.just(_bar),
)
COLUMNS = st.builds(
    Column,
    title=st.just("c"),
    width=st.integers(0, 7),
    right=st.booleans(),
    flex=st.booleans(),
    drop=st.integers(0, 2),
    clip=st.booleans(),
)


def reference(cells: list[CellValue], columns: list[Column], width: int, base: Style) -> Strip:
    """Every cell cut or padded on its own, then neighbours of one style merged (as before)."""
    segs: list[Segment] = []
    for n, (i, col, w) in enumerate(fit_columns(columns, width)):
        if n:
            segs.append(Segment(" ", base))
        cell = cells[i] if i < len(cells) else ""
        segs.extend(cell_segments(cell, w, col.right, base, col.clip))
    return Strip(list(Segment.simplify(segs))).extend_cell_length(width, base).crop(0, width)


def seen(strip: Strip) -> list[tuple[str, Style | None]]:
    return [(ch, seg.style) for seg in strip for ch in seg.text]


@settings(deadline=None, max_examples=400)  # a loaded machine is slow, not wrong
@given(st.lists(CELLS, max_size=6), st.lists(COLUMNS, min_size=1, max_size=6), st.integers(0, 40))
def test_a_row_line_shows_what_its_cells_drawn_one_by_one_show(
    cells: list[CellValue], columns: list[Column], width: int
) -> None:
    want = reference(cells, columns, width, BASE)
    got = row_strip(cells, fit_columns(columns, width), width, BASE)
    assert seen(got) == seen(want)
    assert got.cell_length == want.cell_length == width
    assert len(list(got)) <= len(list(want))
