"""LoadTracker: per-CPU peaks of %sys and %soft and softnet drops over a run's samples."""

from __future__ import annotations

from tuitune.core.bench.load import LoadTracker
from tuitune.core.bench.model import CpuLoad
from tuitune.core.watch.rates import CpuRates, Rates
from tuitune.core.watch.sampler import Sample


def cpu(n: int, sys: float, soft: float, drops: float = 0.0) -> CpuRates:
    zero = dict.fromkeys(("usr", "nice", "iowait", "irq", "steal", "guest", "gnice"), 0.0)
    return CpuRates(
        cpu=n,
        sys=sys,
        soft=soft,
        idle=100.0 - sys - soft,
        intr=0.0,
        net_rx=0.0,
        net_tx=0.0,
        drops=drops,
        squeezes=0.0,
        **zero,
    )


def sample(seq: int, interval: float, *cpus: CpuRates) -> Sample:
    rates = Rates(interval, {c.cpu: c for c in cpus}, {}, {})
    return Sample(seq, None, rates, None, None, None, None, None, 0.001)


def test_peaks_per_cpu_and_drops_as_counts() -> None:
    t = LoadTracker()
    t.add(Sample(1, None, None, None, None, None, None, None, 0.001))  # the first: no rates
    t.add(sample(2, 1.0, cpu(0, 20.0, 5.0), cpu(1, 60.0, 30.0, drops=10.0)))
    t.add(sample(3, 0.5, cpu(0, 45.5, 2.0, drops=4.0), cpu(1, 10.0, 49.0, drops=2.0)))
    got = t.result()
    assert got == CpuLoad(
        peak_sys={0: 45.5, 1: 60.0},
        peak_soft={0: 5.0, 1: 49.0},
        drops={0: 2, 1: 11},  # per second times the sample's interval
        samples=2,
    )


def test_nothing_seen() -> None:
    assert LoadTracker().result() == CpuLoad()
