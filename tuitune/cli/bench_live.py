"""How a headless `tuitune bench` run reads on the terminal: each interval as it comes, each
repeat's result, the per-stream and latency lines, and the comparison with the baseline at
the end. cli/bench.py runs it; this module only prints."""

from __future__ import annotations

import threading
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tuitune.core.text import printable, printable_lines

if TYPE_CHECKING:
    from tuitune.core.bench.load import LoadTracker
    from tuitune.core.bench.model import BenchResult, BenchSpec, Interval
    from tuitune.core.bench.runner import BenchEvent
    from tuitune.core.bench.runtable import RunRow


def interval_line(iv: Interval, bidir: bool, streams: tuple[float, ...] = ()) -> str:
    retr = f"  {iv.retransmits} retr" if iv.retransmits is not None else ""
    who = f"{'send' if iv.role == 'sender' else 'recv'} " if bidir else ""
    line = f"  {iv.start:5.1f}-{iv.end:<5.1f} s  {who}{iv.bits_per_second / 1e6:8.0f} Mb/s{retr}"
    if streams:  # a --processes run: the sum, and the stream that holds it back
        slow = min(range(len(streams)), key=lambda i: streams[i])
        line += f"  (sum of {len(streams)}; slowest #{slow + 1} {streams[slow] / 1e6:.0f} Mb/s)"
    return line


def result_lines(result: BenchResult, load: Any, bidir: bool, engine: str = "iperf3") -> list[str]:
    from tuitune.core.bench.runformat import mbps, stream_text

    lines = []
    if result.latency_median_us is not None:
        p99, p999 = result.latency_p99_us, result.latency_p999_us
        tps = result.transactions_per_s
        lines.append(
            f"  round trip: median {result.latency_median_us:.1f} us, p99 "
            f"{'-' if p99 is None else f'{p99:.1f}'} us, p99.9 "
            f"{'-' if p999 is None else f'{p999:.1f}'} us, "
            f"{'-' if tps is None else f'{tps:.0f}'} transactions/s"
        )
    if result.sent_bps is not None or result.received_bps is not None:
        what = "this side -> peer" if bidir else "sent/received"
        retr = "-" if result.retransmits is None else str(result.retransmits)
        lines.append(
            f"  {what}: {mbps(result.sent_bps)} / {mbps(result.received_bps)} Mb/s, "
            f"{retr} retransmits"
        )
    if bidir and (result.return_sent_bps is not None or result.return_received_bps is not None):
        retr = "-" if result.return_retransmits is None else str(result.return_retransmits)
        lines.append(
            f"  peer -> this side: {mbps(result.return_sent_bps)} / "
            f"{mbps(result.return_received_bps)} Mb/s, {retr} retransmits"
        )
    if result.loss_pct is not None:
        jitter = "-" if result.jitter_ms is None else f"{result.jitter_ms:.3f}"
        lines.append(
            f"  UDP: {result.lost_packets}/{result.total_packets} datagrams lost "
            f"({result.loss_pct:.2f}%), jitter {jitter} ms"
        )
    for i, stream in enumerate(result.streams):
        lines.append(f"  stream {i + 1}: {stream_text(stream)}")
    if result.local_cpu is not None:
        lines.append(
            f"  {engine} CPU: local {result.local_cpu:.1f}%, remote {result.remote_cpu or 0:.1f}%"
        )
    if load is not None and load.samples:
        sys_cpu = max(load.peak_sys.items(), key=lambda kv: kv[1], default=None)
        soft_cpu = max(load.peak_soft.items(), key=lambda kv: kv[1], default=None)
        parts = []
        if sys_cpu is not None:
            parts.append(f"peak sys cpu{sys_cpu[0]} {sys_cpu[1]:.0f}%")
        if soft_cpu is not None:
            parts.append(f"peak soft cpu{soft_cpu[0]} {soft_cpu[1]:.0f}%")
        parts.append(f"{sum(load.drops.values())} softnet drops")
        lines.append("  tuitune: " + ", ".join(parts))
    return lines


class LiveRun:
    """The run as it goes: prints each event, and keeps one LoadTracker per repeat."""

    def __init__(self, spec: BenchSpec, lab: Any = None, nic: Any = None) -> None:
        self.spec = spec
        self.lab = lab  # its server's placement is read as each repeat ends
        self.nic = nic  # NicState before the run: where its IRQs deliver (None: unknown)
        self.tracker: LoadTracker | None = None
        self.loads: list[Any] = []
        self.placements: list[dict[str, str]] = []
        self.started: list[str] = []
        self.lock = threading.Lock()

    def on_event(self, event: BenchEvent) -> None:  # runner thread
        from tuitune.core.bench.load import LoadTracker
        from tuitune.core.bench.placement import placement_line
        from tuitune.core.bench.runner import Finished, IntervalEvent, Started

        bidir = self.spec.direction == "bidir"
        if isinstance(event, Started):
            self.started.append(datetime.now().astimezone().isoformat(timespec="seconds"))
            self.tracker = LoadTracker()
            n = self.spec.repeats
            label = f"repeat {event.repeat + 1}/{n}: " if n > 1 else ""
            print(printable(f"{label}{' '.join(event.argv)}", 1000), flush=True)
            if self.spec.processes and self.spec.streams > 1:
                print(f"  ... and {self.spec.streams - 1} more processes, one stream each")
        elif isinstance(event, IntervalEvent):
            print(interval_line(event.interval, bidir, event.streams), flush=True)
        elif isinstance(event, Finished):
            tracker, self.tracker = self.tracker, None
            load = tracker.result() if tracker is not None else None
            self.loads.append(load)
            placed = self._placement()
            self.placements.append(placed)
            for line in result_lines(event.result, load, bidir, self.spec.engine):
                print(line, flush=True)
            print(f"  placement: {placement_line(placed)}", flush=True)
            if event.result.error:  # iperf3's words (and the peer's): escaped
                print(printable_lines(f"  {event.result.error}"), flush=True)

    def _placement(self) -> dict[str, str]:
        from tuitune.core.bench.placement import run_placement

        return run_placement(self.lab, self.nic, self.spec)

    def on_sample(self, sample: Any) -> None:  # sampler thread
        tracker = self.tracker
        if tracker is not None:
            tracker.add(sample)


def delta_lines(row: RunRow, rows: list[RunRow]) -> list[str]:
    from tuitune.core.bench.runformat import latency_text, mbps

    tp = row.throughput
    spread = f" ({mbps(tp.low)}..{mbps(tp.high)})" if tp.low != tp.high else ""
    head = f"{row.group}: {mbps(tp.median)} Mb/s{spread}"
    latency = tp.median is None and row.latency.median is not None
    if latency:
        head = f"{row.group}: {latency_text(row)}"
    if row.repeats > 1:
        head += f", median of {row.complete}"
    if row.baseline:
        return [head + ": this is the baseline (tuitune runs --baseline ID picks another)"]
    base = next(r for r in rows if r.baseline)
    if row.test_differs:  # another test: its numbers say nothing about the settings
        return [
            head,
            f"not compared with baseline {base.group}: the test differs ({row.test_differs})",
        ]

    def signed(value: float | None, suffix: str = "", digits: int = 1) -> str:
        return "-" if value is None else f"{value:+.{digits}f}{suffix}"

    if latency:
        return [
            head,
            f"against baseline {base.group} ({latency_text(base)}): round trip median "
            f"{signed(row.d_latency, '%')} (lower is better)",
            f"changed: {row.changes or 'nothing (same settings)'}",
        ]
    lines = [
        head,
        f"against baseline {base.group} ({mbps(base.throughput.median)} Mb/s): throughput "
        f"{signed(row.d_throughput, '%')}, retransmits {signed(row.d_retransmits, digits=0)}, "
        f"CPU {signed(row.d_cpu, '%')}",
        f"changed: {row.changes or 'nothing (same settings)'}",
    ]
    return lines
