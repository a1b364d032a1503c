"""A recording as a HostReader: the live screen's sampler, ticking through it (`tuitune replay`).

Each counters() is the next recorded sample (its own recorded time, so rates are the
recorded ones); nic_state() and host_state() are the state recorded by then. The root is an
empty directory, not a live host: the screen is read-only, and whatever it reads beside the
recording (processes, PCIe) reads as not recorded. At the end each tick fails with one line
("the end of the recording"), and the screen keeps the last numbers it drew.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

from tuitune.core.host.conns import Connection, checked_connections
from tuitune.core.host.interrupts import Interrupts
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.root import HostRoot, KernelFileError
from tuitune.core.record.codec import decode
from tuitune.core.record.fileformat import STATES, Record
from tuitune.core.record.replay import Recording
from tuitune.core.text import printable
from tuitune.core.untrusted import Refused
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader, QueueStatsRead, UnknownInterface
from tuitune.core.watch.irqaffinity import AffinityRounds
from tuitune.core.watch.snapshot import Counters, HostState, NicState

NOT_IN_RECORDING = Unavailable("missing", "per-queue counters: not in this recording")
_STATE_LABEL = {"nic": "nic state", "host": "host state", "irqs": "IRQ affinities"}
# A reading older than this before the sample shown is not this moment's: connections are
# recorded only while they are read (a benchmark runs, or the view was open) and changed.
CONNS_FRESH_S = 5.0


def _event_label(r: Record) -> str:
    """A journal step or a benchmark event in a few words; the file is hostile: every
    string through the one sanitiser, bounded."""
    v = r.data.get("v")
    v = v if isinstance(v, dict) else {}

    def word(name: str) -> str:
        x = v.get(name)
        return printable(x if isinstance(x, str | int | float) else "?", 60)

    if r.kind == "journal":
        return f"{word('status')} {word('key')}: {word('before')} -> {word('after')}"
    return f"benchmark {word('event')} (repeat {word('repeat')})"


class RecordingReader(HostReader):
    def __init__(self, rec: Recording, start: float = 0.0) -> None:
        self._empty = tempfile.TemporaryDirectory(prefix="tuitune-replay-")
        super().__init__(HostRoot.fixture(Path(self._empty.name)))
        self.recording = rec
        self.ifname = rec.header.iface
        self._records = rec.records_from(start)  # the chunk index: not from the file start
        # The first state recorded, wherever it is: the sampler reads the state before the
        # first counters, and the live screen's recording has it after its first sample.
        self._state: dict[str, Record] = {}
        for r in rec.reading.records():
            if r.kind in ("host", "nic"):
                self._state.setdefault(r.kind, r)
            if len(self._state) == 2:
                break
        self._decoded: dict[str, tuple[Record, Any]] = {}
        self._conns: Record | None = None  # the last `conns` record by the sample shown
        self._last: Counters | None = None
        self._buffer: list[Record] = []
        # Called (on the sampler's thread) when the last sample is handed out: replay pauses.
        self.on_end: Callable[[], None] | None = None
        self.at = 0.0  # the time of the last sample handed out
        self.ended = False
        self.error: str | None = None  # why replay stopped early (a record refused)
        self._start = start
        self._seek: float | None = None  # asked from the UI thread, done on the kernel's
        self._times: list[float] | None = None
        self._events: list[tuple[float, str]] | None = None

    # -- moving in time (replay's keys; the sampler then steps) --------------------------------
    def seek(self, at: float) -> None:
        """The next sample handed out is the first at or after `at` seconds."""
        self._seek = at

    def times(self) -> list[float]:
        """Every sample's time, in order (read once)."""
        if self._times is None:
            self._times = [r.at for r in self.recording.reading.records() if r.kind == "sample"]
        return self._times

    def events(self) -> list[tuple[float, str]]:
        """Where something happened: a journal step, a benchmark's event, the NIC's or the
        host's state recorded changed (a setting). The first state is not an event."""
        if self._events is None:
            seen: dict[str, object] = {}
            out = []
            for r in self.recording.reading.records():
                if r.kind in ("journal", "bench"):
                    out.append((r.at, _event_label(r)))
                elif r.kind in STATES:
                    # A chunk's start repeats the state: only one that differs is a change.
                    v = r.data.get("v")
                    if r.kind in seen and seen[r.kind] != v:
                        out.append((r.at, _STATE_LABEL[r.kind]))
                    seen[r.kind] = v
            self._events = out
        return self._events

    def _do_seek(self) -> None:
        at, self._seek = self._seek, None
        if at is None:
            return
        self._records = self.recording.records_from(at)  # a chunk or two, not the whole file
        self._buffer = []
        self._conns = None  # a reading from before the seek's chunk is not this time's
        self._start = at
        self.ended = False

    def close(self) -> None:
        super().close()
        self._empty.cleanup()

    def interfaces(self) -> list[str]:
        return [self.ifname] if self.ifname else []

    def check_interface(self, ifname: str) -> None:
        if ifname != self.ifname:
            raise UnknownInterface(ifname, self.interfaces())

    def _pull(self) -> Record | None:
        if self._buffer:
            return self._buffer.pop(0)
        try:
            return next(self._records)
        except StopIteration:
            return None
        except Refused as exc:  # a record refused: replay stops there, with its line
            self.error = str(exc)
            return None

    def _next_sample(self) -> Record | None:
        """The next sample record at or after the start, the state before it applied."""
        while (r := self._pull()) is not None:
            if r.kind in STATES:
                self._state[r.kind] = r
            elif r.kind == "conns":
                self._conns = r
            elif r.kind == "sample" and r.at >= self._start:
                return r
        return None

    def _is_last(self) -> bool:
        """No sample follows (read ahead; the records read are kept for the next tick)."""
        while True:
            try:
                r = next(self._records)
            except (StopIteration, Refused):
                return True
            self._buffer.append(r)
            if r.kind == "sample":
                return False

    def _next(self) -> Counters:
        self._do_seek()
        r = None if self.ended else self._next_sample()
        if r is not None:
            try:
                c: Counters = self.recording._decode(r)
            except Refused as exc:
                self.error, r = str(exc), None
            else:
                self._last, self.at = c, r.at
                if self._is_last():
                    self.ended = True
                    self._buffer = [x for x in self._buffer if self._apply(x)]
                    if self.on_end is not None:
                        self.on_end()  # the last sample stays on screen, with its rates
                return c
        self.ended = True
        if self._last is None:
            raise Refused(self.error or f"{self.recording.name}: no sample to replay")
        # Past the end (a key asked for a tick): one line over the screen, nothing else moves.
        why = self.error or f"the end of the recording ({self.at:.1f} s): q leaves"
        raise KernelFileError(Unavailable("missing", why))

    def _apply(self, r: Record) -> bool:
        if r.kind in STATES:
            self._state[r.kind] = r
        elif r.kind == "conns":
            self._conns = r
        return False

    def _connections(self, ifname: str) -> tuple[Connection, ...] | Unavailable:
        """The connections recorded by the sample shown (replay's `C`), read back as the
        advisor's are (checked addresses); none within CONNS_FRESH_S: said so."""
        r = self._conns
        if ifname != self.ifname:
            raise UnknownInterface(ifname, self.interfaces())
        if r is None or self.at - r.at > CONNS_FRESH_S:
            when = "" if r is None else f" (last at {r.at:.1f} s)"
            return Unavailable(
                "missing",
                f"no connections recorded at {self.at:.1f} s{when}: a recording holds them "
                "while a benchmark runs or the connections view is open",
            )
        where = f"{self.recording.name}: conns at {r.at:.1f} s"
        try:
            got = decode(r.data.get("v"), tuple[Connection, ...], where)
        except Refused as exc:
            return Unavailable("missing", str(exc))
        return checked_connections(got, where)

    def _state_of(self, kind: str) -> Any:
        r = self._state.get(kind)
        if r is None:
            return None
        held = self._decoded.get(kind)
        if held is None or held[0] is not r:
            held = (r, self.recording._decode(r))
            self._decoded[kind] = held
        return held[1]

    def _counters(self, ifname: str | None, irqs: Collection[str] | None = None) -> Counters:
        return self._next()

    def _nic_state(
        self, ifname: str, with_stats: bool, interrupts: Interrupts | None = None
    ) -> NicState:
        nic: NicState | None = self._state_of("nic")
        if nic is None or ifname != self.ifname:
            raise UnknownInterface(ifname, self.interfaces())
        return nic

    def _queue_stats(self, ifname: str) -> QueueStatsRead:
        """The per-queue and driver counters recorded with the sample just handed out."""
        c = self._last
        if c is None or c.queue_stats is None or ifname != self.ifname:
            return NOT_IN_RECORDING
        return c.queue_stats, c.queue_source or "ethtool -S"

    def all_affinity(self, counters: Counters) -> dict[str, IrqAffinity]:
        """Every IRQ's affinity as recorded by then (the all-IRQs view); none: {} (the IRQ
        panel then shows the NIC's, which the NIC state holds)."""
        return self.all_affinity_recorded()

    def view_affinities(
        self, irqs: Sequence[str], rounds: AffinityRounds, everything: bool
    ) -> dict[str, IrqAffinity] | None:
        """All of them as recorded by then: a recording is read whole, in no rounds (and its
        table is whole only every tenth sample, so `irqs` may be none)."""
        return self.all_affinity_recorded()

    def all_affinity_recorded(self) -> dict[str, IrqAffinity]:
        got: dict[str, IrqAffinity] | None = self._state_of("irqs")
        return dict(got) if got is not None else {}

    def _host_state(self, host_wide: dict[str, str | Unavailable] | None = None) -> HostState:
        host: HostState | None = self._state_of("host")
        if host is None:
            raise Refused(f"{self.recording.name}: no host state recorded")
        return host
