"""The live screen's recording: none, or one `Recorder` started and stopped while the screen
runs (`--record FILE` at its start, the `w` key at any time; docs/recording.md).

The screen's sampler delivers through `tee` from its start whether or not a recording runs,
so that one can begin at any tick. The Recorder is loaded when one starts (issue 38: a
screen that never records does not import the writer)."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.core.text import printable
from tuitune.core.units import size

if TYPE_CHECKING:
    from tuitune.core.record.recorder import Recorder
    from tuitune.core.watch.sampler import Sample
    from tuitune.core.watch.snapshot import HostState


class LiveRecording:
    def __init__(self) -> None:
        self.recorder: Recorder | None = None

    @property
    def active(self) -> bool:
        """A recording is open and writing (not stopped by a failed write)."""
        rec = self.recorder
        return rec is not None and rec.stopped is None

    def tee(self, deliver: Callable[[Sample], None]) -> Callable[[Sample], None]:
        """`deliver` with each sample recorded first while a recording runs (the sampler's
        thread); a failed write stops the recording and its line rides on every sample."""

        def both(s: Sample) -> None:
            rec = self.recorder
            deliver(rec.pass_on(s) if rec is not None else s)

        return both

    def adopt(self, recorder: Recorder) -> None:
        """`--record FILE`: the recording opened before the screen started."""
        self.recorder = recorder

    def start(
        self,
        path: Path,
        *,
        iface: str | None,
        netns: str | None,
        interval: float,
        host: HostState,
    ) -> Recorder:
        """A new recording at `path` (OSError, one line: nothing written)."""
        from tuitune.core.record.recorder import Recorder

        # A file-size limit (ulimit -f) stops the recording with a line, not tuitune (off the
        # main thread the signal keeps its handler).
        with contextlib.suppress(ValueError):
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        rec = Recorder(
            path, iface=iface, netns=netns, interval=interval, host=host, started=time.time()
        )
        self.recorder = rec
        return rec

    def stop(self) -> str | None:
        """Close the recording; one line naming its file, its samples and its size (None:
        none was running)."""
        rec, self.recorder = self.recorder, None
        if rec is None:
            return None
        rec.close()
        return summary(rec)

    def event(self, kind: str, value: dict[str, object]) -> None:
        """A journal step or a benchmark event into the recording, if one runs."""
        rec = self.recorder
        if rec is not None:
            rec.safe_event(kind, value)

    def path(self) -> str | None:
        rec = self.recorder
        return os.path.abspath(rec.writer.path) if rec is not None else None

    def now(self) -> float | None:
        rec = self.recorder
        return rec.now() if rec is not None else None

    def badge(self) -> str | None:
        """The header's word while recording: "REC 41.2 KiB" (None: not recording)."""
        rec = self.recorder
        if rec is None or rec.stopped is not None:
            return None
        return f"REC {size(rec.writer.bytes)}"


def summary(rec: Recorder) -> str:
    """ "FILE: 61 samples, 13.1 KiB" (or why it stopped early, and the same counts)."""
    n = rec.samples
    counts = f"{n} sample{'' if n == 1 else 's'}, {size(rec.writer.bytes)}"
    if rec.stopped is not None:
        return f"{rec.stopped} ({counts})"
    return f"{printable(short_path(os.fspath(rec.writer.path)))}: {counts}"


def short_path(path: str) -> str:
    """`path` with the home directory as ~ (the offered place is under it): a shorter line."""
    home = os.path.expanduser("~")
    if home not in ("", "/") and path.startswith(home + os.sep):
        return "~" + path[len(home) :]
    return path
