"""`tuitune replay`'s keys: step a sample back or on, jump to the next (or last) change, to a
time, play faster or slower. Each moves the recording reader and then has the sampler take
the ticks (paused): the screen shows the sample at the cursor with its rates against the one
before it, exactly as it drew it while playing. Nothing here touches the host."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from tuitune.core.record.player import RecordingReader
from tuitune.core.watch.sampler import Sampler
from tuitune.tui.screens.dialogs import EditorScreen
from tuitune.tui.shell import Shell

if TYPE_CHECKING:
    from tuitune.core.advise import ContextKind, Facts


class ReplayShell(Shell, Protocol):
    """The App as replay needs it: the shell, and the sampler it steps."""

    sampler: Sampler


SPEED_MIN, SPEED_MAX = 0.125, 64.0


class ReplayControl:
    def __init__(self, app: ReplayShell, reader: RecordingReader) -> None:
        self.app = app
        self.reader = reader
        self.base = app.sampler.interval  # the pace replay started at (--speed applied)
        self.speed = 1.0

    def _index(self) -> int:
        """The sample on screen, as an index into the recording's samples."""
        times = self.reader.times()
        return max(0, bisect.bisect_right(times, self.reader.at + 1e-9) - 1)

    def go(self, index: int, why: str = "") -> None:
        """Show sample `index` (bounded), with its rates: the reader restarts at the one
        before it and the sampler takes both, paused."""
        times = self.reader.times()
        if not times:
            return
        index = min(max(0, index), len(times) - 1)
        before = max(0, index - 1)
        sampler = self.app.sampler
        sampler.pause(True)
        self.reader.seek(times[before])
        sampler.restart_rates()
        sampler.step(index - before + 1)
        where = f"replay at {times[index]:.1f} s (sample {index + 1} of {len(times)})"
        self.app.notify_line(f"{where}: {why}" if why else where)

    def window(self) -> tuple[float, float]:
        """The advisor's window around the sample on screen (core/record/judge.py)."""
        from tuitune.core.record.judge import around

        times = self.reader.times()
        return around(self.reader.at, times[0], times[-1]) if times else (0.0, 0.0)

    def judged(self, kind: ContextKind) -> tuple[Callable[[], Facts], str]:
        """`A` in replay: the window around the cursor, judged as `advise --recording FILE
        --from T1 --to T2` judges it (the title names that command's window)."""
        from tuitune.core.advise import Context
        from tuitune.core.record.judge import recorded_facts

        start, end = self.window()
        rec = self.reader.recording

        def make() -> Facts:
            return recorded_facts(rec, start, end, Context(kind))

        return make, f"from {start:g} s to {end:g} s (--from {start:g} --to {end:g})"

    def step(self, by: int) -> None:
        self.go(self._index() + by)

    def event(self, direction: int) -> None:
        """The sample just after the next (or the previous) change: a journal step, a
        benchmark, a NIC or host state that differs from the last recorded."""
        times, now = self.reader.times(), self.reader.at
        events = self.reader.events()
        if direction > 0:
            found = [e for e in events if e[0] > now + 1e-9][:1]
        else:
            found = [e for e in events if e[0] < now - 1e-9][-1:]
        if not found or not times:
            self.app.notify_line(
                "no change recorded " + ("after" if direction > 0 else "before") + f" {now:.1f} s"
            )
            return
        at, label = found[0]
        self.go(bisect.bisect_left(times, at - 1e-9), label)

    def faster(self, factor: float) -> None:
        self.speed = min(SPEED_MAX, max(SPEED_MIN, self.speed * factor))
        self.app.sampler.interval = max(0.05, self.base / self.speed)
        self.app.notify_line(f"replay speed x{self.speed:g}")

    def ask_time(self) -> None:
        times = self.reader.times()
        last = times[-1] if times else 0.0

        def done(typed: str | None) -> None:
            if typed is None:
                return
            try:
                at = float(typed)
            except ValueError:
                at = -1.0
            if not 0 <= at <= 1e9:  # NaN fails too
                self.app.notify_line(f"not a time: {typed[:40]!r} (seconds, 0 to {last:.1f})", True)
                return
            self.go(max(0, bisect.bisect_right(times, at + 1e-9) - 1))

        self.app.push_screen(
            EditorScreen(
                "the replay position (seconds)",
                f"{self.reader.at:.1f}",
                f"seconds from the first sample, 0 to {last:.1f}",
            ),
            done,
        )
