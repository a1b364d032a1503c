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

    def result(self) -> CpuLoad:
        with self._lock:
            return CpuLoad(
                peak_sys=dict(sorted(self._sys.items())),
                peak_soft=dict(sorted(self._soft.items())),
                drops={cpu: round(n) for cpu, n in sorted(self._drops.items())},
                samples=self._samples,
            )


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
    for load in loads:
        for c, v in load.peak_sys.items():
            sys[c] = max(sys.get(c, 0.0), v)
        for c, v in load.peak_soft.items():
            soft[c] = max(soft.get(c, 0.0), v)
        for c, n in load.drops.items():
            drops[c] = drops.get(c, 0) + n
    return CpuLoad(sys, soft, drops, sum(x.samples for x in loads))


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
    return "peak " + ", ".join(parts)
