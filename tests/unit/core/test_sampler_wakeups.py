"""The sampler's thread sleeps once a tick and not at all while paused (issue 38, goal 2: the
observer woke 15 times a second across its threads; each wake-up costs a context switch)."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

from tests.support.fixture_hosts import host_4cpu_series
from tuitune.core.watch.sampler import Sample, Sampler


class CountingEvent(threading.Event):
    """An Event that notes each wait that had to sleep, and whether it ended by timing out."""

    def __init__(self, sleeps: list[str]) -> None:
        super().__init__()
        self.sleeps = sleeps

    def wait(self, timeout: float | None = None) -> bool:
        if self.is_set() or timeout == 0:
            return super().wait(timeout)
        got = super().wait(timeout)
        if threading.current_thread().name == "tuitune-sampler":
            self.sleeps.append("woken" if got else "timed out")
        return got


def _counted(tmp_path: Path, interval: float) -> tuple[Sampler, queue.Queue[Sample], list[str]]:
    reader, ifname = host_4cpu_series(tmp_path)
    got: queue.Queue[Sample] = queue.Queue()
    s = Sampler(reader, ifname, got.put, interval=interval)
    sleeps: list[str] = []
    s._wake, s._acked = CountingEvent(sleeps), CountingEvent(sleeps)
    s._acked.set()
    return s, got, sleeps


def _screen(s: Sampler, got: queue.Queue[Sample], seen: list[Sample], n: int) -> None:
    """The screen: each sample drawn at once, acknowledged from its own thread."""
    for _ in range(n):
        seen.append(got.get(timeout=10))
        s.ack()


def test_the_screens_ack_wakes_nobody_one_sleep_a_tick(tmp_path: Path) -> None:
    # The screen acknowledges each sample well within the interval: the sampler sleeps to
    # each deadline and finds the ack there. Waiting for the ack first and then for the
    # deadline was two sleeps (two wake-ups) a tick.
    s, got, sleeps = _counted(tmp_path, interval=0.2)
    seen: list[Sample] = []
    s.start()
    try:
        screen = threading.Thread(target=_screen, args=(s, got, seen, 6))
        screen.start()
        screen.join(timeout=30)
        assert [x.seq for x in seen] == [1, 2, 3, 4, 5, 6]
        assert all(x.rates is not None for x in seen[1:5])  # the series' (5 samples) numbers
        ticks = len(seen) - 1
        # One sleep a tick, to its deadline (a screen slower than 0.2 s once may add one).
        assert sleeps.count("timed out") >= ticks - 1
        assert len(sleeps) <= ticks + 1, sleeps
    finally:
        s.stop()
        s.reader.close()


def test_paused_the_sampler_sleeps_until_woken(tmp_path: Path) -> None:
    s, got, sleeps = _counted(tmp_path, interval=0.01)
    s.start()
    try:
        first = got.get(timeout=10)
        s.pause(True)
        s.ack()
        time.sleep(0.3)  # thirty intervals paused: no tick, and no wake-up either
        assert got.empty()
        assert "timed out" not in sleeps[1:], sleeps
        s.pause(False)  # the ticks come again
        s.ack()
        second = got.get(timeout=10)
        assert second.seq == first.seq + 1 and second.rates is not None
    finally:
        s.stop()
        s.reader.close()
