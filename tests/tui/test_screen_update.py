"""The live screen draws when something changed, at most once an update period, and leaves
nothing scheduled once it has drawn (issue 38, goal 2: Textual's update timer slept out its
period after every frame, one more wake-up of the main thread a tick)."""

from __future__ import annotations

import asyncio

from tests.tui.conftest import Launch
from tuitune.tui.screen_update import ScreenUpdate


async def test_a_resume_draws_once_and_leaves_nothing_scheduled() -> None:
    loop = asyncio.get_running_loop()
    drawn: list[float] = []
    up = ScreenUpdate(lambda: drawn.append(loop.time()), lambda e: None, period=0.05)
    up.resume()
    up.resume()  # dirty twice before the frame: one frame
    await asyncio.sleep(0)
    assert len(drawn) == 1
    assert not loop._scheduled  # type: ignore[attr-defined]  # no timer left to wake the loop
    up.resume()  # dirty again within the period: drawn when the period is over, not before
    await asyncio.sleep(0)
    assert len(drawn) == 1
    await asyncio.sleep(0.1)
    assert len(drawn) == 2 and drawn[1] - drawn[0] >= 0.05 - 1e-3
    assert not loop._scheduled  # type: ignore[attr-defined]


async def test_a_pause_cancels_the_pending_frame_and_errors_reach_the_app() -> None:
    drawn: list[int] = []
    failed: list[Exception] = []
    up = ScreenUpdate(lambda: drawn.append(1), failed.append, period=0.0)
    up.resume()
    up.pause()  # Textual's layout pass draws itself and pauses the timer
    await asyncio.sleep(0.01)
    assert drawn == []

    def broken() -> None:
        raise ValueError("a widget's render failed")

    up = ScreenUpdate(broken, failed.append)
    up.resume()
    await asyncio.sleep(0)
    assert [str(e) for e in failed] == ["a widget's render failed"]
    up.resume()  # the next change is drawn again
    await asyncio.sleep(0.05)
    assert len(failed) == 2


async def test_each_sample_is_drawn_by_the_screens_update(launch: Launch) -> None:
    # The live screen draws through ScreenUpdate: every sample's new numbers reach the screen.
    async with launch(samples=5, limit=None, interval=0.1, wait=2) as tui:
        screen = tui.app.screen
        update = screen._update_timer
        assert isinstance(update, ScreenUpdate)
        before, seen = update.calls, tui.app.samples_drawn
        await tui.drawn(seen + 3)
        # Drawn through it: at least one frame for three samples. Not one a sample: a sample
        # that changes no visible line draws nothing, and under load several samples handled
        # before the next frame share it (cc31 saw 3 samples in one frame beside the guests).
        assert update.calls > before
        # Drawn and idle: no call is left pending (nothing to wake the main thread for).
        await tui.wait(lambda: update._call is None, "the frame drawn")
