"""One of a few words, the chosen one highlighted (the benchmark form's direction, the
autotune form's goal): space or arrows cycle, a click picks. Plain letters and reverse video,
so it reads the same on the Linux console."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.widgets import Static


class WordChoice(Static, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space,right", "step(1)", "Next choice", show=False),
        Binding("left", "step(-1)", "Previous choice", show=False),
    ]
    DEFAULT_CSS = """
    WordChoice { width: 1fr; height: 1; padding: 0 1; }
    WordChoice:focus { background: $accent 25%; }
    """

    def __init__(
        self,
        choices: Sequence[str],
        words: Mapping[str, str],
        value: str,
        *,
        id: str | None,
        one: bool = False,
    ) -> None:
        super().__init__("", id=id, markup=False)
        self.choices = tuple(choices)
        self.words = words  # what the chosen one means, after the choices
        self.value = value
        # Only the chosen one, between < >: too many choices for one line at 80 columns (the
        # autotune form's profiles); a click anywhere steps to the next.
        self.one = one
        self._spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        text = Text()
        self._spans = []
        if self.one:
            text.append(f"< {self.value} >", style="reverse bold")
            text.append(f" {self.words.get(self.value, '')}", style="italic")
            self.update(text)
            return
        for d in self.choices:
            start = len(text)
            text.append(f" {d} ", style="reverse bold" if d == self.value else "")
            self._spans.append((start, len(text), d))
            text.append(" ")
        text.append(self.words.get(self.value, ""), style="italic")
        self.update(text)

    def set(self, value: str) -> None:
        self.value = value
        self._draw()

    def action_step(self, step: int) -> None:
        i = self.choices.index(self.value)
        self.set(self.choices[(i + step) % len(self.choices)])

    def on_click(self, event: Click) -> None:
        if self.one:
            self.action_step(1)
            return
        x = event.x - 1  # the left padding
        for start, end, d in self._spans:
            if start <= x < end:
                self.set(d)
                return
