"""A recording read back: its header, the host at a moment, the samples of a window."""

from __future__ import annotations

import bisect
from collections import deque
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuitune.core.host.conns import Connection, checked_connections
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.record.codec import decode
from tuitune.core.record.fileformat import VERSION, Chunk, Reading, Record, read
from tuitune.core.untrusted import Refused, typed
from tuitune.core.values import Unavailable
from tuitune.core.watch.rates import Rates, compute_rates
from tuitune.core.watch.snapshot import Counters, HostState, NicState


@dataclass(frozen=True, slots=True)
class Header:
    format: str
    version: int
    tuitune: str
    started: float
    iface: str | None
    netns: str | None
    interval: float
    hostname: str
    kernel: str
    cpus: int


@dataclass(frozen=True, slots=True)
class Moment:
    """The host as the recording held it at one sample."""

    at: float
    host: HostState
    nic: NicState | None
    counters: Counters
    before: Counters | None  # the sample before, for rates


class Recording:
    def __init__(self, reading: Reading) -> None:
        self.reading = reading
        first = next(reading.records(), None)
        if first is None:
            raise Refused(f"{reading.name}: no header (an empty recording)")
        self.header = typed(Header, first.data, f"{reading.name}: header")
        if self.header.format != "tuitune-recording" or self.header.version != VERSION:
            raise Refused(
                f"{reading.name}: a recording of format version {self.header.version}; this "
                f"tuitune reads version {VERSION}"
            )

        self._chunks: list[Chunk] | None = None

    @property
    def name(self) -> str:
        return self.reading.name

    def records_from(self, at: float) -> Iterator[Record]:
        """The records from the chunk before the one holding `at` seconds on: every record at
        or after `at`, the NIC and host state recorded by then (a chunk repeats the last),
        and at least the samples of the whole chunk before it (a window's "sample before").
        The chunk index is built once: a seek reads a chunk or two, not the file up to it."""
        if self._chunks is None:
            self._chunks = self.reading.chunks()
        i = bisect.bisect_right([c.at for c in self._chunks], at) - 2  # the chunk before
        if i <= 0:
            return self.reading.records()
        return self.reading.records(self._chunks[i].offset)

    def _decode(self, record: Record) -> Any:
        where = f"{self.name}: {record.kind} at {record.at:.1f} s"
        if record.kind == "sample":
            return decode(record.data["c"], Counters, where)
        if record.kind == "irqs":  # every IRQ's affinity (an IRQ's name -> IrqAffinity)
            return decode(record.data.get("v"), dict[str, IrqAffinity], where)
        cls = HostState if record.kind == "host" else NicState
        return decode(record.data.get("v"), cls, where)

    def connections(self, start: float, end: float) -> tuple[Connection, ...] | None:
        """Every connection recorded from `start` to `end` seconds (record `conns`), each at
        its last reading, as the live advisor keeps a run's; None: none recorded then
        (Refused: a record refused, an address that is not one)."""
        found: dict[tuple[str, int, str, int], Connection] = {}
        seen = False
        for r in self.records_from(start):
            if r.at > end:
                break
            if r.kind != "conns" or r.at < start:
                continue
            where = f"{self.name}: conns at {r.at:.1f} s"
            got = checked_connections(decode(r.data.get("v"), tuple[Connection, ...], where), where)
            if isinstance(got, Unavailable):
                raise Refused(got.reason)
            seen = True
            for c in got:
                found[(c.local, c.lport, c.remote, c.rport)] = c
        return tuple(found.values()) if seen else None

    def span(self) -> tuple[float, float, int]:
        """(first sample's time, last's, samples)."""
        times = [r.at for r in self.reading.records() if r.kind == "sample"]
        return (times[0], times[-1], len(times)) if times else (0.0, 0.0, 0)

    def scan(
        self, start: float, end: float
    ) -> tuple[list[tuple[float, Counters]], Record | None, Record | None]:
        """The samples from `start` to `end` seconds (and the one just before, when the window
        holds one), and the last host and NIC state records at or before the window's end."""
        host = nic = None
        before: deque[Record] = deque(maxlen=2)
        inside: list[Record] = []
        for r in self.records_from(start):
            if r.at > end:
                break
            if r.kind == "host":
                host = r
            elif r.kind == "nic":
                nic = r
            elif r.kind == "sample":
                if r.at < start:
                    before.append(r)
                else:
                    inside.append(r)
        # Rates need two samples: a window of fewer takes the ones just before it.
        picked = list(before)[len(before) - max(0, 2 - len(inside)) :] + inside
        return [(r.at, self._decode(r)) for r in picked], host, nic

    def state(self, host: Record | None, nic: Record | None) -> tuple[HostState, NicState | None]:
        if host is None:
            raise Refused(f"{self.name}: no host state recorded by then")
        return self._decode(host), self._decode(nic) if nic is not None else None

    def moment(self, at: float) -> Moment:
        """The last sample at or before `at` seconds, with the state it was taken with."""
        samples, host, nic = self.scan(at, at)
        if not samples:
            raise Refused(f"{self.name}: no sample at or before {at:g} s")
        h, n = self.state(host, nic)
        before = samples[-2][1] if len(samples) >= 2 else None
        return Moment(samples[-1][0], h, n, samples[-1][1], before)


def open_recording(path: Path | str) -> Recording:
    return Recording(read(path))


# The recording a capture holds (`tuitune capture`), in the tree it unpacks to.
CAPTURED = "recording.rec"


def window_rates(rec: Recording, detail: Collection[str] | None = None) -> Rates | None:
    """The rates over the whole recording (its first sample to its last), None with fewer
    than two samples (DocumentError: a record refused)."""
    first, last, n = rec.span()
    if n < 2:
        return None
    samples, _host, _nic = rec.scan(first, last)
    return compute_rates(samples[0][1], samples[-1][1], detail) if len(samples) >= 2 else None


def captured_recording(tree: Path | str | None) -> Path | None:
    """The recording in a --root tree (a capture, or the directory one unpacked to), if any."""
    if tree is None:
        return None
    path = Path(tree) / CAPTURED
    return path if path.is_file() and not path.is_symlink() else None
