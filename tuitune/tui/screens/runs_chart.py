"""The runs screen's chart (`g`): the notebook's runs as the sweep screen draws a sweep, one
bar a group of repeats (its median), its min..max as a whisker, its change against the
baseline run (none for a run of another test)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Static

from tuitune.core.bench.runtable import RunRow
from tuitune.core.sweep.chart import run_bars
from tuitune.tui.look.look import Look
from tuitune.tui.screens.bars import bars_text
from tuitune.tui.screens.box import BoxScreen


class RunsChartScreen(BoxScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,g", "close", "Close")]
    DEFAULT_CSS = """
    RunsChartScreen > Vertical { width: 100%; height: 100%; }
    RunsChartScreen .hint { color: $text-muted; height: 1; }
    """

    def __init__(self, rows: Sequence[RunRow], look: Look) -> None:
        super().__init__()
        self.rows = list(rows)
        self.look = look

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Runs: throughput against the baseline"
            with VerticalScroll(id="runs-chart-scroll"):
                yield Static("", id="runs-chart", markup=False)
            yield Static("bars: median; whiskers: min..max of the repeats", classes="hint")
            yield Static("Esc: back to the runs   arrows, PgUp/PgDn: scroll", classes="hint")

    def on_mount(self) -> None:
        self.query_one("#runs-chart-scroll").focus()
        self._draw()

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        width = self.size.width - 4
        text = bars_text(lambda w, a: run_bars(self.rows, w, a), width, self.look)
        self.query_one("#runs-chart", Static).update(text)

    def action_close(self) -> None:
        self.dismiss(None)
