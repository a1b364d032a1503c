"""tuitune's own view of a run's CPU load: per-CPU peaks of %sys and %soft, softnet drops.

iperf3 reports one CPU figure per side; the seeds' lesson is that the bottleneck is one core
pegged in sys or softirq, so the peaks are kept per CPU from the live samples.
"""

from __future__ import annotations

import threading

from tuitune.core.bench.model import CpuLoad
from tuitune.core.sampler import Sample


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
