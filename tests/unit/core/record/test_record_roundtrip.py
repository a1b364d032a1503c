"""A recording reads back what the sampler took: every sample equal, the state as it was, and
a file cut anywhere (kill -9, a full disk) reads up to its last whole record (issue 34)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from tests.support.recorded import record
from tuitune.core.record import fileformat
from tuitune.core.record.codec import encode
from tuitune.core.record.recorder import Recorder
from tuitune.core.record.replay import open_recording
from tuitune.core.untrusted import Refused
from tuitune.core.watch.sampler import Sample


def test_samples_read_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=5)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600  # it holds process names
    rec = open_recording(path)
    assert rec.reading.cut is None
    assert (rec.header.iface, rec.header.cpus, rec.header.version) == ("eth4", 4, 1)
    samples, host, nic = rec.scan(0.0, 1e9)
    assert [c for _at, c in samples] == [s.counters for s in taken]
    h, n = rec.state(host, nic)
    assert h == next(s.host for s in taken if s.host is not None)
    assert n == next(s.nic for s in reversed(taken) if s.nic is not None)
    # The state was read at every tick but did not change: it is in the file once.
    kinds = [r.kind for r in rec.reading.records()]
    assert kinds.count("nic") == 1 and kinds.count("host") == 1
    assert kinds.count("sample") == 5


def test_moment_is_the_last_sample_at_or_before(tmp_path: Path) -> None:
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=4)
    rec = open_recording(path)
    m = rec.moment(2.5)
    assert m.at == 2.0
    assert m.counters == taken[2].counters and m.before == taken[1].counters
    with pytest.raises(Refused, match="no sample at or before -1 s"):
        rec.moment(-1)


def test_chunks_stand_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A new chunk every 2 s: each starts a zlib stream and repeats the state, and the whole
    reads back the same."""
    monkeypatch.setattr(fileformat, "CHUNK_SECONDS", 2.0)
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=5)
    data = path.read_bytes()
    starts = [end for kind, _p, end in fileformat._frames(data) if kind == b"C"]
    assert len(starts) == 3  # at 0, 2 and 4 s
    rec = open_recording(path)
    assert [c for _at, c in rec.scan(0, 1e9)[0]] == [s.counters for s in taken]
    assert [r.kind for r in rec.reading.records()].count("nic") == 3


def test_cut_at_every_byte_of_the_last_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The header frame and the last chunk alone are a recording (chunks stand alone); cut at
    every byte, it reads every whole record before the cut and says the rest was cut."""
    monkeypatch.setattr(fileformat, "CHUNK_SECONDS", 2.0)
    path = tmp_path / "a.rec"
    taken = record(tmp_path, path, samples=5)
    data = path.read_bytes()
    frames = list(fileformat._frames(data))
    begins = [len(fileformat.MAGIC), *(end for _k, _p, end in frames)]
    last = max(i for i, (kind, _p, _e) in enumerate(frames) if kind == b"C")
    head = data[: begins[1]]  # MAGIC and the header's frame
    tail = data[begins[last] :]
    ends = [len(head) + end - begins[last] for _k, _p, end in frames[last:]]
    want = [encode(taken[-1].counters)]  # the chunk at 4 s: the state again, the 5th sample
    for cut in range(len(head), len(head) + len(tail) + 1):
        reading = fileformat.parse((head + tail)[:cut], "cut.rec")
        records = list(reading.records())
        assert len(records) == 1 + sum(1 for e in ends if e <= cut), cut
        got = [r.data["c"] for r in records if r.kind == "sample"]
        assert got == want[: len(got)], cut
        assert (reading.cut is None) == (cut == len(head) or cut in ends), cut
    assert [r.kind for r in fileformat.parse(head + tail, "x").records()][-1] == "sample"
    assert len(got) == 1


def test_the_live_screens_tee_records_each_tick_once_and_survives_a_full_disk(
    tmp_path: Path,
) -> None:
    """--record: each sample reaches the screen whatever happens to the file; a write that
    fails (ENOSPC from /dev/full, the kernel's own full disk) stops the recording and every
    later sample carries its one line."""
    taken = record(tmp_path, tmp_path / "a.rec", samples=4)
    host = next(s.host for s in taken if s.host is not None)
    path = tmp_path / "live.rec"
    rec = Recorder(path, iface="eth4", netns=None, interval=1.0, host=host, started=0.0)
    shown: list[Sample] = []
    deliver = rec.tee(shown.append)
    deliver(taken[0])
    deliver(taken[0])  # the sampler's second delivery of a tick: its state, not a new sample
    assert rec.samples == 1 and rec.stopped is None
    full = os.open("/dev/full", os.O_WRONLY)
    os.close(rec.writer.fd)
    rec.writer.fd = full
    for s in taken[1:]:
        deliver(s)
    assert len(shown) == 5
    assert rec.stopped == f"{path}: recording stopped: No space left on device"
    assert [s.error for s in shown[2:]] == [rec.stopped] * 3
    assert shown[2].counters == taken[1].counters  # the screen still gets its numbers
    reading = open_recording(path)
    assert reading.span()[2] == 1
