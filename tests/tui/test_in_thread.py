"""A controller's work on a thread (Shell.in_thread): it starts once the screen has drawn, and
its result comes back on the UI thread as a message, the worker not held until it is used
(issue 38: the advisor's count ran beside a sample's frame, and each result cost a wait)."""

from __future__ import annotations

import threading

from tests.tui.conftest import Launch


async def test_work_starts_after_the_frame_and_its_result_comes_back(launch: Launch) -> None:
    async with launch() as tui:
        app = tui.app
        ran_on: list[str] = []
        got: list[tuple[int, str]] = []
        before = len(app.workers)

        def work() -> int:
            ran_on.append(threading.current_thread().name)
            return 42

        app.in_thread(work, lambda r: got.append((r, threading.current_thread().name)), group="t")
        assert len(app.workers) == before and ran_on == []  # not beside this frame
        await tui.wait(lambda: got, "the result back")
        assert got == [(42, threading.main_thread().name)]
        assert ran_on and ran_on[0] != threading.main_thread().name


async def test_a_failing_then_does_not_stop_the_app(launch: Launch) -> None:
    async with launch() as tui:
        calls: list[int] = []

        def then(r: int) -> None:
            calls.append(r)
            raise ValueError("a bug in a controller's result handler")

        tui.app.in_thread(lambda: 1, then, group="t")
        await tui.wait(lambda: calls, "then called")
        await tui.pilot.pause()
        assert tui.app.is_running
