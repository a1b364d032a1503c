"""A recording is a file another user may have made: links, FIFOs, huge files, wrong types,
bad versions are refused in one line; control characters in its strings are shown escaped;
no byte sequence makes the reader fail any other way (issue 34)."""

from __future__ import annotations

import functools
import json
import os
import tempfile
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.recorded import record
from tuitune.cli import main
from tuitune.core.docfile import DocumentError
from tuitune.core.record import fileformat
from tuitune.core.record.player import _event_label
from tuitune.core.record.recorder import Recorder
from tuitune.core.record.replay import open_recording

HEADER = {"tuitune": "t", "started": 0.0, "iface": "eth4", "netns": None, "interval": 1.0}
HOST = {"hostname": "h", "kernel": "k", "cpus": 4}


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and text
    return text


def test_a_link_another_user_made_is_not_followed(tmp_path: Path) -> None:
    real = tmp_path / "a.rec"
    record(tmp_path, real, samples=2)
    link = tmp_path / "link.rec"
    link.symlink_to(real)
    os.lchown(link, 65534, 65534)
    with pytest.raises(OSError) as exc:
        open_recording(link)
    assert "link" in one_line(exc.value)


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "f.rec"
    os.mkfifo(fifo)
    with pytest.raises(OSError) as exc:
        open_recording(fifo)
    assert "FIFO" in one_line(exc.value) or "fifo" in one_line(exc.value)


def test_a_huge_file_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "a.rec"
    record(tmp_path, path, samples=2)
    with pytest.raises(OSError) as exc:
        fileformat.read(path, limit=100)
    assert "larger than 100 bytes" in one_line(exc.value)


def test_not_a_recording_and_a_later_version(tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.write_bytes(b"\x1b[2J hello")
    with pytest.raises(DocumentError) as exc:
        open_recording(other)
    assert one_line(exc.value).endswith("not a tuitune recording")
    later = tmp_path / "later.rec"
    with fileformat.Writer(later, {**HEADER, **HOST, "version": 99}):
        pass
    with pytest.raises(DocumentError) as exc:
        open_recording(later)
    assert "format version 99; this tuitune reads version 1" in one_line(exc.value)


def test_a_sample_of_the_wrong_type_is_refused_naming_its_field(tmp_path: Path) -> None:
    good = tmp_path / "good.rec"
    record(tmp_path, good, samples=2)
    tree = next(r.data["c"] for r in open_recording(good).reading.records() if r.kind == "sample")
    tree["softnet"][0][1]["dropped"] = "many"
    bad = tmp_path / "bad.rec"
    with fileformat.Writer(bad, {**HEADER, **HOST}) as w:
        w.add({"t": "sample", "at": 0.0, "seq": 1, "c": tree})
    with pytest.raises(DocumentError) as exc:
        open_recording(bad).scan(0, 10)
    assert "softnet" in one_line(exc.value) and "dropped" in one_line(exc.value)


def test_control_characters_in_strings_are_shown_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A host name and an interface alias that would clear root's screen and set its
    clipboard (OSC 52) are shown as escapes by show --recording."""
    taken = record(tmp_path, tmp_path / "a.rec", samples=2)
    evil = "evil\x1b]52;c;QUFB\x07\x1b[2J"
    path = tmp_path / "evil.rec"
    host = next(s.host for s in taken if s.host is not None)
    rec = Recorder(
        path,
        iface="eth4",
        netns=None,
        interval=1.0,
        host=replace(host, hostname=evil),
        started=0.0,
    )
    with rec.writer:
        for s in taken:
            rec.sample(replace(s, host=replace(s.host, hostname=evil)) if s.host else s)
    assert main(["show", "--recording", str(path), "--at", "1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "evil\\x1b]52;c;QUFB\\x07\\x1b[2J" in out


def test_an_existing_file_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.rec"
    path.write_bytes(b"keep")
    with pytest.raises(OSError, match="exists: not overwritten"):
        fileformat.Writer(path, {**HEADER, **HOST})
    assert path.read_bytes() == b"keep"


# -- fuzz ---------------------------------------------------------------------------------------
@functools.cache
def valid() -> bytes:
    """A recording with every record type: samples with per-queue and driver counters, the
    host and NIC state, every IRQ's affinity, a journal step, a benchmark event and the
    connections."""
    from tests.unit.core.record.test_record_queues import _recording

    with tempfile.TemporaryDirectory() as tmp:
        path, _taken = _recording(Path(tmp))
        return _with_events(path)


def _with_events(path: Path) -> bytes:
    """`path`'s recording again, with a journal step, a benchmark event and the
    connections read in it."""
    from tests.unit.core.record.test_record_conns import NO_WSCALE
    from tuitune.core.record.codec import encode

    src = open_recording(path)
    out = path.with_name("events.rec")
    w = fileformat.Writer(out, next(src.reading.records()).data)
    for r in list(src.reading.records())[1:]:
        w.add(r.data)
        if r.kind == "sample" and r.at == 1.0:
            step = {"key": "eth4 ring rx", "status": "applied", "before": "256", "after": "4096"}
            w.add({"t": "journal", "at": 1.0, "v": {**step, "reason": None}})
            w.add({"t": "bench", "at": 1.0, "v": {"event": "started", "repeat": 1, "argv": []}})
            w.add({"t": "conns", "at": 1.0, "v": encode((NO_WSCALE,))})
    w.close()
    return out.read_bytes()


def read_all(data: bytes) -> None:
    """Everything the commands do with a recording: only a one-line DocumentError may come."""
    try:
        reading = fileformat.parse(data, "fuzz.rec")
        for _ in reading.records():
            pass
        from tuitune.core.record.replay import Recording

        rec = Recording(reading)
        rec.moment(rec.span()[1])
        # What replay decodes: every sample and state record (the `irqs` affinities too),
        # and its events' labels (journal steps, benchmark events).
        for r in rec.reading.records():
            if r.kind in ("sample", *fileformat.STATES):
                rec._decode(r)
            elif r.kind in ("journal", "bench"):
                assert _event_label(r).isprintable()
        rec.connections(0.0, 1e9)  # what advise --recording and replay's A judge
    except DocumentError as exc:
        one_line(exc)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 1 << 20), st.integers(0, 255)), max_size=8), st.data())
def test_fuzz_bytes(flips: list[tuple[int, int]], data: st.DataObject) -> None:
    raw = bytearray(valid())
    for pos, byte in flips:
        raw[pos % len(raw)] = byte
    cut = data.draw(st.integers(0, len(raw)))
    read_all(bytes(raw[:cut]))


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(1 << 70), 1 << 70)
    | st.floats(allow_nan=False)
    | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)


KINDS = ("sample", "host", "nic", "irqs", "conns", "journal", "bench", "note")
# A record of a known type with hostile content (an `irqs` map, a journal step...), so the
# typed decoding of each type is reached, not only the refusal of an unknown `t`.
TYPED = st.fixed_dictionaries(
    {"t": st.sampled_from(KINDS), "at": st.floats(0, 10)},
    optional={"v": JSON, "c": JSON, "seq": JSON, "text": JSON},
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["t", "at", "c", "k", "b", "d", "v", "seq"]), JSON, max_size=6
        )
        | TYPED,
        max_size=5,
    )
)
def test_fuzz_records(records: list[dict[str, Any]]) -> None:
    """Well-framed records with any JSON in them (valid frames, hostile content)."""
    z = zlib.compressobj()
    out = bytearray(fileformat.MAGIC)
    kind = b"C"
    head = {"t": "header", "format": "tuitune-recording", "version": 1, **HEADER, **HOST}
    for rec in [head, *records]:
        try:
            line = json.dumps(rec, allow_nan=False).encode() + b"\n"
        except ValueError:
            continue
        payload = z.compress(line) + z.flush(zlib.Z_SYNC_FLUSH)
        out += fileformat._FRAME.pack(kind, len(payload), zlib.crc32(payload)) + payload
        kind = b"+"
    read_all(bytes(out))
