"""What the line renderers draw with: the glyph set, the theme's palette, and whether the
terminal wants plain ASCII. The App makes one whenever the theme changes and passes it down."""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.tui.look.glyphs import UNICODE, Glyphs
from tuitune.tui.look.palette import DEFAULT_PALETTE, Palette


@dataclass(frozen=True)
class Look:
    glyphs: Glyphs = UNICODE
    palette: Palette = DEFAULT_PALETTE
    ascii: bool = False  # the console font: no block glyphs, no ellipsis


DEFAULT_LOOK = Look()
