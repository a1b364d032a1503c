"""The notebook: every run of one interface, kept in one JSON Lines file, and the table of the
reference documents made from it (what changed against the baseline, and what it did).

One line per record, appended with one write(2), so a crash loses at most the line being
written and two tuitunes appending at once do not interleave. Records:

    {"type": "run", "version": 1, "id": "r3", "group": "r3", "spec": {...}, ...}
    {"type": "baseline", "group": "r1"}        (the last one wins)

Unknown fields and record types are ignored and unreadable lines skipped (counted in
`skipped`), so older tuitunes read newer files. The format is documented in docs/bench.md.
"""

from __future__ import annotations

import csv
import errno
import io
import json
import socket
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from tuitune.core import fsutil, paths
from tuitune.core.bench import settings as st
from tuitune.core.bench.model import DIRECTIONS, BenchResult, BenchSpec, CpuLoad, Interval, Run

VERSION = 1
NOTEBOOK_LIMIT = 256 << 20  # thousands of runs; /dev/zero or a huge file linked here is not one


# -- JSON --------------------------------------------------------------------------------------
def _known(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    names = {f.name for f in fields(cls)}
    return {k: v for k, v in data.items() if k in names}


def _cpu_map(data: object, kind: type) -> dict[int, Any]:
    if not isinstance(data, Mapping):
        return {}
    return {int(k): kind(v) for k, v in data.items()}


def run_to_json(run: Run) -> dict[str, Any]:
    spec = {f.name: getattr(run.spec, f.name) for f in fields(BenchSpec)}
    result = {f.name: getattr(run.result, f.name) for f in fields(BenchResult)}
    result["intervals"] = [
        {f.name: getattr(iv, f.name) for f in fields(Interval)} for iv in run.result.intervals
    ]
    load = {
        "peak_sys": {str(k): v for k, v in run.load.peak_sys.items()},
        "peak_soft": {str(k): v for k, v in run.load.peak_soft.items()},
        "drops": {str(k): v for k, v in run.load.drops.items()},
        "samples": run.load.samples,
    }
    return {
        "type": "run",
        "version": VERSION,
        "id": run.id,
        "group": run.group,
        "ifname": run.ifname,
        "started": run.started,
        "spec": spec,
        "result": result,
        "load": load,
        "settings": dict(run.settings),
    }


def run_from_json(data: Mapping[str, Any]) -> Run:
    """A Run from its JSON record; raises ValueError (or KeyError/TypeError) when it is not
    one. Unknown fields are ignored."""
    spec_data = _known(BenchSpec, data["spec"])
    if spec_data.get("direction", "normal") not in DIRECTIONS:
        raise ValueError(f"unknown direction {spec_data['direction']!r}")
    spec = BenchSpec(**spec_data)
    raw = dict(data.get("result") or {})
    intervals = tuple(Interval(**_known(Interval, iv)) for iv in raw.pop("intervals", ()) or ())
    result = BenchResult(**_known(BenchResult, raw), intervals=intervals)
    ld = data.get("load") or {}
    load = CpuLoad(
        peak_sys=_cpu_map(ld.get("peak_sys"), float),
        peak_soft=_cpu_map(ld.get("peak_soft"), float),
        drops=_cpu_map(ld.get("drops"), int),
        samples=int(ld.get("samples", 0)),
    )
    sets = data.get("settings") or {}
    if not isinstance(sets, Mapping):
        raise ValueError("settings is not an object")
    return Run(
        id=str(data["id"]),
        group=str(data.get("group") or data["id"]),
        ifname=str(data.get("ifname", "")),
        started=str(data.get("started", "")),
        spec=spec,
        result=result,
        load=load,
        settings={str(k): str(v) for k, v in sets.items()},
    )


def to_json(run: Run) -> str:
    return json.dumps(run_to_json(run), separators=(",", ":"))


def from_json(text: str) -> Run:
    return run_from_json(json.loads(text))


# -- the table -------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Spread:
    """Median and range over a group's complete repeats (None: nothing measured)."""

    median: float | None = None
    low: float | None = None
    high: float | None = None

    @classmethod
    def of(cls, values: Iterable[float | None]) -> Spread:
        known = [v for v in values if v is not None]
        if not known:
            return cls()
        return cls(float(statistics.median(known)), float(min(known)), float(max(known)))


@dataclass(frozen=True, slots=True)
class RunRow:
    """One request (a group of repeats) as a line of the results table."""

    group: str  # the id of its first run
    ids: tuple[str, ...]  # every run of the group
    started: str
    spec: str  # "198.18.0.2, 10 s, 1 stream, reverse"
    repeats: int  # runs in the group
    complete: int  # of which finished (only those count in the numbers below)
    throughput: Spread  # bits/s: received (both directions added for bidir)
    retransmits: Spread
    cpu: Spread  # iperf3's local CPU %, this side
    remote_cpu: Spread
    baseline: bool  # this row is the baseline
    d_throughput: float | None  # % against the baseline's median
    d_retransmits: float | None  # absolute, against the baseline's median
    d_cpu: float | None  # % against the baseline's median
    changed: tuple[tuple[str, str], ...]  # (setting, value) that differ from the baseline
    peak_sys: tuple[int, float] | None  # (cpu, %): the busiest CPU in sys over the repeats
    peak_soft: tuple[int, float] | None
    drops: int  # softnet drops over all the repeats
    error: str | None  # the last repeat's error, if any

    @property
    def changes(self) -> str:
        """ "tso off, gso off, mtu 9000"; "" when nothing differs."""
        return ", ".join(f"{n} {v}" for n, v in self.changed)


def spec_summary(spec: BenchSpec) -> str:
    parts = [spec.peer if spec.port == 5201 else f"{spec.peer}:{spec.port}"]
    parts.append(f"{spec.duration} s")
    parts.append(f"{spec.streams} stream" + ("s" if spec.streams != 1 else ""))
    if spec.direction != "normal":
        parts.append(spec.direction)
    if spec.length:
        parts.append(f"-l {spec.length}")
    if spec.client_cpu is not None:
        pin = str(spec.client_cpu)
        if spec.server_cpu is not None:
            pin += f",{spec.server_cpu}"
        parts.append(f"-A {pin}")
    return ", ".join(parts)


def _peak(loads: Iterable[Mapping[int, float]]) -> tuple[int, float] | None:
    best: tuple[int, float] | None = None
    for load in loads:
        for cpu, value in load.items():
            if best is None or value > best[1]:
                best = (cpu, value)
    return best


def _pct(value: float | None, base: float | None) -> float | None:
    if value is None or base is None or base == 0:
        return None
    return (value - base) / base * 100.0


def _diff(value: float | None, base: float | None) -> float | None:
    return None if value is None or base is None else value - base


def build_rows(runs: Sequence[Run], baseline: str | None) -> list[RunRow]:
    """The table of `runs` (in file order), deltas and changes against group `baseline`."""
    groups: dict[str, list[Run]] = {}
    for run in runs:
        groups.setdefault(run.group, []).append(run)
    if baseline not in groups:
        baseline = next(iter(groups), None)
    stats = {g: _stats(rs) for g, rs in groups.items()}
    base_stats = stats.get(baseline) if baseline is not None else None
    base_settings = groups[baseline][0].settings if baseline is not None else {}
    rows = []
    for gid, rs in groups.items():
        tp, retr, cpu, rcpu = stats[gid]
        b = base_stats
        last_error = rs[-1].result.error
        rows.append(
            RunRow(
                group=gid,
                ids=tuple(r.id for r in rs),
                started=rs[0].started,
                spec=spec_summary(rs[0].spec),
                repeats=len(rs),
                complete=sum(1 for r in rs if r.result.complete),
                throughput=tp,
                retransmits=retr,
                cpu=cpu,
                remote_cpu=rcpu,
                baseline=gid == baseline,
                d_throughput=_pct(tp.median, b[0].median) if b else None,
                d_retransmits=_diff(retr.median, b[1].median) if b else None,
                d_cpu=_pct(cpu.median, b[2].median) if b else None,
                changed=tuple(st.diff(base_settings, rs[0].settings)),
                peak_sys=_peak(r.load.peak_sys for r in rs),
                peak_soft=_peak(r.load.peak_soft for r in rs),
                drops=sum(sum(r.load.drops.values()) for r in rs),
                error=last_error,
            )
        )
    return rows


def _stats(runs: Sequence[Run]) -> tuple[Spread, Spread, Spread, Spread]:
    done = [r.result for r in runs if r.result.complete] or [r.result for r in runs]
    return (
        Spread.of(r.throughput_bps for r in done),
        Spread.of(float(t) if (t := r.total_retransmits) is not None else None for r in done),
        Spread.of(r.local_cpu for r in done),
        Spread.of(r.remote_cpu for r in done),
    )


# -- the file ----------------------------------------------------------------------------------
def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


class Notebook:
    """The runs of one interface (of one host or network namespace), in `path`."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.skipped = 0  # unreadable lines in the last read

    @staticmethod
    def default_path(ifname: str, netns: str | None = None, state_dir: Path | None = None) -> Path:
        """$XDG_STATE_HOME/tuitune/runs/<host>[-<netns>]-<ifname>.jsonl"""
        base = state_dir if state_dir is not None else paths.runs_dir()
        parts = [socket.gethostname() or "host"]
        if netns:
            parts.append(netns)
        parts.append(ifname)
        return base / (_safe("-".join(parts)) + ".jsonl")

    # -- reading ---------------------------------------------------------------------------
    def _records(self) -> list[dict[str, Any]]:
        self.skipped = 0
        data = fsutil.read_file(self.path, NOTEBOOK_LIMIT, follow=True)
        if data is None:
            return []
        text = data.decode("utf-8", errors="replace")
        out = []
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except ValueError:
                self.skipped += 1  # a line cut short by a crash, or not ours
                continue
            if isinstance(record, dict):
                out.append(record)
            else:
                self.skipped += 1
        return out

    def _read(self) -> tuple[list[Run], str | None]:
        runs: list[Run] = []
        chosen: str | None = None
        for record in self._records():
            kind = record.get("type")
            if kind == "run":
                try:
                    runs.append(run_from_json(record))
                except (KeyError, TypeError, ValueError):
                    self.skipped += 1
            elif kind == "baseline" and isinstance(record.get("group"), str):
                chosen = record["group"]
        return runs, chosen

    def runs(self) -> list[Run]:
        return self._read()[0]

    def baseline(self) -> str | None:
        """The baseline group: the last one set that still has runs, else the first group."""
        runs, chosen = self._read()
        groups = [r.group for r in runs]
        if chosen in groups:
            return chosen
        return groups[0] if groups else None

    def next_id(self) -> str:
        numbers = [int(r.id[1:]) for r in self.runs() if r.id[:1] == "r" and r.id[1:].isdigit()]
        return f"r{max(numbers, default=0) + 1}"

    def find(self, run_id: str) -> Run | None:
        return next((r for r in self.runs() if r.id == run_id), None)

    def table(self) -> list[RunRow]:
        runs, _ = self._read()
        return build_rows(runs, self.baseline())

    # -- writing ---------------------------------------------------------------------------
    def _append(self, record: Mapping[str, Any]) -> None:
        line = (json.dumps(record, separators=(",", ":")) + "\n").encode()
        # One write of one line: O_APPEND keeps writers apart. Never through another user's
        # link, nor into a directory they could change (fsutil).
        fsutil.append_file(self.path, line, 0o644)

    def check(self, write: bool) -> None:
        """Raise a one-line OSError now, before a run, when the notebook cannot be read (a
        directory, another user's link, too big) or, with `write`, written where it is."""
        self.runs()
        if write:
            try:
                fsutil.locate(self.path, write=True, follow=True)[0].close()
            except OSError as exc:
                if exc.errno != errno.ENOENT:  # a directory still to make is made on write
                    raise

    def add(self, run: Run) -> None:
        if any(r.id == run.id for r in self.runs()):
            raise ValueError(f"run {run.id} is already in {self.path}")
        self._append(run_to_json(run))

    def set_baseline(self, group_id: str) -> None:
        """Make `group_id` (a group, or any run of one) the baseline; ValueError if unknown."""
        runs = self.runs()
        found = next((r for r in runs if r.id == group_id or r.group == group_id), None)
        if found is None:
            known = ", ".join(dict.fromkeys(r.group for r in runs)) or "none"
            raise ValueError(f"no run {group_id} in {self.path} (runs: {known})")
        self._append({"type": "baseline", "group": found.group})


# -- output ------------------------------------------------------------------------------------
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
    retr = _spread(row.retransmits, lambda v: f"{v:.0f}")
    retr += "" if base else f" {_signed(row.d_retransmits)}"
    cpu = _spread(row.cpu, lambda v: f"{v:.1f}")
    cpu += "" if base else f" {_signed(row.d_cpu, '%', 1)}"
    peaks = f"{_peak_text(row.peak_sys)} / {_peak_text(row.peak_soft)}"
    test = row.spec + (f" x{row.repeats}" if row.repeats > 1 else "")
    if row.complete < row.repeats:
        test += f" ({row.repeats - row.complete} failed)"
    cells = [row.group, setting, value, tp, retr, cpu, peaks, str(row.drops), test]
    return [c.strip() for c in cells]


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


def to_csv(rows: Sequence[RunRow]) -> str:
    """One line per request, numbers as plain numbers (Mb/s, %), for a spreadsheet."""

    def mb(v: float | None) -> str:
        return "" if v is None else f"{v / 1e6:.1f}"

    def n(v: float | None, digits: int = 1) -> str:
        return "" if v is None else f"{v:.{digits}f}"

    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_FIELDS)
    for row in rows:
        setting, value = setting_columns(row)
        w.writerow(
            [
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
        )
    return buf.getvalue()


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
        ("peak sys", _peak_text(_peak([a.load.peak_sys])), _peak_text(_peak([b.load.peak_sys]))),
        (
            "peak soft",
            _peak_text(_peak([a.load.peak_soft])),
            _peak_text(_peak([b.load.peak_soft])),
        ),
        ("softnet drops", str(sum(a.load.drops.values())), str(sum(b.load.drops.values()))),
        ("complete", "yes" if ra.complete else "no", "yes" if rb.complete else "no"),
    ]
    if ra.error or rb.error:
        out.append(("error", ra.error or "", rb.error or ""))
    for name, _ in st.diff(a.settings, b.settings):  # in table order; both sides' names
        out.append((name, a.settings.get(name, "-"), b.settings.get(name, "-")))
    return out
