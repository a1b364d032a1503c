"""The recording file: frames of compressed JSON records, written as they come (docs/recording.md).

    MAGIC, then frames: kind (b"C" starts a chunk, b"+" continues it), payload length and
    CRC-32 (4 bytes each, big-endian), payload: one JSON record line, deflated in the
    chunk's zlib stream and sync-flushed, so every frame on disk decodes without the next.

A chunk starts a new zlib stream and new delta bases (core/record/delta.py) and repeats the
last host and NIC state, so each chunk reads on its own. Each frame is one write(2) straight
to the file: a `kill -9` or a full disk leaves whole frames and at most one torn one, which
the reader drops (its length runs past the end, or its CRC fails).
"""

from __future__ import annotations

import errno
import json
import os
import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuitune.core import fsutil
from tuitune.core.closing import Closing
from tuitune.core.docfile import shown
from tuitune.core.record.delta import Bases
from tuitune.core.text import printable
from tuitune.core.untrusted import Refused, check_value

MAGIC = b"TUITUNE-RECORDING\n"
VERSION = 1
_FRAME = struct.Struct(">cII")
FILE_MAX = 1 << 30  # a 1152-CPU host records < 50 MB an hour (docs/recording.md)
FRAME_MAX = 64 << 20  # compressed bytes of one record
RECORD_MAX = 256 << 20  # the same record inflated: a zip bomb stops here
CHUNK_SECONDS = 60.0
# The state records a chunk repeats at its start (each chunk stands alone): the host's, the
# NIC's, every IRQ's affinity.
STATES = ("host", "nic", "irqs")


class RecordError(OSError):
    """Writing stopped; str() is one line naming the file."""


@dataclass(frozen=True, slots=True)
class Record:
    # "header", "sample", "host", "nic", "irqs", "conns", "journal", "bench", "note"
    kind: str
    at: float  # seconds since the first sample (0 for the header)
    data: dict[str, Any]  # the record; a sample's tree is whole again under "c"


class Writer(Closing):
    """A new recording at `path` (never an existing file: O_EXCL, no link followed), 0600."""

    def __init__(self, path: Path | str, header: dict[str, Any]) -> None:
        self.path = path
        d, name = fsutil.locate(path, write=True, follow=False)
        with d:
            try:
                self.fd = d.create(name, 0o600)
            except fsutil.FsError as exc:
                if exc.errno == errno.EEXIST:
                    raise RecordError(f"{shown(path)}: exists: not overwritten") from None
                raise RecordError(str(exc)) from None
        self.bytes = 0
        self._state: dict[str, dict[str, Any]] = {}  # the last host/nic record, for a chunk
        self._chunk_at: float | None = None
        self._new_chunk()
        self._raw(b"", MAGIC)
        self.add({"t": "header", "format": "tuitune-recording", "version": VERSION, **header})

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def _new_chunk(self) -> None:
        self._z = zlib.compressobj(6)
        self._bases = Bases()
        self._kind = b"C"

    def add(self, record: dict[str, Any]) -> None:
        """Write one record (a dict of JSON values with "t" and "at")."""
        at = float(record.get("at", 0.0))
        if self._chunk_at is None:
            self._chunk_at = at
        elif at - self._chunk_at >= CHUNK_SECONDS:
            self._chunk_at = at
            self._new_chunk()
            for state in self._state.values():  # each chunk stands alone
                self._frame({**state, "at": at})
        if record["t"] in STATES:
            self._state[record["t"]] = record
        if record["t"] == "sample":
            tree = record.pop("c")
            found = self._bases.encode(tree)
            if found is None:
                record = {**record, "k": tree}  # a key frame: no base of its shape
            else:
                record = {**record, "b": found[0], "d": found[1]}
        self._frame(record)

    def _frame(self, record: dict[str, Any]) -> None:
        line = json.dumps(record, separators=(",", ":"), allow_nan=False).encode() + b"\n"
        payload = self._z.compress(line) + self._z.flush(zlib.Z_SYNC_FLUSH)
        self._raw(_FRAME.pack(self._kind, len(payload), zlib.crc32(payload)), payload)
        self._kind = b"+"

    def _raw(self, head: bytes, payload: bytes) -> None:
        view = memoryview(head + payload)
        try:
            while view:
                view = view[os.write(self.fd, view) :]
                self.bytes = os.lseek(self.fd, 0, os.SEEK_CUR)
        except OSError as exc:
            why = os.strerror(exc.errno) if exc.errno else str(exc)
            raise RecordError(f"{shown(self.path)}: recording stopped: {why}") from None


@dataclass(frozen=True, slots=True)
class Reading:
    """A recording's bytes; `records()` decodes them one at a time (a long recording of a big
    host does not fit in memory as trees)."""

    data: bytes
    name: str
    cut: str | None  # why reading stops before the end of the file (a torn last frame)

    def records(self, offset: int | None = None) -> Iterator[Record]:
        """Every record in order; from `offset` (a chunk's, from `chunks()`): that chunk's
        and the ones after it (each chunk decodes on its own), the header not among them."""
        if offset is None:
            return _records(self.data, self.name)
        return _records(self.data, self.name, offset)

    def chunks(self) -> list[Chunk]:
        """Where each chunk starts and its first record's time: the index a seek starts
        from instead of the file's start. Reads every frame's head and CRC, and inflates
        one frame a chunk (cheap beside decoding every sample)."""
        out: list[Chunk] = []
        pos = len(MAGIC)
        for kind, payload, end in _frames(self.data):
            if kind == b"C":
                z = zlib.decompressobj()
                try:
                    line = z.decompress(payload, RECORD_MAX + 1)
                except zlib.error:
                    break  # the linear read names it
                try:
                    at = json.loads(line).get("at", 0.0)
                except (ValueError, AttributeError):
                    break
                if not isinstance(at, int | float) or isinstance(at, bool) or at != at:
                    break
                out.append(Chunk(pos, float(at)))
            pos = end
        return out


@dataclass(frozen=True, slots=True)
class Chunk:
    offset: int  # the byte offset of its first frame
    at: float  # its first record's time (the header's chunk: 0)


def read(path: Path | str, limit: int = FILE_MAX) -> Reading:
    """Every whole record of the recording at `path`, read as hostile input: bounded, no link
    of another user followed, a regular file only. Refused (or fsutil.FsError, an OSError),
    one line, for a file that is not a recording or holds a record that is not well formed."""
    name = shown(path)
    data = fsutil.read_file(path, limit)
    if data is None:
        raise Refused(f"{name}: no such file")
    return parse(data, name)


def parse(data: bytes, name: str) -> Reading:
    if not data.startswith(MAGIC):
        raise Refused(f"{name}: not a tuitune recording")
    return Reading(data, name, _cut(data))


def _frames(data: bytes, pos: int = len(MAGIC)) -> Iterator[tuple[bytes, bytes, int]]:
    while pos + _FRAME.size <= len(data):
        kind, size, crc = _FRAME.unpack_from(data, pos)
        start = pos + _FRAME.size
        if kind not in (b"C", b"+") or size > FRAME_MAX or start + size > len(data):
            return
        payload = data[start : start + size]
        if zlib.crc32(payload) != crc:
            return
        yield kind, payload, start + size
        pos = start + size


def _cut(data: bytes) -> str | None:
    end = len(MAGIC)
    for frame in _frames(data):
        end = frame[2]
    if end == len(data):
        return None
    return f"the last {len(data) - end} bytes are not a whole record (cut while written)"


def _records(data: bytes, name: str, offset: int | None = None) -> Iterator[Record]:
    z: Any = None
    bases = Bases()
    first = offset is None or offset <= len(MAGIC)  # mid-file: a chunk, not the header
    for kind, payload, end in _frames(data, offset or len(MAGIC)):
        where = f"{name}: byte {end}"
        if kind == b"C":
            z, bases = zlib.decompressobj(), Bases()
        elif z is None:
            raise Refused(f"{where}: a record before any chunk start")
        try:
            line = z.decompress(payload, RECORD_MAX + 1)
        except zlib.error:
            raise Refused(f"{where}: not deflate data") from None
        if len(line) > RECORD_MAX or z.unconsumed_tail:
            raise Refused(f"{where}: a record larger than {RECORD_MAX} bytes")
        record = _record(line, where)
        kind_ = check_value(record.get("t"), str, f"{where}: t")
        if first != (kind_ == "header"):
            raise Refused(f"{where}: the header must come first, and once")
        first = False
        at = check_value(record.get("at", 0.0), float, f"{where}: at")
        if kind_ == "sample":
            record["c"] = _sample_tree(record, bases, where)
        yield Record(kind_, at, record)


def _record(line: bytes, where: str) -> dict[str, Any]:
    if not line.endswith(b"\n") or line.count(b"\n") != 1:
        raise Refused(f"{where}: not one record per frame")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused(f"{where}: not UTF-8") from None

    def constant(word: str) -> Any:
        raise ValueError(word)

    try:
        record = json.loads(text, parse_constant=constant)
    except (ValueError, RecursionError) as exc:
        raise Refused(f"{where}: not a JSON record ({printable(exc, 80)})") from None
    if not isinstance(record, dict):
        raise Refused(f"{where}: a record that is not an object")
    return record


def _sample_tree(record: dict[str, Any], bases: Bases, where: str) -> Any:
    try:
        if "k" in record:
            tree = record.pop("k")
            bases.use(None, tree)
            return tree
        index = check_value(record.pop("b", None), int, f"{where}: b")
        changes = record.pop("d", None)
        if not isinstance(changes, list):
            raise Refused(f"{where}: d: not a list")
        return bases.decode(index, changes)
    except RecursionError:
        raise Refused(f"{where}: a sample nested too deep") from None
    except Refused as exc:
        msg = str(exc)
        raise Refused(msg if msg.startswith(where) else f"{where}: {msg}") from None
