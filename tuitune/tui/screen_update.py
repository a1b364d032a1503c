"""The screen's update, called when something is to draw and never when nothing is.

Textual's Screen draws from a 60 Hz interval timer that it resumes when a widget is dirty and
pauses once it has drawn. Paused, the timer's task still sleeps out the rest of its period
after each frame before it waits again: one wake-up of the main thread a frame, for nothing
(issue 38: the live screen draws once a tick, so a third of the main thread's wake-ups). This
stands in for that timer (the two calls Screen makes of it, `resume` and `pause`): resumed, it
schedules one call of the screen's update on the event loop, at once or when the period since
the last one has passed (the same cap of one frame a period); paused, it cancels that call.
Private API: the `_update_timer` property of textual.screen.Screen, pinned by pyproject.toml
and held by tests/tui/test_screen_update.py.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable

from textual.screen import UPDATE_PERIOD


class ScreenUpdate:
    def __init__(
        self,
        update: Callable[[], None],
        failed: Callable[[Exception], None],
        period: float = UPDATE_PERIOD,
    ) -> None:
        self._update = update
        self._failed = failed  # the app's exception handler, as Textual's timers call it
        self._period = period
        self._call: asyncio.TimerHandle | asyncio.Handle | None = None
        self._last = -math.inf  # the loop's time at the last update
        self.calls = 0  # updates made (tests count them)

    def resume(self) -> None:
        if self._call is not None:
            return  # one call pending is enough: it draws everything dirty by then
        loop = asyncio.get_running_loop()
        wait = self._last + self._period - loop.time()
        self._call = loop.call_soon(self._fire) if wait <= 0 else loop.call_later(wait, self._fire)

    def pause(self) -> None:
        if self._call is not None:
            self._call.cancel()
            self._call = None

    def _fire(self) -> None:
        self._call = None
        self._last = asyncio.get_running_loop().time()
        self.calls += 1
        try:
            self._update()
        except Exception as error:  # the app shows it and exits, as for a timer
            self._failed(error)
