"""A seek starts from the chunk index (fileformat.Reading.chunks), not the file's start: what
it reads from time T on is exactly what a linear read from the start gives from T on (the
records, and the NIC and host state recorded by then), for any chunking and any T."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.recorded import record
from tuitune.core.record import fileformat
from tuitune.core.record.fileformat import Writer, read
from tuitune.core.record.recorder import Recorder
from tuitune.core.record.replay import Recording, open_recording

# (time step, kind, value): a sample's tree is a few counters (delta-encoded), a state a word.
_step = st.tuples(
    st.sampled_from([0.0, 0.5, 1.0, 2.5]),
    st.sampled_from(["sample", "sample", "sample", "host", "nic", "journal"]),
    st.lists(st.integers(0, 1 << 40), min_size=1, max_size=4),
)


def _write(path: Path, steps: list[tuple[float, str, list[int]]]) -> list[float]:
    header = {
        "tuitune": "test",
        "started": 0.0,
        "iface": "eth0",
        "netns": None,
        "interval": 1.0,
        "hostname": "h",
        "kernel": "k",
        "cpus": 1,
    }
    w = Writer(path, header)
    at, times = 0.0, []
    for dt, kind, value in steps:
        at += dt
        times.append(at)
        if kind == "sample":
            w.add({"t": "sample", "at": at, "seq": len(times), "c": {"n": value}})
        else:
            w.add({"t": kind, "at": at, "v": {"x": value}})
    w.close()
    return times


def _last_state(records: list[Any], kind: str, at: float) -> Any:
    found = [r.data["v"] for r in records if r.kind == kind and r.at <= at]
    return found[-1] if found else None


@settings(max_examples=60, deadline=None)
@given(steps=st.lists(_step, min_size=1, max_size=60), chunk=st.sampled_from([1.0, 3.0, 60.0]))
def test_seek_reads_what_a_linear_read_gives(
    tmp_path_factory: pytest.TempPathFactory,
    steps: list[tuple[float, str, list[int]]],
    chunk: float,
) -> None:
    path = tmp_path_factory.mktemp("seek") / "r.rec"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(fileformat, "CHUNK_SECONDS", chunk)
        times = _write(path, steps)
    rec = Recording(read(path))
    linear = list(rec.reading.records())
    for t in [*sorted(set(times)), -1.0, times[-1] + 10]:
        got = list(rec.records_from(t))
        assert [r for r in got if r.at >= t] == [r for r in linear if r.at >= t]
        for kind in ("host", "nic"):
            # the state recorded by T: a chunk repeats it, so the seek has it too
            want = _last_state(linear, kind, t)
            assert _last_state(got, kind, t) == want


def test_chunked_recording_moments_equal_one_chunk(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same samples written in 2 s chunks and in one: every `show --at` moment (the
    sample, the one before it, the state) and every window's samples are the same."""
    taken = record(tmp_path, tmp_path / "plain.rec", samples=9)
    host = next(s.host for s in taken if s.host is not None)

    def write(name: str) -> Recording:
        r = Recorder(tmp_path / name, iface="eth0", netns=None, interval=1.0, host=host, started=0)
        for s in taken:
            r.sample(s)
        r.close()
        return open_recording(tmp_path / name)

    monkeypatch.setattr(fileformat, "CHUNK_SECONDS", 2.0)
    chunked = write("chunked.rec")
    monkeypatch.setattr(fileformat, "CHUNK_SECONDS", 1e9)
    whole = write("whole.rec")
    assert len(chunked.reading.chunks()) > 3 > len(whole.reading.chunks())
    first, last, _n = whole.span()
    for at in [first + k * 0.5 for k in range(int((last - first) * 2) + 1)]:
        a, b = chunked.moment(at), whole.moment(at)
        assert dataclasses.astuple(a) == dataclasses.astuple(b)
        assert chunked.scan(at, at + 2)[0] == whole.scan(at, at + 2)[0]
