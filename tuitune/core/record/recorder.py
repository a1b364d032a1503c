"""The sampler's samples into a recording: every tick's counters, the state when it changed."""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuitune import __version__
from tuitune.core.record.codec import encode
from tuitune.core.record.fileformat import RecordError, Writer
from tuitune.core.watch.sampler import Sample
from tuitune.core.watch.snapshot import QUEUE_SOURCES, HostState

if TYPE_CHECKING:
    from tuitune.core.host.conns import Connection
    from tuitune.core.host.irqs import IrqAffinity
    from tuitune.core.session.outcome import Outcome


class Recorder:
    """Writes what a `Sampler` delivers to a new recording at `path` (RecordError: stopped)."""

    def __init__(
        self,
        path: Path | str,
        *,
        iface: str | None,
        netns: str | None,
        interval: float,
        host: HostState,
        started: float,
    ) -> None:
        header = {
            "tuitune": __version__,
            "started": started,  # wall-clock time of the first sample (time.time())
            "iface": iface,
            "netns": netns,
            "interval": interval,
            "hostname": host.hostname,
            "kernel": host.kernel,
            "cpus": len(host.topology.online),
        }
        self.writer = Writer(path, header)
        # The sampler's thread writes samples, the screen's writes journal steps and
        # benchmark events: one frame at a time into the one zlib stream.
        self._lock = threading.Lock()
        self._t0: float | None = None
        self._last: dict[str, Any] = {}
        self._counters: object = None  # the last sample's counters, recorded once
        self._affinity: dict[str, IrqAffinity] | None = None  # the last IRQ affinities seen
        self._conns: tuple[Connection, ...] | None = None  # the last connections recorded
        self.samples = 0
        self.stopped: str | None = None  # why recording stopped (one line), for the screen

    def close(self) -> None:
        with self._lock:
            self.writer.close()

    def sample(self, s: Sample) -> None:
        with self._lock:
            self._sample(s)

    def _sample(self, s: Sample) -> None:
        if self.writer.fd < 0:  # closed (the screen's key stopped it) while this tick came
            return
        if s.counters is None:  # a failed read: its line is kept, the numbers are not there
            if s.error:
                self.writer.add({"t": "note", "at": 0.0, "text": s.error})
            return
        if self._t0 is None:
            self._t0 = s.counters.time
        at = s.counters.time - self._t0
        again = s.counters is self._counters  # the sampler's second delivery of a tick
        # State first: `show --at` of this sample sees the state it was taken with.
        if s.host is not None:
            self._state("host", encode(s.host), at)
        if s.nic is not None:
            self._state("nic", encode(s.nic), at)
        # Every IRQ's, read at the sampler's whole-table ticks and a few a tick between: the
        # same map again (most ticks) is not encoded again to be compared.
        if s.all_affinity is not None and s.all_affinity != self._affinity:
            self._affinity = s.all_affinity
            self._state("irqs", encode(s.all_affinity), at)
        if isinstance(s.connections, tuple) and s.connections != self._conns:
            # The interface's TCP connections, read while a benchmark runs or the connections
            # view is open: what the advisor judges with the window (record `conns`).
            self._conns = s.connections
            self.writer.add({"t": "conns", "at": at, "v": encode(s.connections)})
        if not again:
            self._counters = c = s.counters
            if s.driver_stats is not None:  # the per-queue and driver counters of this tick
                source = next((x for x in QUEUE_SOURCES if x == s.stats_source), None)
                c = replace(c, queue_stats=tuple(s.driver_stats), queue_source=source)
            self.writer.add({"t": "sample", "at": at, "seq": s.seq, "c": encode(c)})
            self.samples += 1

    def now(self) -> float | None:
        """Seconds into the recording now, on its samples' clock (None before the first)."""
        return None if self._t0 is None else time.monotonic() - self._t0

    def safe_event(self, kind: str, value: dict[str, Any]) -> None:
        """`event` for the screen: a failed write stops the recording (its line comes with
        the next sample, as `tee` says), never the screen."""
        if self.stopped is not None:
            return
        try:
            self.event(kind, value)
        except RecordError as exc:
            self.stopped = str(exc)
            self.close()

    def tee(self, deliver: Callable[[Sample], None]) -> Callable[[Sample], None]:
        """`deliver` with each sample recorded first (the live screen's --record). A failed
        write stops the recording, never the screen: every later sample carries the line."""

        def both(s: Sample) -> None:
            deliver(self.pass_on(s))

        return both

    def pass_on(self, s: Sample) -> Sample:
        """`s` recorded, then handed on; after a failed write, with its line."""
        if self.stopped is None:
            try:
                self.sample(s)
            except RecordError as exc:
                self.stopped = str(exc)
                self.close()
        if self.stopped is not None and s.error is None:
            s = replace(s, error=self.stopped)
        return s

    def _state(self, kind: str, tree: Any, at: float) -> None:
        if self._last.get(kind) != tree:  # only when it changed
            self._last[kind] = tree
            self.writer.add({"t": kind, "at": at, "v": tree})

    def note(self, text: str, at: float | None = None) -> None:
        with self._lock:
            self.writer.add({"t": "note", "at": at or 0.0, "text": text})

    def journal(self, step: dict[str, Any], at: float) -> None:
        """A journal step (what changed, from what, to what) as the session wrote it."""
        self.event("journal", step, at)

    def event(self, kind: str, value: dict[str, Any], at: float | None = None) -> None:
        """A journal step or a benchmark event at `at` seconds (None: now, on the samples'
        clock); nothing before the first sample or after the recording stopped."""
        with self._lock:
            if self._t0 is None or self.writer.fd < 0:
                return
            when = time.monotonic() - self._t0 if at is None else at
            self.writer.add({"t": kind, "at": max(0.0, when), "v": value})


def journal_event(out: Outcome, end: str = "") -> dict[str, object]:
    """A change's step as a recording holds it (record `journal`): the live screen's and a
    sweep's write the same. `end`: the peer's name for a step made at a sweep's peer."""
    return {
        "key": f"{end} {out.key.label}" if end else out.key.label,
        "status": out.status,
        "before": out.before,
        "after": out.after,
        "reason": out.reason,
    }


def bench_event(event: object) -> dict[str, object] | None:
    """A benchmark's start and end as a recording holds them (record `bench`): the live
    screen's runs and a headless `tuitune bench`'s write the same."""
    from tuitune.core.bench.runner import Finished, Started

    if isinstance(event, Started):
        return {"event": "started", "repeat": event.repeat, "argv": list(event.argv)}
    if isinstance(event, Finished):
        r = event.result
        return {
            "event": "finished",
            "repeat": event.repeat,
            "sent_bps": r.sent_bps,
            "received_bps": r.received_bps,
            "error": r.error,
        }
    return None


def window_tags(path: str, start: float, end: float) -> dict[str, str]:
    """A run's window in a recording, as its notebook entry's tags: the times widened to
    tenths of a second (down at the start, up at the end), so that `advise --recording FILE
    --from T1 --to T2` with them judges every sample of the run (rounded to the nearest, a
    sample taken just after the run started fell before the rounded start)."""
    return {
        "recording": path,
        "recording_from": f"{math.floor(start * 10) / 10:.1f}",
        "recording_to": f"{math.ceil(end * 10) / 10:.1f}",
    }
