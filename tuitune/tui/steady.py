"""A jittery figure shown steady: the header's "read N ms" (what a tick's reads cost).

Shown raw, that figure moved by a tenth of a millisecond at nearly every tick on an idle host,
so the header was repainted at every tick for nothing a user could act on: on a 2-CPU VM at
--interval 0.25 it was about 1.8 ms of tuitune's 12 ms of CPU a second (issue 38, the
observer's cost). The median of the last few ticks, kept on screen until it leaves a band
around the figure shown, still says at once when the reads get dearer (a big host, a device
with many queues) and is repainted only then.
"""

from __future__ import annotations

from collections import deque

WINDOW = 8  # ticks the median is taken over
BAND = 0.25  # the shown figure changes when the median is more than 25 % away from it


class SteadyFigure:
    def __init__(self, window: int = WINDOW, band: float = BAND) -> None:
        self._recent: deque[float] = deque(maxlen=window)
        self._band = band
        self.shown: float | None = None

    def feed(self, value: float) -> float:
        """Take one tick's value; the figure to show now."""
        self._recent.append(value)
        median = _median(self._recent)
        shown = self.shown
        if shown is None or abs(median - shown) > self._band * shown:
            self.shown = shown = median
        return shown

    def reset(self) -> None:
        """Forget the ticks so far (the next figure is the next tick's own)."""
        self._recent.clear()
        self.shown = None


def _median(values: deque[float]) -> float:
    # Not statistics.median: that module loads fractions, decimal and random, which the live
    # screen does not otherwise need (tests/unit/test_live_imports.py).
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
