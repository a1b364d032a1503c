"""The smallest Textual app, one line of text: what bench_start compares tuitune's start with."""

from __future__ import annotations

from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

TEXT = "minimal textual app: first frame"


class Minimal(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def compose(self) -> ComposeResult:
        yield Static(TEXT)


if __name__ == "__main__":
    Minimal().run()
