"""A window of samples: the rates of each step over the last N seconds, and over all of it.

Rules judge a window, never one tick: a core "busy for 8 of the last 10 s" is a bottleneck, a
core busy for one second is noise. The driver's own counters (ethtool -S) are read at both ends
of the window, so their rise is known too.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from itertools import pairwise

from tuitune.core.advise import thresholds as t
from tuitune.core.watch.rates import CpuRates, Rates, compute_rates, delta64, narrowed
from tuitune.core.watch.snapshot import Counters

DriverStats = tuple[tuple[str, int], ...]


# "Load" is the NIC's traffic, not CPU use: a host at 90 % in user time with an idle link has
# nothing for the dynamic rules to judge, so the note says which traffic was missing.
NEEDS_LOAD = (
    f"no NIC traffic in the window (under {t.LOADED_PPS:.0f} packets/s, no CPU "
    f"{t.LOADED_SOFT_PCT:.0f} % in interrupts; busy CPUs alone are not traffic): run a "
    "benchmark (B in the screen, or iperf3), then look again"
)


@dataclass(frozen=True, slots=True)
class Window:
    steps: tuple[Rates, ...]  # one per pair of consecutive samples
    total: Rates | None  # first sample to last: averages over the window
    driver_before: DriverStats | None = None  # ethtool -S at the start, when read
    driver_after: DriverStats | None = None  # and at the end

    @property
    def seconds(self) -> float:
        return self.total.interval if self.total is not None else 0.0

    @property
    def real_steps(self) -> tuple[Rates, ...]:
        """Steps in which time passed and CPU times moved (a held sample has none)."""
        return tuple(s for s in self.steps if s.interval > 0 and s.cpus)

    def busy_steps(self, cpu: int, pct: float) -> tuple[int, int]:
        """(steps in which `cpu` spent at least pct % in sys+irq+soft, steps counted)."""
        steps = self.real_steps
        hot = sum(1 for s in steps if cpu in s.cpus and net_busy(s.cpus[cpu]) >= pct)
        return hot, len(steps)

    @property
    def loaded(self) -> bool:
        """Something moved: enough packets on the link, or softirq/interrupt work on a CPU."""
        if self.total is None or self.total.interval <= 0:
            return False
        link = self.total.link
        pps = link.get("rx_packets", 0.0) + link.get("tx_packets", 0.0)
        if pps >= t.LOADED_PPS:
            return True
        return any(c.soft + c.irq >= t.LOADED_SOFT_PCT for c in self.total.cpus.values())

    def driver_rises(self) -> dict[str, int]:
        """ethtool -S counters that rose in the window, by name."""
        if self.driver_before is None or self.driver_after is None:
            return {}
        before = dict(self.driver_before)
        out = {}
        for name, value in self.driver_after:
            if name in before and (d := delta64(before[name], value)) > 0:
                out[name] = d
        return out


def net_busy(c: CpuRates) -> float:
    """The share of a CPU the network path can take: kernel time, hard and soft interrupts."""
    return c.sys + c.irq + c.soft


def other_load(c: CpuRates) -> str:
    """The rest of a CPU's time as mpstat names it (usr, nice, guest), so the figures add up:
    "; also 25 % usr, 55 % nice" ("" when none); niced work was once folded into usr."""
    parts = [(c.usr, "usr"), (c.nice, "nice"), (c.guest + c.gnice, "guest")]
    shown = [f"{v:.0f} % {name}" for v, name in parts if v >= 0.5]
    return f"; also {', '.join(shown)}" if shown else ""


def window_of(
    samples: Sequence[Counters],
    detail_irqs: Collection[str] | None = None,
    driver_before: DriverStats | None = None,
    driver_after: DriverStats | None = None,
    known: Sequence[Rates | None] = (),
) -> Window:
    """The window of consecutive samples (at least two give a step). `detail_irqs`: the IRQs
    whose per-CPU spread the rules need (the NIC's queues); None: every IRQ. `known[i]`: the
    rates from samples[i] to samples[i + 1] when the sampler already computed them, with at
    least `detail_irqs`' detail (None: compute them): a 1152-CPU host's step costs a tick."""
    have = list(known) + [None] * (len(samples) - 1 - len(known))
    steps = tuple(
        compute_rates(a, b, detail_irqs) if r is None else narrowed(r, detail_irqs)
        for (a, b), r in zip(pairwise(samples), have, strict=False)
    )
    total = compute_rates(samples[0], samples[-1], detail_irqs) if len(samples) >= 2 else None
    return Window(steps, total, driver_before, driver_after)


EMPTY = Window((), None)
