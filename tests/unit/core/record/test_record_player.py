"""`tuitune replay`: the live screen's own sampler ticks through a recording as it ticked
through the host: the same counters in order, the recorded state, and a pause at the end."""

from __future__ import annotations

import queue
from dataclasses import replace
from pathlib import Path

from tests.support.recorded import record
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording
from tuitune.core.watch.sampler import Sample, Sampler
from tuitune.core.watch.snapshot import Counters


def replay(path: Path, start: float = 0.0) -> tuple[list[Sample], list[int]]:
    ended: list[int] = []
    shown: list[Sample] = []
    with RecordingReader(open_recording(path), start=start) as reader:
        got: queue.Queue[Sample] = queue.Queue()
        sampler = Sampler(reader, reader.ifname, got.put, interval=0.01)
        reader.on_end = lambda: (ended.append(len(shown)), sampler.pause(True))
        sampler.start()
        try:
            while not ended or len(shown) <= ended[0]:
                shown.append(got.get(timeout=30))
                sampler.ack()
        finally:
            sampler.stop()
    return shown, ended


def test_the_sampler_replays_the_recorded_samples_in_order(tmp_path: Path) -> None:
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=5)
    shown, ended = replay(path)
    assert [s.counters for s in shown] == [s.counters for s in taken]
    assert ended == [4]  # paused as the last sample was handed out
    assert shown[0].host == next(s.host for s in taken if s.host is not None)
    assert shown[0].nic == next(s.nic for s in taken if s.nic is not None)
    # The rates are the recorded ones: the same pairs of samples, the same numbers.
    assert [s.rates for s in shown[1:]] == [s.rates for s in taken[1:]]


def test_replay_starts_at_from(tmp_path: Path) -> None:
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=5)
    shown, _ended = replay(path, start=2.5)
    # other_intr is the replaying sampler's own (it has not seen the samples before 3 s).
    assert [strip(s) for s in shown] == [strip(s) for s in taken[3:]]


def strip(s: Sample) -> Counters | None:
    return None if s.counters is None else replace(s.counters, other_intr=None)
