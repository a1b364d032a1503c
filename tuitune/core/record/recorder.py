"""The sampler's samples into a recording: every tick's counters, the state when it changed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tuitune import __version__
from tuitune.core.record.codec import encode
from tuitune.core.record.fileformat import RecordError, Writer
from tuitune.core.sampler import Sample
from tuitune.core.snapshot import HostState


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
        self._t0: float | None = None
        self._last: dict[str, Any] = {}
        self._counters: object = None  # the last sample's counters, recorded once
        self.samples = 0
        self.stopped: str | None = None  # why recording stopped (one line), for the screen

    def close(self) -> None:
        self.writer.close()

    def sample(self, s: Sample) -> None:
        if s.counters is None:  # a failed read: its line is kept, the numbers are not there
            if s.error:
                self.note(s.error)
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
        if not again:
            self._counters = s.counters
            self.writer.add({"t": "sample", "at": at, "seq": s.seq, "c": encode(s.counters)})
            self.samples += 1

    def tee(self, deliver: Callable[[Sample], None]) -> Callable[[Sample], None]:
        """`deliver` with each sample recorded first (the live screen's --record). A failed
        write stops the recording, never the screen: every later sample carries the line."""

        def both(s: Sample) -> None:
            if self.stopped is None:
                try:
                    self.sample(s)
                except RecordError as exc:
                    self.stopped = str(exc)
                    self.close()
            if self.stopped is not None and s.error is None:
                s = replace(s, error=self.stopped)
            deliver(s)

        return both

    def _state(self, kind: str, tree: Any, at: float) -> None:
        if self._last.get(kind) != tree:  # only when it changed
            self._last[kind] = tree
            self.writer.add({"t": kind, "at": at, "v": tree})

    def note(self, text: str, at: float | None = None) -> None:
        self.writer.add({"t": "note", "at": at or 0.0, "text": text})

    def journal(self, step: dict[str, Any], at: float) -> None:
        """A journal step (what changed, from what, to what) as the session wrote it."""
        self.writer.add({"t": "journal", "at": at, "v": step})
