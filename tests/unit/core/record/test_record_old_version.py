"""A version-1 recording written before samples held per-queue and driver counters and
before the `irqs` record (tests/fixtures/recordings/SOURCES: written by commit 702fab0's
tuitune) still reads here: its samples, state, replay, show --at and advise --recording, with
the per-queue rows and the all-IRQs affinities as not recorded (docs/recording.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.recorded import all_irqs_open, sampled
from tuitune.cli import main
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording

OLD = Path(__file__).resolve().parents[3] / "fixtures/recordings/v1-before-queue-stats.rec"


def test_an_old_recording_reads_back() -> None:
    rec = open_recording(OLD)
    assert rec.header.version == 1 and rec.header.iface == "eth4"
    assert rec.span() == (0.0, 4.0, 5)
    assert rec.reading.cut is None
    m = rec.moment(4.0)
    assert m.counters.queue_stats is None and m.counters.queue_source is None
    assert m.nic is not None and m.before is not None
    assert m.counters.softnet and m.counters.link is not None


def test_an_old_recording_replays_without_per_queue_rows() -> None:
    with RecordingReader(open_recording(OLD)) as reader:
        # The all-IRQs view open: no affinities recorded, none shown.
        shown = sampled(reader, reader.ifname, 5, setup=all_irqs_open)
        assert reader.all_affinity_recorded() == {}
    assert [s.error for s in shown] == [None] * 5
    assert all(s.queues is None and s.driver_stats is None for s in shown)
    assert shown[-1].rates is not None and shown[-1].rates.cpus


def test_show_and_advise_read_an_old_recording(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["show", "--recording", str(OLD), "--at", "3", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["queue_rates"] is None
    assert doc["rates"] is not None and doc["interface"]["irqs"]
    code = main(["advise", "--recording", str(OLD), "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["interface"] == "eth4" and doc["window"]["seconds"] == 4.0
    # The replayed host drops on its link: named from the link counters, as before.
    assert [f["id"] for f in doc["findings"]][:1] == ["nic-rx-drops"] and code == 1
