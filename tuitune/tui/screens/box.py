"""The frame every dialog of tuitune shares: one box in the middle of the screen, in the
border the terminal can draw ($tt-border), over the live screen. A dialog subclasses
`BoxScreen` and says only its box's size (and anything else of its own)."""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

R = TypeVar("R")


class BoxScreen(ModalScreen[R]):
    DEFAULT_CSS = """
    BoxScreen { align: center middle; }
    BoxScreen > Vertical { border: $tt-border $accent; background: $surface; padding: 0 1; }
    """
