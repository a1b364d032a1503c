"""The threads a controller's work runs on (Shell.in_thread), kept from one call to the next.

A Textual thread worker per call cost, on top of the work: a Worker and its asyncio task, three
Worker.StateChanged messages, and a wake-up of the UI thread when the executor's future ended,
before the one that brings the result (issue 38: the advisor's count, every few ticks of the
live screen). Here the work goes straight to a pool of threads that outlive it, and its result
comes back as one message. As many threads as asyncio's default executor, which ran the
workers: what ran side by side still does (a benchmark's waiter holds one for the whole run).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")

# asyncio's default executor's size (BaseEventLoop.run_in_executor), which ran the workers.
MAX_THREADS = min(32, (os.cpu_count() or 1) + 4)


class Jobs:
    """Runs `work()` on a pool thread, then hands its result to `back` (on that thread: the
    receiver hops to its own). An exception in `work` is given to `failed`, and `back` is not
    called. After close(), work not yet started is dropped and no new work is taken."""

    def __init__(self, failed: Callable[[str, Exception], None]) -> None:
        self._failed = failed
        self._pool: ThreadPoolExecutor | None = None  # no thread before the first job
        self._closed = False

    def submit(self, work: Callable[[], T], back: Callable[[T], None] | None, group: str) -> None:
        if self._closed:
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(MAX_THREADS, thread_name_prefix="tuitune-job")

        def job() -> None:
            try:
                result = work()
            except Exception as exc:  # the worker's contract: it ends quietly, logged
                self._failed(group, exc)
                return
            if back is not None:
                back(result)

        self._pool.submit(job)

    def close(self) -> None:
        """Running work goes on to its end (the interpreter waits for it at exit, as it
        waited for the workers); its idle threads end now."""
        self._closed = True
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
