"""The notebook's runs as a results table: one row per group of repeats, its median and
range, and what changed against the baseline and by how much. Shared by the runs screen, the
`runs` command and anything that compares runs (sweep, advisor)."""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tuitune.core.bench import settings as st
from tuitune.core.bench.model import DEFAULT_ENGINE, BenchSpec, Run


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
    # How this row's test differs from the baseline's ("direction bidir, not reverse"): its
    # numbers are then not compared (the d_* are None), only shown. "" for the same test.
    test_differs: str = ""
    # The Advisor's finding applied before this run and what it did ("cpu-saturated: spread
    # 8 queue IRQs one per NIC-local core"); "" when the run followed none.
    after: str = ""
    # Latency runs (sockperf): round trip median and p99 in microseconds, transactions/s, and
    # the median's change in % against the baseline (lower is better). UDP runs: loss in %.
    latency: Spread = Spread()
    latency_p99: Spread = Spread()
    tps: Spread = Spread()
    d_latency: float | None = None
    loss: Spread = Spread()
    # What differs from the row before it (settings, then the test): "vs r4: tso off;
    # server CPU 2, not 1"; "" for the first row or when nothing differs.
    previous: str = ""
    # A sweep cell's dimensions and their values ("tso off, pin 0,1"); "" for a plain run.
    cell: str = ""
    # The sweep (or autotune) the run belongs to, its `sweep` tag: "autotune-YYYYMMDDHHMMSS"
    # names the report kept beside the notebook; "" for a plain run.
    sweep: str = ""

    @property
    def changes(self) -> str:
        """ "tso off, gso off, mtu 9000"; "" when nothing differs. A run that followed a
        finding says so first: "after cpu-saturated: spread ...; rps..."."""
        items = [f"{n} {v}" for n, v in self.changed]
        if not self.after:
            return ", ".join(items)
        # What the finding's own words already say is not said twice.
        settings = ", ".join(x for x in items if x not in self.after)
        return f"after {self.after}" + (f"; {settings}" if settings else "")


def spec_summary(spec: BenchSpec) -> str:
    parts = [spec.peer if spec.port == 5201 else f"{spec.peer}:{spec.port}"]
    if spec.engine != DEFAULT_ENGINE:
        parts.insert(0, spec.engine)
    parts.append(f"{spec.duration} s")
    streams = f"{spec.streams} stream" + ("s" if spec.streams != 1 else "")
    parts.append(streams + (" (processes)" if spec.processes else ""))
    if spec.direction != "normal":
        parts.append(spec.direction)
    if spec.length:
        parts.append(f"-l {spec.length}")
    if spec.client_cpu is not None:
        pin = str(spec.client_cpu)
        if spec.server_cpu is not None:
            pin += f",{spec.server_cpu}"
        parts.append(f"-A {pin}")
    if spec.stream_cpus:
        parts.append("cpus " + ",".join(map(str, spec.stream_cpus)))
    parts += [f"{flag} {value}" for flag, value in option_words(spec)]
    return ", ".join(parts)


def option_words(spec: BenchSpec) -> list[tuple[str, str]]:
    """The options of a run beyond streams and pinning, as the command line says them."""
    out = []
    if spec.window:
        out.append(("-w", spec.window))
    if spec.zerocopy:
        out.append(("-Z", "on"))
    if spec.udp_rate:
        out.append(("UDP", spec.udp_rate))
    if spec.mss is not None:
        out.append(("-M", str(spec.mss)))
    if spec.congestion:
        out.append(("-C", spec.congestion))
    return out


def peak(loads: Iterable[Mapping[int, float]]) -> tuple[int, float] | None:
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


_TEST_FIELDS = (
    ("peer", "peer"),
    ("port", "port"),
    ("direction", "direction"),
    ("streams", "streams"),
    ("length", "-l"),
    ("duration", "seconds"),
    ("client_cpu", "client CPU"),
    ("server_cpu", "server CPU"),
    # Added with the engines (issue 35); a run recorded before has their defaults, so it
    # compares with a new run of the same test.
    ("engine", "engine"),
    ("window", "-w"),
    ("zerocopy", "-Z"),
    ("udp_rate", "UDP rate"),
    ("mss", "MSS"),
    ("congestion", "congestion control"),
    ("processes", "processes"),
    ("stream_cpus", "stream CPUs"),
    ("server_cpus", "server CPUs"),
)


def _word(value: object) -> str:
    if value is None or value == ():
        return "none"
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, tuple):
        return ",".join(map(str, value))
    return str(value)


def test_difference(spec: BenchSpec, base: BenchSpec) -> str:
    """How `spec`'s test differs from `base`'s (one clause a field), "" when it is the same
    test: two runs compare only when only their settings differ."""
    out = []
    for attr, word in _TEST_FIELDS:
        a, b = getattr(spec, attr), getattr(base, attr)
        if a != b:
            out.append(f"{word} {_word(a)}, not {_word(b)}")
    return "; ".join(out)


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
    base_spec = groups[baseline][0].spec if baseline is not None else None
    rows = []
    prev: Run | None = None
    for gid, rs in groups.items():
        tp, retr, cpu, rcpu = stats[gid]
        done = [r.result for r in rs if r.result.complete] or [r.result for r in rs]
        lat = Spread.of(r.latency_median_us for r in done)
        base_lat = groups[baseline][0].result.latency_median_us if baseline else None
        base_lats = (
            Spread.of(r.result.latency_median_us for r in groups[baseline] if r.result.complete)
            if baseline
            else Spread()
        )
        differs = "" if base_spec is None else test_difference(rs[0].spec, base_spec)
        b = None if differs else base_stats
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
                peak_sys=peak(r.load.peak_sys for r in rs),
                peak_soft=peak(r.load.peak_soft for r in rs),
                drops=sum(sum(r.load.drops.values()) for r in rs),
                error=last_error,
                test_differs=differs,
                after=after_text(rs[0].tags),
                latency=lat,
                latency_p99=Spread.of(r.latency_p99_us for r in done),
                tps=Spread.of(r.transactions_per_s for r in done),
                d_latency=_pct(lat.median, base_lats.median) if b and base_lat else None,
                loss=Spread.of(r.loss_pct for r in done),
                # Against the baseline itself the baseline's comparison already says it.
                previous=previous_text(prev, rs[0]) if prev and prev.group != baseline else "",
                cell=rs[0].tags.get("combination", "") if "sweep" in rs[0].tags else "",
                sweep=rs[0].tags.get("sweep", ""),
            )
        )
        prev = rs[0]
    return rows


def previous_text(prev: Run | None, run: Run) -> str:
    """What `run` changed against the run before it, settings first, then the test: two
    runs that read the same against the baseline are told apart here."""
    if prev is None:
        return ""
    parts = [", ".join(st.changes(prev.settings, run.settings))]
    parts.append(test_difference(run.spec, prev.spec))
    said = "; ".join(x for x in parts if x)
    return f"vs {prev.group}: {said}" if said else ""


# Run tags the live screen writes for the first run after a finding was applied.
AFTER_TAG, AFTER_CHANGE_TAG = "after", "after_change"


def after_text(tags: Mapping[str, str]) -> str:
    finding = tags.get(AFTER_TAG, "")
    if not finding:
        return ""
    change = tags.get(AFTER_CHANGE_TAG, "")
    return f"{finding}: {change}" if change else finding


def _stats(runs: Sequence[Run]) -> tuple[Spread, Spread, Spread, Spread]:
    done = [r.result for r in runs if r.result.complete] or [r.result for r in runs]
    return (
        Spread.of(r.throughput_bps for r in done),
        Spread.of(float(t) if (t := r.total_retransmits) is not None else None for r in done),
        Spread.of(r.local_cpu for r in done),
        Spread.of(r.remote_cpu for r in done),
    )
