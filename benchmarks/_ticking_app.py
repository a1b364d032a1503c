"""The least a Textual monitor can do: one line of text, changed once a second (or every
`--interval` seconds), with tuitune's quiet driver. bench_observer and bench_peers run it
beside tuitune as the framework's floor: what any Textual app updating at that rate costs
before it reads or draws anything of its own."""

from __future__ import annotations

import argparse
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

    def __init__(self, interval: float = 1.0) -> None:
        super().__init__()
        self.interval = interval

    def get_driver_class(self) -> type[Driver]:
        return QuietLinuxDriver

    def compose(self) -> ComposeResult:
        yield Static(READY, id="line")

    def on_mount(self) -> None:
        self.set_interval(self.interval, self.tick)

    def tick(self) -> None:
        # Hundredths: at 4 Hz every update changes the text, as tuitune's figures do.
        now = time.time()
        stamp = time.strftime("%H:%M:%S", time.localtime(now)) + f".{int(now * 100) % 100:02d}"
        # The same width every time: no new layout, as tuitune asks for none at a tick.
        self.query_one("#line", Static).update(f"{READY} {stamp}", layout=False)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--interval", type=float, default=1.0, help="seconds between updates")
    Ticking(ap.parse_args().interval).run()
