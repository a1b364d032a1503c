"""The header's widget: a Static that is repainted only when its text changed, and laid out
again only when its height (lines, wrapped to the width) changed."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static


class HeaderView(Static):
    def __init__(self) -> None:
        super().__init__("", id="header", markup=False)
        self._shown: Text | None = None
        self._height = -1

    def show(self, text: Text) -> None:
        # Rich Text compares by plain text and spans (styles included): an unchanged header
        # (an idle host at 1 Hz, a paused screen) costs no new Content and no repaint.
        if text == self._shown and self._height >= 0:
            return
        # A new layout costs more than the rest of a frame: ask for one only when the
        # header's height changes.
        width = max(1, self.size.width - 2)
        height = sum(max(1, -(-len(line) // width)) for line in text.plain.split("\n"))
        self.update(text, layout=height != self._height)
        self._shown, self._height = text, height
