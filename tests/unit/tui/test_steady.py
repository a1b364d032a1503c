"""The header's read cost, steady between real moves (tui/steady.py)."""

from __future__ import annotations

import statistics

from hypothesis import given
from hypothesis import strategies as st

from tuitune.tui.steady import BAND, WINDOW, SteadyFigure


def test_jitter_within_the_band_keeps_the_figure_and_a_real_move_shows_at_once() -> None:
    fig = SteadyFigure()
    assert fig.feed(1.0) == 1.0
    # An idle host's reads: a tenth of a millisecond either way, tick after tick.
    for value in [1.1, 0.9, 1.2, 1.0, 0.9, 1.1, 1.0] * 3:
        assert fig.feed(value) == 1.0
    # The reads get dearer (a device with many more queues): shown once the median moves.
    shown = [fig.feed(5.0) for _ in range(WINDOW)]
    assert shown[-1] == 5.0
    assert shown.index(5.0) <= WINDOW // 2


@given(st.lists(st.floats(min_value=0.01, max_value=1000.0), min_size=1, max_size=60))
def test_the_figure_is_always_within_the_band_of_the_recent_median(values: list[float]) -> None:
    fig = SteadyFigure()
    before: float | None = None
    for i, value in enumerate(values):
        shown = fig.feed(value)
        median = statistics.median(values[max(0, i + 1 - WINDOW) : i + 1])
        assert abs(median - shown) <= BAND * shown + 1e-9
        if shown != before:  # it changes only to the median itself
            assert shown == median
        before = shown


def test_reset_forgets_the_ticks() -> None:
    fig = SteadyFigure()
    fig.feed(1.0)
    fig.reset()
    assert fig.shown is None
    assert fig.feed(9.0) == 9.0
