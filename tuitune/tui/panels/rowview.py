"""A table drawn line by line: one Strip per visible row, rows kept by stable key.

Every panel (CPU grid, IRQs, NIC, sysctls) is one of these. Drawing by hand instead of a widget
per cell keeps a 256-CPU repaint cheap (CRIB: 33 ms vs 800 ms), and keying rows lets the cursor
and scroll position survive a refresh that reorders or filters them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from tuitune.tui.look.palette import DEFAULT_PALETTE, Palette

# The cell types live with the line maker (rowline.py); the panels import them from here.
from tuitune.tui.panels.rowline import CellValue as CellValue
from tuitune.tui.panels.rowline import Column as Column
from tuitune.tui.panels.rowline import Span as Span
from tuitune.tui.panels.rowline import cell_segments, row_strip


class LazyCells(Protocol):
    """A row's cells made only when something reads them (a big host's CPU list draws ~50
    of 1152 rows): equal to another when the cells would be, so a refresh still finds the
    rows that changed without making them."""

    def cells(self) -> tuple[CellValue, ...]: ...


@dataclass(frozen=True, slots=True)
class Row:
    key: str
    cells: tuple[CellValue, ...]  # empty when `lazy` makes them: read `values`
    style: Style | None = None
    section: bool = False  # a heading line across the whole width: cells[0] is its text
    search: str = ""  # what `/` matches; empty: the plain text of the cells
    wide: bool = False  # one cell across the whole width ("coalesce: not supported by veth")
    # Shown and filtered like any row, but the cursor passes over it as over a heading: a
    # summary line (the offloads at a glance) explains nothing of its own and changes nothing.
    inert: bool = False
    lazy: LazyCells | None = None
    # More of `search`, made only when `/` filters (the IRQ panel's landing CPUs: 1000 IRQs
    # x up to 1152 CPUs on a big host): not compared, the cells show what it is made from.
    search_more: Callable[[], str] | None = field(default=None, compare=False)

    @property
    def values(self) -> tuple[CellValue, ...]:
        """The cells, made now when they are lazy."""
        return self.cells if self.lazy is None else self.lazy.cells()

    @property
    def skipped(self) -> bool:
        return self.section or self.inert

    def text(self) -> str:
        text = self.search or " ".join(plain_text(c) for c in self.values)
        return f"{text} {self.search_more()}" if self.search_more is not None else text


def plain_text(cell: CellValue) -> str:
    """A cell's text without styles (bars drawn to fit have none to read)."""
    if callable(cell):
        return ""
    return cell if isinstance(cell, str) else "".join(t for t, _ in cell)


def changed_lines(before: Sequence[Row], after: Sequence[Row], top: int, height: int) -> list[int]:
    """The widget's lines (line 0 is the title) whose row differs between `before` and
    `after` (the same keys), with `top` the first row scrolled to and `height` lines shown:
    only the rows in sight are compared (a 1152-CPU list shows ~25 of them)."""
    first, end = max(0, top), min(len(after), top + height - 1)
    return [i + 1 - top for i in range(first, end) if before[i] != after[i]]


def fit_columns(columns: Sequence[Column], width: int) -> list[tuple[int, Column, int]]:
    """(index, column, width) of the columns that fit in `width`, one space between them."""
    shown = list(enumerate(columns))
    while shown:
        fixed = sum(c.width for _, c in shown) + len(shown) - 1
        if fixed <= width or len(shown) == 1:
            break
        droppable = [ic for ic in shown if ic[1].drop > 0]
        if not droppable:
            break
        worst = max(droppable, key=lambda ic: (ic[1].drop, ic[0]))
        shown.remove(worst)
    fixed = sum(c.width for _, c in shown) + max(0, len(shown) - 1)
    spare = max(0, width - fixed)
    flex = [i for i, c in shown if c.flex]
    out = []
    for i, c in shown:
        w = c.width
        if flex and i in flex:
            share, extra = divmod(spare, len(flex))
            w += share + (1 if flex.index(i) < extra else 0)
        out.append((i, c, w))
    return out


class RowView(ScrollView, can_focus=True):
    """A keyed, filterable, scrollable table with a cursor row and a fixed title line."""

    DEFAULT_CSS = """
    RowView { height: 1fr; overflow-x: hidden; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
    ]

    class CursorMoved(Message):
        def __init__(self, view: RowView, key: str | None) -> None:
            super().__init__()
            self.view = view
            self.key = key

    class LaidOut(Message):
        """The list has its width for the first time: rows built before it were built for a
        guessed width (a sample can reach the screen before its first layout under load)."""

        def __init__(self, view: RowView) -> None:
            super().__init__()
            self.view = view

    def __init__(self, columns: Sequence[Column] = (), *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.columns: list[Column] = list(columns)
        self.rows: list[Row] = []
        self.shown: list[Row] = []
        self.filter = ""
        self.cursor = 0
        self._cursor_key: str | None = None
        self._layout: list[tuple[int, Column, int]] = []
        self._layout_width = -1
        self._empty_text = "nothing to show"
        self._base = Style()
        self._width = 1  # the content width, worked out once per paint (render_lines)
        self._laid_out = False

    # -- data ------------------------------------------------------------------------------
    @property
    def empty_text(self) -> str:
        return self._empty_text

    @empty_text.setter
    def empty_text(self, text: str) -> None:
        # set_rows skips a repaint when the rows stay the same (no rows stay no rows), so a
        # new empty text has to ask for its own, or "reading..." outlives the first sample.
        if text != self._empty_text:
            self._empty_text = text
            if not self.shown:
                self.refresh()

    @property
    def palette(self) -> Palette:
        return getattr(self.app, "palette", DEFAULT_PALETTE)

    @property
    def cursor_key(self) -> str | None:
        return self._cursor_key

    @property
    def cursor_row(self) -> Row | None:
        if 0 <= self.cursor < len(self.shown):
            return self.shown[self.cursor]
        return None

    def set_columns(self, columns: Sequence[Column]) -> None:
        if list(columns) != self.columns:
            self.columns = list(columns)
            self._layout_width = -1
            self.refresh()

    def set_rows(self, rows: Sequence[Row]) -> None:
        rows = list(rows)
        if rows == self.rows:
            return  # the same rows (NIC and sysctl panels, mostly): no repaint
        self.rows = rows
        self._apply_filter(new_values_only=True)

    def set_filter(self, text: str) -> None:
        self.filter = text.strip().lower()
        self._apply_filter()

    def _apply_filter(self, new_values_only: bool = False) -> None:
        want = self.filter
        if not want:
            visible = self.rows
        else:
            visible, heading = [], None
            for row in self.rows:
                if row.section:
                    heading = row
                elif want in row.text().lower():
                    if heading is not None:
                        visible.append(heading)
                        heading = None
                    visible.append(row)
        before, self.shown = self.shown, list(visible)
        if new_values_only and before and [r.key for r in before] == [r.key for r in self.shown]:
            # The same rows with new values (every tick): repaint only the lines that changed,
            # so the terminal gets a few changed cells, not the whole panel. One refresh for
            # them all: each refresh call posts a message and clears the widget's caches.
            # Rows scrolled out of sight are drawn afresh when a scroll brings them in.
            size = self.size  # looked up in the compositor's map at each ask: once
            width = max(self.virtual_size.width, size.width)
            top, height = self.scroll_offset.y, size.height
            changed = [
                Region(0, y, width, 1) for y in changed_lines(before, self.shown, top, height)
            ]
            if changed:
                self.refresh(*changed)
            return
        self._restore_cursor()
        # Rows came or went above the cursor: keep it on screen once the new size is known.
        self.call_after_refresh(self._scroll_to_cursor)
        self.virtual_size = Size(self._content_width(), len(self.shown) + 1)
        self.refresh()

    def _restore_cursor(self) -> None:
        keys = [r.key for r in self.shown]
        if self._cursor_key in keys:
            self.cursor = keys.index(self._cursor_key)
        else:
            self.cursor = min(self.cursor, max(0, len(keys) - 1))
            self._skip_sections(1)
        self._set_cursor_key()

    def _skip_sections(self, step: int) -> None:
        n = len(self.shown)
        i = self.cursor
        while 0 <= i < n and self.shown[i].skipped:
            i += step
        if not 0 <= i < n:  # only headings that way: look the other way
            i = self.cursor
            while 0 <= i < n and self.shown[i].skipped:
                i -= step
        self.cursor = max(0, min(i, n - 1))

    def _set_cursor_key(self) -> None:
        row = self.cursor_row
        key = row.key if row is not None else None
        if key != self._cursor_key:
            self._cursor_key = key
            self.post_message(self.CursorMoved(self, key))

    def move_cursor_to(self, key: str) -> bool:
        for i, row in enumerate(self.shown):
            if row.key == key:
                self.cursor = i
                self._set_cursor_key()
                self._scroll_to_cursor()
                self.refresh()
                return True
        return False

    # -- actions -----------------------------------------------------------------------------
    def _page_rows(self) -> int:
        return max(1, self.scrollable_content_region.height - 1)

    def action_cursor(self, step: int) -> None:
        if not self.shown:
            return
        old = self.cursor
        self.cursor = max(0, min(self.cursor + step, len(self.shown) - 1))
        self._skip_sections(1 if step > 0 else -1)
        self._set_cursor_key()
        if self._scroll_to_cursor():
            self.refresh()  # every line moved
        else:
            self._refresh_rows(old, self.cursor)

    def _refresh_rows(self, *indices: int) -> None:
        """Repaint these rows' lines, those in sight: a cursor step changes two lines of the
        list, and repainting all of them was most of a key's own drawing."""
        width = max(self.virtual_size.width, self.size.width)
        top, height = int(self.scroll_y), self.size.height
        lines = {y for i in indices if 1 <= (y := i + 1 - top) < height}
        if lines:
            self.refresh(*(Region(0, y, width, 1) for y in sorted(lines)))

    def action_page(self, direction: int) -> None:
        self.action_cursor(direction * self._page_rows())

    def action_edge(self, end: int) -> None:
        self.action_cursor(len(self.shown) if end else -len(self.shown))
        if not end:
            self.scroll_to(y=0, animate=False)  # the first heading too, not just the first row

    def _scroll_to_cursor(self) -> bool:
        """Scroll so the cursor's row is in sight; whether that scrolls."""
        rows = self._page_rows()
        top = int(self.scroll_y)
        if self.cursor < top:
            top = self.cursor
        elif self.cursor >= top + rows:
            top = self.cursor - rows + 1
        if top != int(self.scroll_y):
            self.scroll_to(y=top, animate=False)
            return True
        return False

    def on_click(self, event: Click) -> None:
        index = self.row_at(event.y)
        if index is not None and not self.shown[index].skipped:
            self.cursor = index
            self._set_cursor_key()
            self.refresh()

    def row_at(self, y: int) -> int | None:
        """The visible row drawn at widget line y (0 is the title line)."""
        index = int(self.scroll_y) + y - 1
        if y >= 1 and 0 <= index < len(self.shown):
            return index
        return None

    # -- drawing -------------------------------------------------------------------------------
    def _content_width(self) -> int:
        return max(1, self.scrollable_content_region.width)

    def on_resize(self) -> None:
        if not self._laid_out and self.size.width > 0:
            self._laid_out = True
            self.post_message(self.LaidOut(self))
        self._layout_width = -1
        self.virtual_size = Size(self._content_width(), len(self.shown) + 1)
        self._scroll_to_cursor()

    def layout_for(self, width: int) -> list[tuple[int, Column, int]]:
        if width != self._layout_width:
            self._layout = fit_columns(self.columns, width)
            self._layout_width = width
        return self._layout

    def render_lines(self, crop: Region) -> list[Strip]:
        # The widget's base style walks every ancestor's styles, and the content region is
        # computed afresh at each ask: work both out once per paint, not once per line.
        self._base = self.rich_style
        self._width = self._content_width()
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        width = self._width
        base = self._base
        if y == 0:
            return self._title_strip(width, base)
        index = int(self.scroll_y) + y - 1
        if index >= len(self.shown):
            if index == 0 and y == 1:
                text = self.empty_text if not self.filter else f"no row matches '{self.filter}'"
                return Strip(cell_segments(((text, self.palette.muted),), width, False, base))
            return Strip([Segment(" " * width, base)], width)
        row = self.shown[index]
        style = base + row.style if row.style else base
        if index == self.cursor and not row.section:
            style += Style(reverse=True) if self.has_focus else Style(underline=True)
        return self.render_row(row, width, style)

    def _title_strip(self, width: int, base: Style) -> Strip:
        style = base + self.palette.header
        segs: list[Segment] = []
        for n, (_, col, w) in enumerate(self.layout_for(width)):
            if n:
                segs.append(Segment(" ", style))
            segs.extend(cell_segments(col.title, w, col.right, style))
        return Strip(segs).extend_cell_length(width, style).crop(0, width)

    def render_row(self, row: Row, width: int, style: Style) -> Strip:
        cells = row.values
        if row.section:
            segs = cell_segments(cells[0], width, False, style + self.palette.section)
            return Strip(segs, width)
        if row.wide:
            return Strip(cell_segments(cells[0], width, False, style), width)
        return row_strip(cells, self.layout_for(width), width, style)


@dataclass
class RowsBuilder:
    """Collects rows for a panel; `section` starts a heading."""

    rows: list[Row] = field(default_factory=list)

    def section(self, key: str, text: CellValue) -> None:
        self.rows.append(Row(f"§{key}", (text,), section=True))

    def add(
        self,
        key: str,
        *cells: CellValue,
        style: Style | None = None,
        search: str = "",
        wide: bool = False,
        inert: bool = False,
        search_more: Callable[[], str] | None = None,
    ) -> None:
        self.rows.append(
            Row(
                key,
                tuple(cells),
                style=style,
                search=search,
                wide=wide,
                inert=inert,
                search_more=search_more,
            )
        )
