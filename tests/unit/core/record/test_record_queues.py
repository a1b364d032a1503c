"""Per-queue and driver counters (ethtool -S, the named drop counters) ride in every recorded
sample, and every IRQ's affinity is recorded when it changes (issue 34): they read back,
replay's sampler turns them into per-queue rates as the live one does, `show --recording
--at --json` shows them, and a record that types them wrong is refused."""

from __future__ import annotations

import json
import queue
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.fixture_hosts import SHARED_FIXTURES
from tests.support.recorded import all_irqs_open, live_findings, record, replayed, rerecorded
from tuitune.cli import main
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.queuestats import parse_ethtool_s
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording
from tuitune.core.untrusted import Refused
from tuitune.core.watch.sampler import Sample, Sampler

# Two real ixgbe pastes: one with the NIC-wide counters (rx_missed_errors), one with queues
# 12-16's (tests/fixtures/captures/ethtool_S).
CAPTURES = SHARED_FIXTURES.parent / "captures/ethtool_S"
IXGBE = ("ixgbe_enp3s0f0_-S_PARTIAL_ethq1.txt", "ixgbe_x520_-S_PARTIAL_ethq24.txt")
MOVED_AT = 3  # the tick from which IRQ 1 fires on CPU 2, not CPU 0


def _stats(tick: int) -> tuple[tuple[str, int], ...]:
    """The ixgbe captures' counters, each queue's packets rising by 1000 * (queue + 1) a
    tick and rx_missed_errors by 10."""
    out = []
    text = "".join((CAPTURES / name).read_text() for name in IXGBE)
    for name, value in parse_ethtool_s(text):
        if name.startswith("rx_queue_") and name.endswith("_packets"):
            value += 1000 * (int(name.split("_")[2]) + 1) * tick
        if name == "rx_missed_errors":
            value += 10 * tick
        out.append((name, value))
    return tuple(out)


def _affinity(tick: int) -> dict[str, IrqAffinity]:
    cpu = 2 if tick >= MOVED_AT else 0
    return {"1": IrqAffinity("1", frozenset({cpu}), frozenset({cpu}), None, "0")}


def _recording(tmp_path: Path) -> tuple[Path, list[Sample]]:
    def counted(i: int, s: Sample) -> Sample:
        return replace(
            s, driver_stats=_stats(i), stats_source="ethtool -S", all_affinity=_affinity(i)
        )

    return rerecorded(tmp_path, "queues.rec", counted)


def test_queue_counters_and_affinities_read_back(tmp_path: Path) -> None:
    path, taken = _recording(tmp_path)
    rec = open_recording(path)
    samples, _h, _n = rec.scan(0, 1e9)
    assert [c.queue_stats for _at, c in samples] == [s.driver_stats for s in taken]
    assert {c.queue_source for _at, c in samples} == {"ethtool -S"}
    # State on change: the affinities at the first tick and where IRQ 1 moved, no more.
    irqs = [r for r in rec.reading.records() if r.kind == "irqs"]
    assert [r.at for r in irqs] == [0.0, float(MOVED_AT)]
    with RecordingReader(rec) as reader:
        assert any(label == "IRQ affinities" for _at, label in reader.events())


def test_replay_has_the_recorded_per_queue_rates_and_affinities(tmp_path: Path) -> None:
    path, _taken = _recording(tmp_path)
    shown, _times = replayed(path, 5, all_irqs_open)
    last = shown[-1]
    assert last.queues is not None and last.rates is not None
    rx13, rx16 = last.queues.of("rx", 13), last.queues.of("rx", 16)
    assert rx13 is not None and rx16 is not None
    assert rx13.per_s["packets"] == pytest.approx(14000 / last.rates.interval)
    assert rx16.per_s["packets"] == pytest.approx(17000 / last.rates.interval)
    assert last.queues.nic_drops["rx_missed_errors"] == pytest.approx(10 / last.rates.interval)
    moved = [s.all_affinity for s in shown if s.all_affinity is not None][-1]
    assert moved["1"].effective == frozenset({2})


def test_show_at_json_has_the_queue_rates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _taken = _recording(tmp_path)
    assert main(["show", "--recording", str(path), "--at", "2", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    rates = doc["queue_rates"]
    assert rates is not None, "no per-queue rates in show --recording --json"
    text = json.dumps(rates)
    assert "rx_missed_errors" in text
    assert main(["show", "--recording", str(path), "--at", "2"]) == 0
    assert "rx_missed_errors" in capsys.readouterr().out


def test_queue_counters_of_the_wrong_type_are_refused(tmp_path: Path) -> None:
    from tuitune.core.record.codec import decode, encode
    from tuitune.core.watch.snapshot import Counters

    _path, taken = _recording(tmp_path)
    counters = taken[1].counters
    assert counters is not None
    tree = encode(replace(counters, queue_stats=(("rx_missed_errors", 1),)))
    tree["queue_stats"] = [["rx_missed_errors", "a lot"]]
    with pytest.raises(Refused, match="queue_stats"):
        decode(tree, Counters, "bad.rec: sample")
    tree["queue_stats"] = [["x" * 5000, 1]]
    with pytest.raises(Refused, match="queue_stats"):
        decode(tree, Counters, "bad.rec: sample")
    # The source is shown in a title: one of the readers' words, never the file's own text.
    tree["queue_stats"], tree["queue_source"] = [], "\x1b]0;owned\x07"
    with pytest.raises(Refused, match="queue_source"):
        decode(tree, Counters, "bad.rec: sample")


def test_a_chunks_repeated_state_is_not_a_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chunk repeats the state (it stands alone): replay's `]` must not stop there."""
    from tuitune.core.record import fileformat

    monkeypatch.setattr(fileformat, "CHUNK_SECONDS", 2.0)
    path, _taken = _recording(tmp_path)
    rec = open_recording(path)
    assert [r.kind for r in rec.reading.records()].count("nic") == 3  # at 0, 2 and 4 s
    with RecordingReader(rec) as reader:
        assert reader.events() == [(float(MOVED_AT), "IRQ affinities")]


def test_a_record_type_and_a_field_this_reader_does_not_know_are_skipped(
    tmp_path: Path,
) -> None:
    """What keeps version 1 readable by an older reader (docs/recording.md): a field added to
    a sample and a new record type are skipped, the rest reads as before."""
    from tuitune.core.record.codec import encode
    from tuitune.core.record.fileformat import Writer

    taken = record(tmp_path, tmp_path / "plain.rec", samples=2)
    host = next(s.host for s in taken if s.host is not None)
    path = tmp_path / "later.rec"
    w = Writer(
        path,
        {
            "tuitune": "9",
            "started": 0.0,
            "iface": "eth4",
            "netns": None,
            "interval": 1.0,
            "hostname": "h",
            "kernel": "k",
            "cpus": 4,
        },
    )
    w.add({"t": "host", "at": 0.0, "v": encode(host)})
    for i, s in enumerate(taken):
        tree = encode(s.counters)
        tree["a_later_field"] = [i, i + 1]
        w.add({"t": "a_later_record", "at": float(i), "v": {"x": i}})
        w.add({"t": "sample", "at": float(i), "seq": i + 1, "c": tree})
    w.close()
    rec = open_recording(path)
    assert [c for _at, c in rec.scan(0, 1e9)[0]] == [s.counters for s in taken]
    with RecordingReader(rec) as reader:
        assert reader.events() == []


def test_advise_recording_judges_the_recorded_driver_counters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """advise --recording judges the window's per-queue and driver counters as the live
    advisor does (its first and last sample's): the NIC's named drop counter that rose
    (rx_missed_errors, 10 a tick) is in the finding, and the findings are the live ones."""
    path, taken = _recording(tmp_path)
    code = main(["advise", "--recording", str(path), "--from", "1", "--to", "4", "--json"])
    doc = json.loads(capsys.readouterr().out)
    drops = [f for f in doc["findings"] if f["id"] == "nic-rx-drops"]
    assert drops, doc["findings"]
    assert any("rx_missed_errors +30 in 3 s (ethtool -S)" in e for e in drops[0]["evidence"])
    assert [f["id"] for f in doc["findings"]] == live_findings(taken, 1, 4)
    assert code == 1


def test_the_all_irqs_view_opened_while_paused_has_the_affinities(tmp_path: Path) -> None:
    """Replay paused (or a live screen paused), `a` opens the all-IRQs view: the sample it
    delivers carries every IRQ's affinity as recorded by then, not empty columns until the
    next tick (there is none while paused)."""
    path, _taken = _recording(tmp_path)
    with RecordingReader(open_recording(path)) as reader:
        got: queue.Queue[Sample] = queue.Queue()
        sampler = Sampler(reader, reader.ifname, got.put, interval=60.0)
        sampler.start()
        try:
            first = got.get(timeout=30)
            assert first.all_affinity is None  # the view is closed
            sampler.pause(True)
            sampler.ack()
            sampler.set_all_irqs(True)
            opened = got.get(timeout=30)
            sampler.ack()
        finally:
            sampler.stop()
    assert opened.seq == first.seq  # paused: the same sample, the numbers frozen
    assert opened.all_affinity == _affinity(0)
