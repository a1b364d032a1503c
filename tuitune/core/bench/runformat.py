"""The results table as text, Markdown and CSV, and two runs side by side."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from typing import Any

from tuitune.core.bench import settings as st
from tuitune.core.bench.model import Run, StreamResult
from tuitune.core.bench.runtable import RunRow, Spread, peak, spec_summary
from tuitune.core.text import printable


def mbps(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.0f}"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _signed(value: float | None, suffix: str = "", digits: int = 0) -> str:
    return "" if value is None else f"{value:+.{digits}f}{suffix}"


def setting_columns(row: RunRow) -> tuple[str, str]:
    """The (setting, value) cells: "tso, gso" and "off" when the values agree."""
    if row.baseline:
        return "baseline", ""
    if row.test_differs:  # not compared: another test, whatever the settings
        return "(test differs)", row.test_differs
    if not row.changed:
        return "(same settings)", ""
    names = ", ".join(n for n, _ in row.changed)
    values = [v for _, v in row.changed]
    value = values[0] if len(set(values)) == 1 else ", ".join(values)
    return names, value


def _spread(s: Spread, fmt: Any) -> str:
    if s.median is None:
        return "-"
    if s.low == s.high:
        return str(fmt(s.median))
    return f"{fmt(s.median)} ({fmt(s.low)}..{fmt(s.high)})"


def _peak_text(peak: tuple[int, float] | None) -> str:
    return "-" if peak is None else f"cpu{peak[0]} {peak[1]:.0f}%"


TABLE_HEADERS = (
    "run",
    "setting",
    "value",
    "throughput (Mb/s)",
    "retransmits",
    "CPU local %",
    "peak sys / soft",
    "drops",
    "test",
)


def table_cells(row: RunRow) -> list[str]:
    """The cells of one row under TABLE_HEADERS: medians, their range over repeats, and the
    change against the baseline."""
    setting, value = setting_columns(row)
    base = row.baseline
    tp = _spread(row.throughput, mbps_of)
    tp += "" if base else f" {_signed(row.d_throughput, '%', 1)}"
    if row.loss.median is not None:
        tp += f" loss {row.loss.median:.1f}%"
    if row.throughput.median is None and row.latency.median is not None:
        tp = latency_text(row) + ("" if base else f" {_signed(row.d_latency, '%', 1)}")
    retr = _spread(row.retransmits, lambda v: f"{v:.0f}")
    retr += "" if base else f" {_signed(row.d_retransmits)}"
    cpu = _spread(row.cpu, lambda v: f"{v:.1f}")
    cpu += "" if base else f" {_signed(row.d_cpu, '%', 1)}"
    peaks = f"{_peak_text(row.peak_sys)} / {_peak_text(row.peak_soft)}"
    test = row.spec + (f" x{row.repeats}" if row.repeats > 1 else "")
    if row.complete < row.repeats:
        test += f" ({row.repeats - row.complete} failed)"
    # A sweep's cells say which they are: their dimensions' values beside the run's id.
    run = f"{row.group} [{row.cell}]" if row.cell else row.group
    cells = [run, setting, value, tp, retr, cpu, peaks, str(row.drops), test]
    # A notebook may be another user's file: its text reaches the terminal escaped.
    return [printable(c.strip(), 1000) for c in cells]


def to_markdown(rows: Sequence[RunRow]) -> str:
    """The table of the reference documents: setting, value, throughput, retransmits, CPU."""
    lines = ["| " + " | ".join(TABLE_HEADERS) + " |", "|" + "---|" * len(TABLE_HEADERS)]
    for row in rows:
        cells = table_cells(row)
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines) + "\n"


def to_text(rows: Sequence[RunRow]) -> str:
    """The same table with aligned columns, for a terminal."""
    table = [list(TABLE_HEADERS)] + [table_cells(r) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(len(TABLE_HEADERS))]
    out = [
        "  ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)).rstrip() for line in table
    ]
    return "\n".join(out) + "\n"


def mbps_of(v: float) -> str:
    return f"{v / 1e6:.0f}"


CSV_FIELDS = (
    "run",
    "runs",
    "started",
    "setting",
    "value",
    "changes",
    "throughput_mbps",
    "throughput_min_mbps",
    "throughput_max_mbps",
    "throughput_delta_pct",
    "retransmits",
    "retransmits_min",
    "retransmits_max",
    "retransmits_delta",
    "cpu_local_pct",
    "cpu_local_min_pct",
    "cpu_local_max_pct",
    "cpu_local_delta_pct",
    "cpu_remote_pct",
    "peak_sys_cpu",
    "peak_sys_pct",
    "peak_soft_cpu",
    "peak_soft_pct",
    "drops",
    "repeats",
    "complete",
    "test",
    "baseline",
)


def _mb(v: float | None) -> str:
    return "" if v is None else f"{v / 1e6:.1f}"


def _n(v: float | None, digits: int = 1) -> str:
    return "" if v is None else f"{v:.{digits}f}"


def csv_row(row: RunRow) -> list[object]:
    """One request's values under CSV_FIELDS (a sweep's CSV puts its dimensions before)."""
    setting, value = setting_columns(row)
    mb, n = _mb, _n
    return [
        row.group,
        " ".join(row.ids),
        row.started,
        setting,
        value,
        row.changes,
        mb(row.throughput.median),
        mb(row.throughput.low),
        mb(row.throughput.high),
        n(row.d_throughput),
        n(row.retransmits.median, 0),
        n(row.retransmits.low, 0),
        n(row.retransmits.high, 0),
        n(row.d_retransmits, 0),
        n(row.cpu.median),
        n(row.cpu.low),
        n(row.cpu.high),
        n(row.d_cpu),
        n(row.remote_cpu.median),
        "" if row.peak_sys is None else row.peak_sys[0],
        "" if row.peak_sys is None else n(row.peak_sys[1]),
        "" if row.peak_soft is None else row.peak_soft[0],
        "" if row.peak_soft is None else n(row.peak_soft[1]),
        row.drops,
        row.repeats,
        row.complete,
        row.spec,
        "yes" if row.baseline else "",
    ]


def to_csv(rows: Sequence[RunRow]) -> str:
    """One line per request, numbers as plain numbers (Mb/s, %), for a spreadsheet."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for row in rows:
        w.writerow([printable(c, 1000) if isinstance(c, str) else c for c in csv_row(row)])
    return buf.getvalue()


def latency_text(row: RunRow) -> str:
    """A latency row's cell: "rtt 16.4 us (15.9..17.0), p99 190 us, 24494/s"."""
    text = "rtt " + _spread(row.latency, lambda v: f"{v:.1f}") + " us"
    if row.latency_p99.median is not None:
        text += f", p99 {row.latency_p99.median:.0f} us"
    if row.tps.median is not None:
        text += f", {row.tps.median:.0f}/s"
    return text


def _what_ran(a: Run, b: Run) -> list[tuple[str, str, str]]:
    """Engine, version and command lines; then each stream, UDP loss and latency where any."""
    ra, rb = a.result, b.result

    def opt(v: float | None, digits: int = 1) -> str:
        return _num(v, digits)

    out = [
        ("engine", a.spec.engine, b.spec.engine),
        ("engine version", ra.engine_version or "-", rb.engine_version or "-"),
    ]
    for i in range(max(len(ra.client_commands), len(rb.client_commands))):
        out.append(
            (f"client command {i + 1}", _nth(ra.client_commands, i), _nth(rb.client_commands, i))
        )
    for i in range(max(len(ra.server_commands), len(rb.server_commands))):
        out.append(
            (f"server command {i + 1}", _nth(ra.server_commands, i), _nth(rb.server_commands, i))
        )
    for i in range(max(len(ra.streams), len(rb.streams))):
        out.append((f"stream {i + 1}", _stream(ra.streams, i), _stream(rb.streams, i)))
    if ra.total_packets is not None or rb.total_packets is not None:
        out.append(("UDP loss %", opt(ra.loss_pct, 2), opt(rb.loss_pct, 2)))
        out.append(("UDP jitter ms", opt(ra.jitter_ms, 3), opt(rb.jitter_ms, 3)))
    if ra.latency_median_us is not None or rb.latency_median_us is not None:
        out += [
            ("latency median us", opt(ra.latency_median_us), opt(rb.latency_median_us)),
            ("latency p99 us", opt(ra.latency_p99_us), opt(rb.latency_p99_us)),
            ("latency p99.9 us", opt(ra.latency_p999_us), opt(rb.latency_p999_us)),
            ("transactions/s", opt(ra.transactions_per_s, 0), opt(rb.transactions_per_s, 0)),
        ]
    return out


def _nth(items: Sequence[str], i: int) -> str:
    return items[i] if i < len(items) else "-"


def _stream(streams: Sequence[StreamResult], i: int) -> str:
    if i >= len(streams):
        return "-"
    return stream_text(streams[i])


def stream_text(s: StreamResult) -> str:
    """ "port 5202 cpu 1: 4321 Mb/s, 12 retr, CPU 35.0% / 40.1%" (this end / far end)."""
    pin = f" cpu {s.client_cpu}" if s.client_cpu is not None else ""
    retr = "-" if s.retransmits is None else str(s.retransmits)
    return (
        f"port {s.port}{pin}: {mbps(s.throughput_bps)} Mb/s, {retr} retr, "
        f"CPU {_num(s.local_cpu, 1)}% / {_num(s.remote_cpu, 1)}%"
    )


def compare(a: Run, b: Run) -> list[tuple[str, str, str]]:
    """Two runs side by side: the test, every result, then every setting that differs."""

    def pct(v: float | None) -> str:
        return _num(v, 1) + ("%" if v is not None else "")

    def count(v: int | None) -> str:
        return "-" if v is None else str(v)

    ra, rb = a.result, b.result
    out: list[tuple[str, str, str]] = [
        ("run", a.id, b.id),
        ("started", a.started, b.started),
        ("test", spec_summary(a.spec), spec_summary(b.spec)),
        *_what_ran(a, b),
        ("throughput Mb/s", mbps(ra.throughput_bps), mbps(rb.throughput_bps)),
        ("sent Mb/s", mbps(ra.sent_bps), mbps(rb.sent_bps)),
        ("received Mb/s", mbps(ra.received_bps), mbps(rb.received_bps)),
    ]
    if "bidir" in (a.spec.direction, b.spec.direction):
        out += [
            ("return sent Mb/s", mbps(ra.return_sent_bps), mbps(rb.return_sent_bps)),
            ("return received Mb/s", mbps(ra.return_received_bps), mbps(rb.return_received_bps)),
            ("return retransmits", count(ra.return_retransmits), count(rb.return_retransmits)),
        ]
    out += [
        ("retransmits", count(ra.retransmits), count(rb.retransmits)),
        ("CPU local (iperf3)", pct(ra.local_cpu), pct(rb.local_cpu)),
        ("CPU remote (iperf3)", pct(ra.remote_cpu), pct(rb.remote_cpu)),
        ("peak sys", _peak_text(peak([a.load.peak_sys])), _peak_text(peak([b.load.peak_sys]))),
        (
            "peak soft",
            _peak_text(peak([a.load.peak_soft])),
            _peak_text(peak([b.load.peak_soft])),
        ),
        ("softnet drops", str(sum(a.load.drops.values())), str(sum(b.load.drops.values()))),
        ("complete", "yes" if ra.complete else "no", "yes" if rb.complete else "no"),
    ]
    if ra.error or rb.error:
        out.append(("error", ra.error or "", rb.error or ""))
    for name, _ in st.diff(a.settings, b.settings):  # in table order; both sides' names
        out.append((name, a.settings.get(name, "-"), b.settings.get(name, "-")))
    return [(printable(n, 200), printable(x, 1000), printable(y, 1000)) for n, x, y in out]
