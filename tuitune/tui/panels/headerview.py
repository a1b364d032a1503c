"""The header's widget: a Static whose lines are drawn one by one and kept, so that a tick that
changes one line (the rates) re-renders that line only, and repaints from that row down; the
text is not set again when it did not change, and a new layout is asked for only when the
height changed."""

from __future__ import annotations

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region
from textual.strip import Strip
from textual.style import Style as VisualStyle
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

# A line of the header by its text and styles: the key of the strips it was drawn as.
LineKey = tuple[str, tuple[tuple[int, int, str | Style], ...]]


def _key(line: Text) -> LineKey:
    return line.plain, tuple((s.start, s.end, s.style) for s in line.spans)


class HeaderView(Static):
    def __init__(self) -> None:
        super().__init__("", id="header", markup=False)
        self._shown: Text | None = None
        self._height = -1
        self._lines: list[Text] = []
        self._keys: list[LineKey] = []  # each line's, worked out once per new text
        self._strips: dict[LineKey, list[Strip]] = {}  # the lines shown now, drawn
        self._drawn_for: tuple[int, VisualStyle] | None = None  # (width, style) of _strips
        self._visual: tuple[Text | None, Visual] | None = None  # Static's, made when asked
        # (width, rows): the most rows the header took at this width. It never takes fewer
        # until the width changes, so a line that wraps at one tick and not the next (rates,
        # a warning that comes and goes) does not move the panels below (issue 31 item 15).
        self._floor = (0, 0)

    @property
    def visual(self) -> Visual:
        # Static's visual of the whole text, for what still asks for it (a text selection,
        # Textual's height for `height: auto`): made when asked, not at every tick's show.
        if self._visual is None or self._visual[0] is not self._shown:
            shown = self._shown if self._shown is not None else ""
            self._visual = (self._shown, visualize(self, shown, markup=False))
        return self._visual[1]

    def show(self, text: Text) -> None:
        # Rich Text compares by plain text and spans (styles included): an unchanged header
        # (an idle host at 1 Hz, a paused screen) costs no new Content and no repaint.
        if text == self._shown and self._height >= 0:
            return
        # A new layout costs more than the rest of a frame: ask for one only when the
        # header's height changes.
        # The widget's size is looked up in the compositor's map at each ask: once here.
        size = self.size
        width = max(1, size.width - 2)
        height = sum(max(1, -(-len(line) // width)) for line in text.plain.split("\n"))
        if self._floor[0] != width:
            self._floor = (width, 0)
        if height > self._floor[1]:
            self._floor = (width, height)
            self.styles.min_height = height
        lines = list(text.split("\n", allow_blank=True))
        keys = [_key(line) for line in lines]
        first = self._first_changed_row(keys, size.width) if height == self._height else None
        keep = set(keys)
        self._strips = {k: v for k, v in self._strips.items() if k in keep}
        self._lines, self._keys = lines, keys
        if first is None:
            self.update(text, layout=height != self._height)
        else:
            # The same height and the rows above `first` the same (a tick's new rates): repaint
            # from there down only, and leave the whole text's Content to `visual`.
            self.refresh(Region(0, first, size.width, size.height - first))
        self._shown, self._height = text, height

    def _first_changed_row(self, keys: list[LineKey], width: int) -> int | None:
        """The widget row where the lines of `keys` first differ from what is drawn; None
        when that is not known (not drawn yet, resized, another number of lines)."""
        if self._drawn_for is None or self._drawn_for[0] != width:
            return None
        if len(keys) != len(self._keys):
            return None
        row = 0
        for key, new in zip(self._keys, keys, strict=True):
            if key != new:
                return row
            strips = self._strips.get(key)
            if strips is None:
                return None
            row += len(strips)
        return None

    def render_line(self, y: int) -> Strip:
        if self._shown is None or self.text_selection is not None:
            return super().render_line(y)
        width, style = self.size.width, self.visual_style
        if self._drawn_for != (width, style):  # resized, or a new theme
            self._strips, self._drawn_for = {}, (width, style)
        at = 0
        for line, key in zip(self._lines, self._keys, strict=True):
            strips = self._strips.get(key)
            if strips is None:
                strips = self._strips[key] = draw_line(self, line, width, style)
            if y < at + len(strips):
                return strips[y - at]
            at += len(strips)
        return Strip.blank(width, style.rich_style)


def draw_line(widget: Widget, line: Text, width: int, style: VisualStyle) -> list[Strip]:
    """One header line as Static would draw it (each line wraps alone). A line of ASCII that
    fits is drawn by Rich directly, a fifth of the time of Textual's Content path for the
    same cells and styles, the selection offsets included (tests/unit/tui/test_headerview.py
    holds the two equal); anything else (empty, wrapping, not ASCII) takes Textual's path."""
    plain = line.plain
    if not plain or line.cell_len > width or not plain.isascii() or "\t" in plain:
        visual = visualize(widget, line, markup=False)
        return Visual.to_strips(widget, visual, width, None, style)
    base = style.rich_style
    segments = []
    x = 0
    for seg in line.render(widget.app.console, end=""):
        if seg.text:
            where = Style.from_meta({"offset": (x, 0)})  # as Content marks it, for selection
            segments.append(
                Segment(seg.text, base + seg.style + where if seg.style else base + where)
            )
            x += len(seg.text)
    return [Strip(segments, x)]
