"""The strip at the bottom of the live screen while a benchmark runs, and after it ends.

The CPU grid and the panels stay visible above it (the point of running from the TUI: see
which core is pegged, and whether by sys or soft). `LiveRun` is what the strip knows, fed by
the controller (app_bench.py) from the runner's events; `strip_text` draws it as lines of
Rich Text, a pure function, so what it says is tested without a terminal.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from rich.style import Style
from rich.text import Text
from textual.widgets import Static

from tuitune.core.text import printable, printable_lines
from tuitune.core.units import bitrate
from tuitune.tui.look.glyphs import Glyphs, bar, heat_char
from tuitune.tui.look.look import DEFAULT_LOOK, Look
from tuitune.tui.look.palette import Palette

# The strip is on the live screen from the start, empty: the benchmark's code loads when a
# run is drawn (issue 18).
if TYPE_CHECKING:
    from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Interval

State = Literal["starting", "running", "done", "failed", "cancelled"]
STOP_KEY = "X"  # stops a run; closes the strip once it has ended
HISTORY = 40  # intervals kept for the sparkline


def bps(bits_per_second: float | None) -> str:
    return "-" if bits_per_second is None else bitrate(bits_per_second / 8)


@dataclass
class LiveRun:
    """One request (all its repeats) as the strip shows it."""

    spec: BenchSpec
    group: str = ""  # the notebook id of its first run, once known
    repeat: int = 1  # 1-based, the repeat under way (or the last one)
    state: State = "starting"
    intervals: list[Interval] = field(default_factory=list)  # of the repeat under way
    history: list[float] = field(default_factory=list)  # throughput per second, all repeats
    results: list[BenchResult] = field(default_factory=list)  # one per finished repeat
    loads: list[CpuLoad] = field(default_factory=list)
    message: str = ""  # the runner's error, in its words
    note: str = ""  # e.g. "recorded r3..r5 (N: runs)"
    streams: tuple[float, ...] = ()  # a --processes run: each stream's rate in the last second

    @property
    def elapsed(self) -> float:
        return max((i.end for i in self.intervals), default=0.0)

    def latest(self) -> list[Interval]:
        """The intervals of the last second reported (two in a bidir run: sent and received)."""
        if not self.intervals:
            return []
        end = self.intervals[-1].end
        return [i for i in self.intervals if i.end == end]

    def add(self, interval: Interval) -> None:
        self.intervals.append(interval)
        same = [i for i in self.intervals if i.end == interval.end]
        total = sum(i.bits_per_second for i in same)
        if len(same) > 1 and self.history:
            self.history[-1] = total  # a bidir second: the sum of both directions
        else:
            self.history.append(total)
        del self.history[:-HISTORY]


def sparkline(values: Sequence[float], width: int, g: Glyphs) -> str:
    """The last `width` values, one cell each, scaled to the largest shown."""
    shown = list(values)[-width:] if width > 0 else []
    top = max(shown, default=0.0)
    if top <= 0:
        return g.heat[0] * len(shown)
    return "".join(heat_char(v / top, g) for v in shown)


def _median(xs: Sequence[float | int | None]) -> float | None:
    got = [x for x in xs if x is not None]
    import statistics  # here: a run's strip needs it, the first frame does not (issue 38)

    return statistics.median(got) if got else None


def _num(x: float | None, fmt: str = "{:.1f}%") -> str:
    return "-" if x is None else fmt.format(x)


def strip_text(run: LiveRun, width: int, g: Glyphs, p: Palette) -> Text:
    """The strip's lines: what runs and its key first (a narrow terminal cuts the ends of
    lines), then the live numbers, or the results with tuitune's CPU peaks."""
    from tuitune.core.bench.runtable import spec_summary

    spec = run.spec
    head = Text()
    head.append(f"Bench {run.group}".strip(), style=p.header)
    live = run.state in ("starting", "running")
    word = {"cancelled": "stopped"}.get(run.state, run.state)
    head.append(f" {word}", style=p.warn if run.state in ("failed", "cancelled") else None)
    if spec.repeats > 1:
        if live:
            head.append(f", repeat {run.repeat} of {spec.repeats}")
        elif len(run.results) > 1:
            head.append(f", median of {len(run.results)} repeats")
    if run.note:
        head.append(f", {run.note}", style=p.muted)
    head.append(f"   {STOP_KEY}: {'stop' if live else 'close'}   ", style=p.warn if live else None)
    head.append(printable(spec_summary(spec), 200), style=p.muted)  # the peer as typed
    lines = [head]
    if live:
        lines.append(_live_line(run, width, g, p))
    else:
        lines += _end_lines(run, width, p)
    return Text("\n").join(lines)


def _live_line(run: LiveRun, width: int, g: Glyphs, p: Palette) -> Text:
    spec = run.spec
    line = Text()
    if run.state == "starting":
        line.append(f"starting {spec.engine}...", style=p.muted)
        return line
    done = min(1.0, run.elapsed / spec.duration) if spec.duration else 0.0
    bar_w = max(10, min(30, width // 5))
    line.append("[")
    line.append(bar(done, bar_w, g), style=p.on)
    line.append("]")
    line.append(f" {run.elapsed:.0f}/{spec.duration} s  ")
    latest = run.latest()
    if not latest:
        waiting = "measuring (sockperf reports at the end)" if spec.engine == "sockperf" else ""
        line.append(waiting or "waiting for the first interval", style=p.muted)
        return line
    for i in latest:
        if len(latest) > 1:
            line.append("tx " if i.role == "sender" else "rx ", style=p.muted)
        line.append(f"{bps(i.bits_per_second):>10}", style=Style(bold=True))
        secs = i.end - i.start
        if i.retransmits is not None and secs > 0:
            retr = i.retransmits / secs
            line.append(f"  retr {retr:.0f}/s", style=p.warn if retr else None)
        line.append("  ")
    if run.streams:  # the sum above; the stream that holds it back
        slow = min(range(len(run.streams)), key=lambda k: run.streams[k])
        line.append(f"sum of {len(run.streams)}, slowest #{slow + 1} ", style=p.muted)
        line.append(f"{bps(run.streams[slow])}  ", style=p.warn)
    room = width - line.cell_len - 2
    if room >= 5 and run.history:
        line.append(sparkline(run.history, min(room, HISTORY), g), style=p.on)
    return line


def _end_lines(run: LiveRun, width: int, p: Palette) -> list[Text]:
    from tuitune.core.bench.load import load_text, merged_load

    results = [r for r in run.results if r.sent_bps is not None or r.received_bps is not None]
    first = Text()
    if results:
        bold = Style(bold=True)
        first.append("sent ")
        first.append(bps(_median([r.sent_bps for r in results])), style=bold)
        first.append("  received ")
        first.append(bps(_median([r.received_bps for r in results])), style=bold)
        retr = _median([r.retransmits for r in results])
        first.append(f"  retr {_num(retr, '{:.0f}')}")
        first.append(f"  CPU local {_num(_median([r.local_cpu for r in results]))}")
        first.append(f" remote {_num(_median([r.remote_cpu for r in results]))}")
        back = _median([r.return_received_bps for r in results])
        if back is not None:  # bidir: the other direction
            first.append("  back: received ")
            first.append(bps(back), style=bold)
            back_retr = _median([r.return_retransmits for r in results])
            first.append(f" retr {_num(back_retr, '{:.0f}')}")
    elif lat := [r for r in run.results if r.latency_median_us is not None]:
        bold = Style(bold=True)
        first.append("round trip median ")
        first.append(f"{_median([r.latency_median_us for r in lat]):.1f} us", style=bold)
        first.append(f"  p99 {_num(_median([r.latency_p99_us for r in lat]), '{:.0f}')} us")
        first.append(f"  p99.9 {_num(_median([r.latency_p999_us for r in lat]), '{:.0f}')} us")
        first.append(f"  {_num(_median([r.transactions_per_s for r in lat]), '{:.0f}')}/s")
    else:
        first.append(f"no result from {run.spec.engine}", style=p.warn)
    lines = [first]
    loss = _median([r.loss_pct for r in results])
    if loss is not None:
        jitter = _num(_median([r.jitter_ms for r in results]), "{:.3f}")
        lines.append(Text(f"UDP loss {loss:.2f}%  jitter {jitter} ms"))
    last = run.results[-1] if run.results else None
    if last is not None and last.streams:
        slowest = last.slowest_stream
        each = " ".join(bps(s.throughput_bps) for s in last.streams)
        text = f"{len(last.streams)} streams: {each}"
        if slowest is not None:
            text += f"  slowest port {slowest.port}"
        lines.append(Text(text))
    # The error is wrapped, not cut: its end is often the command that fixes it.
    # iperf3's words (and its peer's): escaped, then wrapped
    message = printable_lines(run.message)
    lines += [Text(part, style=p.warn) for part in textwrap.wrap(message, width)]
    lines.append(Text(load_text(merged_load(run.loads))))
    return lines


class BenchStrip(Static):
    """Below the panels, above the footer (in the flow, not docked: docked widgets on one
    edge overlap); hidden until the first run. The App sets `look` (glyphs, palette) and
    redraws it when the theme changes."""

    DEFAULT_CSS = """
    BenchStrip {
        height: auto; max-height: 6; display: none; text-wrap: nowrap; text-overflow: ellipsis;
        padding: 0 1; background: $panel; border-top: none;
    }
    BenchStrip.-shown { display: block; }
    """

    def __init__(self, *, id: str | None = None, look: Look = DEFAULT_LOOK) -> None:
        super().__init__("", id=id, markup=False)
        self.look = look
        self.run: LiveRun | None = None
        self.on_stop: Callable[[], None] | None = None  # the app is leaving: stop iperf3

    def show_run(self, run: LiveRun | None) -> None:
        self.run = run
        self.set_class(run is not None, "-shown")
        self.redraw()

    def redraw(self) -> None:
        if self.run is None:
            self.update("")
            return
        width = max(20, (self.size.width or self.app.size.width) - 2)
        self.update(strip_text(self.run, width, self.look.glyphs, self.look.palette))

    def on_mount(self) -> None:
        if self.look.ascii:
            self.styles.text_overflow = "clip"  # the console font has no ellipsis

    def on_resize(self) -> None:
        self.redraw()

    def on_unmount(self) -> None:
        if self.on_stop is not None:
            self.on_stop()
