"""The least a Textual monitor can do: one line of text, changed once a second, with
tuitune's quiet driver. bench_observer runs it beside tuitune as the framework's floor: what
any Textual app updating at 1 Hz costs before it reads or draws anything of its own."""

from __future__ import annotations

import time
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.driver import Driver
from textual.widgets import Static

from tuitune.tui.driver import QuietLinuxDriver

READY = "ticking textual app"


class Ticking(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("q", "quit", "Quit")]

    def get_driver_class(self) -> type[Driver]:
        return QuietLinuxDriver

    def compose(self) -> ComposeResult:
        yield Static(READY, id="line")

    def on_mount(self) -> None:
        self.set_interval(1.0, self.tick)

    def tick(self) -> None:
        self.query_one("#line", Static).update(f"{READY} {time.strftime('%H:%M:%S')}")


if __name__ == "__main__":
    Ticking().run()
