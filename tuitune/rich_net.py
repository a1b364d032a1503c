"""The last net under a Rich console: whatever a renderable holds, no control character from
outside reaches the terminal raw.

Strings from outside are escaped where they are put into a table (core/text.py's
`printable`, which keeps columns aligned). This wrapper renders a renderable and escapes any
hidden character left in the segments' text, so a string a path forgot still arrives as
visible `\\xNN` (misaligned, but harmless); Rich's own control segments (cursor moves it
makes itself) pass as they are.
"""

from __future__ import annotations

from collections.abc import Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from tuitune.core.text import escape_hidden


class Net:
    """`renderable`, its text escaped where it still holds a hidden character."""

    def __init__(self, renderable: RenderableType) -> None:
        self.inner = renderable

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> Iterator[Segment]:
        for seg in console.render(self.inner, options):
            text = seg.text
            if seg.control or text.isprintable() or text == "\n":
                yield seg
            else:
                yield Segment(escape_hidden(text), seg.style, seg.control)
