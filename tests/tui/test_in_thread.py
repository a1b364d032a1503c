"""A controller's work on a thread (Shell.in_thread): it starts once the screen has drawn, and
its result comes back on the UI thread as a message, the worker not held until it is used
(issue 38: the advisor's count ran beside a sample's frame, and each result cost a wait)."""

from __future__ import annotations

import threading

from textual.message import Message

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


async def test_a_call_posts_its_result_and_no_worker_messages(launch: Launch) -> None:
    # A Textual worker a call posted three Worker.StateChanged and woke the UI thread once
    # more when its future ended (issue 38: the advisor's count, every few ticks).
    async with launch() as tui:
        app = tui.app
        posted: list[str] = []
        post = app.post_message

        def spy(message: Message) -> bool:
            posted.append(type(message).__name__)
            return post(message)

        app.post_message = spy  # type: ignore[method-assign]
        got: list[int] = []
        app.in_thread(lambda: 7, got.append, group="t")
        await tui.wait(lambda: got, "the result back")
        assert got == [7]
        # (The pilot's own Callback messages aside.)
        assert [n for n in posted if n in ("StateChanged", "Then")] == ["Then"]


async def test_failing_work_ends_quietly_and_the_next_call_runs(launch: Launch) -> None:
    async with launch() as tui:
        app = tui.app
        got: list[tuple[str, str]] = []

        def fails() -> int:
            raise OSError("a read that failed")

        app.in_thread(fails, lambda r: got.append(("failed", str(r))), group="t")
        app.in_thread(lambda: "next", lambda r: got.append(("next", r)), group="t")
        await tui.wait(lambda: got, "the second result back")
        await tui.pilot.pause()
        assert got == [("next", "next")] and app.is_running


async def test_calls_reuse_the_same_threads(launch: Launch) -> None:
    async with launch() as tui:
        app = tui.app
        ran_on: set[int] = set()
        got: list[int] = []

        def work(i: int) -> int:
            ran_on.add(threading.get_ident())
            return i

        for i in range(6):  # one after the other: the one thread, idle again, takes each
            app.in_thread(lambda i=i: work(i), got.append, group="t")  # type: ignore[misc]
            await tui.wait(lambda i=i: len(got) > i, f"result {i}")  # type: ignore[misc]
            if i == 0:
                threads = threading.active_count()
        assert got == list(range(6))
        assert len(ran_on) == 1 and threading.active_count() == threads
