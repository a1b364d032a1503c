"""The line above the footer that says what to do next (tuitune.core.guide decides the words).

It counts what the user has done (runs recorded, change steps, the runs list opened) and keeps
the busiest core seen while a run ran; the App tells it what happened and shows its line.
"""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import Static

from tuitune.core.guide import HotCore, Situation, Steps, hot_core, hotter, next_hint
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.snapshot import NicState


class HintLine(Static):
    DEFAULT_CSS = """
    HintLine { height: 1; padding: 0 1; color: $text-muted; }
    HintLine.-empty { display: none; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.steps = Steps()
        self._hot_now: HotCore | None = None  # the busiest core of the run going on
        self._text = ""
        self.override: str | None = None  # a mode's own line (picking CPUs in the grid)

    # -- what happened -----------------------------------------------------------------------
    def sampled(self, rates: Rates | None, nic: NicState | None, running: bool) -> None:
        """Each sample: while a run runs, remember its busiest core."""
        if running:
            self._hot_now = hotter(self._hot_now, hot_core(rates, nic))

    def run_recorded(self, changes: int) -> None:
        s = self.steps
        hot = self._hot_now if self._hot_now is not None else s.hot
        self.steps = replace(s, runs=s.runs + 1, changes_at_last_run=changes, hot=hot)
        self._hot_now = None

    def changed(self, changes: int) -> None:
        self.steps = replace(self.steps, changes=changes)

    def runs_opened(self) -> None:
        if self.steps.runs >= 2:
            self.steps = replace(self.steps, compared=True)

    # -- the line ------------------------------------------------------------------------------
    def show(self, now: Situation) -> None:
        text = self.override or next_hint(self.steps, now)
        if text != self._text:
            self._text = text
            self.update(text)
            self.set_class(not text, "-empty")
