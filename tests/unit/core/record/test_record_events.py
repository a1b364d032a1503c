"""Journal steps and benchmark events in a recording (the live screen's --record): written
on the samples' clock beside the samples, listed by replay as the changes `]` jumps to, and
shown escaped (a recording is hostile input)."""

from __future__ import annotations

from pathlib import Path

from tests.support.recorded import record
from tuitune.core.bench.model import BenchResult
from tuitune.core.bench.runner import Finished
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.recorder import Recorder, bench_event, journal_event
from tuitune.core.record.replay import open_recording
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import Key


def test_steps_and_bench_events_are_replays_changes(tmp_path: Path) -> None:
    taken = record(tmp_path, tmp_path / "plain.rec", samples=4)
    host = next(s.host for s in taken if s.host is not None)
    path = tmp_path / "events.rec"
    rec = Recorder(path, iface="eth0", netns=None, interval=1.0, host=host, started=0.0)
    rec.safe_event("journal", {"key": "early"})  # before the first sample: nowhere to put it
    step = Outcome(Key("mtu", "eth0", "mtu"), "changed", before="1500", after="9000")
    for i, s in enumerate(taken):
        rec.sample(s)
        if i == 1:
            rec.event("journal", journal_event(step), at=1.5)
            result = BenchResult(1e9, 1e9, 0, None, None, error="\x1b[2Jstopped")
            got = bench_event(Finished(result, 0))
            assert got is not None
            rec.event("bench", got, at=1.6)
    rec.close()
    rec.safe_event("journal", {"key": "late"})  # closed: not written, no error
    with RecordingReader(open_recording(path)) as reader:
        events = reader.events()
    assert [at for at, _ in events] == [1.5, 1.6]
    assert events[0][1] == "changed eth0 mtu: 1500 -> 9000"
    assert events[1][1] == "benchmark finished (repeat 0)"
    kinds = [r.kind for r in open_recording(path).reading.records()]
    assert kinds.count("journal") == 1 and kinds.count("bench") == 1


def test_a_hostile_step_is_shown_escaped(tmp_path: Path) -> None:
    taken = record(tmp_path, tmp_path / "plain.rec", samples=2)
    host = next(s.host for s in taken if s.host is not None)
    path = tmp_path / "hostile.rec"
    rec = Recorder(path, iface="eth0", netns=None, interval=1.0, host=host, started=0.0)
    rec.sample(taken[0])
    rec.event("journal", {"key": "\x1b]0;owned\x07", "status": ["x"], "before": 1}, at=0.5)
    rec.close()
    with RecordingReader(open_recording(path)) as reader:
        (_at, label), *_ = reader.events()
    assert "\x1b" not in label and "\x07" not in label and "\\x1b" in label


def test_a_run_names_its_window_of_the_screens_recording() -> None:
    """A benchmark repeat's notebook tags say which recording holds it and where, so that
    `advise --recording FILE --from --to` judges the run's own window."""
    from tuitune.tui.controllers.bench import BenchController

    clock = iter([("/tmp/a.rec", 12.0)])
    bench = object.__new__(BenchController)  # only the recording's part is exercised
    bench.recording = lambda: next(clock)
    bench._rec_from = ("/tmp/a.rec", 2.0)
    assert bench._recording_tags() == {
        "recording": "/tmp/a.rec",
        "recording_from": "2.0",
        "recording_to": "12.0",
    }
    bench.recording, bench._rec_from = None, None  # not recording: no tags
    assert bench._recording_tags() == {}


def test_a_step_at_a_sweeps_peer_names_the_peer() -> None:
    step = Outcome(Key("mtu", "veth1", "mtu"), "changed", before="1500", after="9000")
    assert journal_event(step, "peer")["key"] == f"peer {step.key.label}"
    assert journal_event(step)["key"] == step.key.label


def test_a_runs_window_tags_hold_its_first_and_last_sample() -> None:
    """Seen in the lab: a run started at 8.962 s, its first sample at 8.968 s; rounded to the
    nearest tenth its tag said 9.0 and `advise --recording --from 9.0` left that sample out.
    The tags widen the window (down at the start, up at the end), as replay's A does."""
    from tuitune.core.record.recorder import window_tags

    tags = window_tags("/tmp/a.rec", 8.962, 19.136)
    assert tags == {"recording": "/tmp/a.rec", "recording_from": "8.9", "recording_to": "19.2"}
    assert float(tags["recording_from"]) <= 8.968 and float(tags["recording_to"]) >= 19.136
    assert window_tags("/tmp/a.rec", 2.0, 12.0)["recording_from"] == "2.0"  # exact: as is
