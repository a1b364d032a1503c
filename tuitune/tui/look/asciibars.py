"""Scrollbars without block glyphs, for terminals whose font lacks them (the Linux console)."""

from __future__ import annotations

from typing import ClassVar

from textual.scrollbar import ScrollBar, ScrollBarRender


class AsciiScrollBarRender(ScrollBarRender):
    # Partial-cell glyphs become blanks: the thumb still shows as its background colour.
    VERTICAL_BARS: ClassVar[list[str]] = [" "] * 8
    HORIZONTAL_BARS: ClassVar[list[str]] = [" "] * 8


def use_ascii_scrollbars(on: bool) -> None:
    """ScrollBar.renderer is class-wide: set it for the app's lifetime and put it back after."""
    ScrollBar.renderer = AsciiScrollBarRender if on else ScrollBarRender
