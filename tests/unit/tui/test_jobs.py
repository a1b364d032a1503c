"""The pool behind Shell.in_thread (tui/jobs.py): a result handed back, an exception handed to
`failed` instead, nothing run once closed."""

from __future__ import annotations

import threading

from tuitune.tui.jobs import Jobs


def test_result_back_and_exception_to_failed() -> None:
    got: list[object] = []
    both = threading.Barrier(3)  # the two jobs' ends and this test

    def failed(group: str, exc: Exception) -> None:
        got.append((group, str(exc)))
        both.wait(5)

    def back(r: int) -> None:
        got.append(r)
        both.wait(5)

    def boom() -> int:
        raise ValueError("boom")

    jobs = Jobs(failed)
    jobs.submit(lambda: 1, back, "a")
    jobs.submit(boom, back, "b")
    both.wait(5)
    jobs.close()
    assert sorted(map(str, got)) == ["('b', 'boom')", "1"]


def test_nothing_runs_once_closed() -> None:
    ran: list[int] = []
    jobs = Jobs(lambda g, e: None)
    jobs.close()
    jobs.submit(lambda: ran.append(1), None, "a")
    assert ran == []
