"""tuitune's own view of a run's CPU load: per-CPU peaks of %sys and %soft, softnet drops.

iperf3 reports one CPU figure per side; the seeds' lesson is that the bottleneck is one core
pegged in sys or softirq, so the peaks are kept per CPU from the live samples.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from tuitune.core.bench.model import CpuLoad
from tuitune.core.watch.sampler import Sample


class LoadTracker:
    """Fed with the sampler's samples during a run (from any one thread); `result` at the end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._sys: dict[int, float] = {}
        self._soft: dict[int, float] = {}
        self._drops: dict[int, float] = {}
        self._queues: dict[str, dict[str, float]] = {}
        self._nic: dict[str, float] = {}
        self._samples = 0

    def add(self, sample: Sample) -> None:
        rates = sample.rates
        if rates is None or not rates.cpus:
            return  # the first sample has no rates: nothing happened yet
        with self._lock:
            self._samples += 1
            for cpu, r in rates.cpus.items():
                self._sys[cpu] = max(self._sys.get(cpu, 0.0), r.sys)
                self._soft[cpu] = max(self._soft.get(cpu, 0.0), r.soft)
                # drops are per second over the sample's interval: back to a count
                self._drops[cpu] = self._drops.get(cpu, 0.0) + r.drops * rates.interval
            q = sample.queues
            if q is not None:  # per second over q.seconds: back to counts, summed over the run
                for qr in q.queues:
                    got = self._queues.setdefault(f"{qr.direction}-{qr.queue}", {})
                    for m, v in qr.per_s.items():
                        got[m] = got.get(m, 0.0) + v * q.seconds
                for name, v in q.nic_drops.items():
                    self._nic[name] = self._nic.get(name, 0.0) + v * q.seconds

    def result(self) -> CpuLoad:
        with self._lock:
            return CpuLoad(
                peak_sys=dict(sorted(self._sys.items())),
                peak_soft=dict(sorted(self._soft.items())),
                drops={cpu: round(n) for cpu, n in sorted(self._drops.items())},
                samples=self._samples,
                queues={k: _counts(v) for k, v in self._queues.items()},
                nic_drops=_counts(self._nic),
            )


def _counts(d: dict[str, float]) -> dict[str, int]:
    return {k: round(v) for k, v in d.items()}


def _peak(d: dict[int, float] | dict[int, int]) -> tuple[int, float] | None:
    if not d:
        return None
    cpu = max(d, key=lambda c: (d[c], -c))
    return cpu, float(d[cpu])


def merged_load(loads: Sequence[CpuLoad]) -> CpuLoad:
    """Per-CPU peaks over every repeat; drops summed."""
    sys: dict[int, float] = {}
    soft: dict[int, float] = {}
    drops: dict[int, int] = {}
    queues: dict[str, dict[str, int]] = {}
    nic: dict[str, int] = {}
    for load in loads:
        for name, measures in load.queues.items():
            got = queues.setdefault(name, {})
            for m, n in measures.items():
                got[m] = got.get(m, 0) + n
        for name, n in load.nic_drops.items():
            nic[name] = nic.get(name, 0) + n
        for c, v in load.peak_sys.items():
            sys[c] = max(sys.get(c, 0.0), v)
        for c, v in load.peak_soft.items():
            soft[c] = max(soft.get(c, 0.0), v)
        for c, n in load.drops.items():
            drops[c] = drops.get(c, 0) + n
    return CpuLoad(sys, soft, drops, sum(x.samples for x in loads), queues, nic)


def load_text(load: CpuLoad) -> str:
    """ "peak sys 45% on cpu1, soft 98% on cpu0, softnet drops 12 (cpu0 12)"."""
    if not load.samples:
        return "no CPU samples during the run"
    parts = []
    for name, d in (("sys", load.peak_sys), ("soft", load.peak_soft)):
        p = _peak(d)
        parts.append(f"{name} {p[1]:.0f}% on cpu{p[0]}" if p else f"{name} -")
    total = sum(load.drops.values())
    where = ", ".join(f"cpu{c} {n}" for c, n in sorted(load.drops.items()) if n)
    parts.append(f"softnet drops {total}" + (f" ({where})" if where else ""))
    return "peak " + ", ".join(parts) + queues_text(load)


def queues_text(load: CpuLoad) -> str:
    """ "; rx packets by queue: rx-0 61 %, rx-1 39 %; ring drops: rx-1 120; NIC drops:
    rx_missed_errors 7" (empty when no per-queue counters were read)."""
    rx = {k: v.get("packets", 0) for k, v in load.queues.items() if k.startswith("rx-")}
    total = sum(rx.values())
    out = ""
    if total:
        top = sorted(rx.items(), key=lambda kv: (-kv[1], kv[0]))[:4]
        out += "; rx packets by queue: " + ", ".join(f"{k} {v * 100 / total:.0f} %" for k, v in top)
    drops = {k: v.get("drops", 0) for k, v in load.queues.items() if v.get("drops", 0)}
    if drops:
        out += "; ring drops: " + ", ".join(f"{k} {n}" for k, n in sorted(drops.items()))
    nic = {k: n for k, n in load.nic_drops.items() if n}
    if nic:
        out += "; NIC drops: " + ", ".join(f"{k} {n}" for k, n in sorted(nic.items()))
    return out
