"""How sure a cell is: its median, its range, a 95 % confidence interval of its mean, and
whether its difference from the baseline is within the noise.

The reports' differences are often smaller than their noise (NASA: +/-300 Mb/s between runs
of the same settings), so a table that only prints medians invites reading noise as a result.
A difference is called within noise when the two cells' intervals overlap: the confidence
intervals where both cells have two or more repeats, else their min..max ranges (one repeat
has no spread to judge by, so a single run against a single run is never called a result).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# Student's t, two-sided 95 %, by degrees of freedom (n - 1); past 30, the normal's 1.96.
_T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Summary:
    n: int
    median: float
    low: float  # min
    high: float  # max
    ci: tuple[float, float] | None  # 95 % interval of the mean; None below two values

    @property
    def interval(self) -> tuple[float, float]:
        """What the noise test compares: the confidence interval, else the range."""
        return self.ci if self.ci is not None else (self.low, self.high)


def t95(df: int) -> float:
    return _T95[df - 1] if 1 <= df <= len(_T95) else 1.96


def summarize(values: Sequence[float]) -> Summary | None:
    if not values:
        return None
    xs = [float(v) for v in values]
    n = len(xs)
    ci = None
    if n >= 2:
        mean = statistics.fmean(xs)
        half = t95(n - 1) * statistics.stdev(xs) / math.sqrt(n)
        ci = (mean - half, mean + half)
    return Summary(n, float(statistics.median(xs)), min(xs), max(xs), ci)


@dataclass(frozen=True, slots=True)
class Versus:
    """A cell against the baseline cell of its column."""

    pct: float | None  # median against median, %
    within_noise: bool  # the intervals overlap: the difference may be noise


def versus(cell: Summary, base: Summary) -> Versus:
    pct = None if base.median == 0 else (cell.median - base.median) / base.median * 100.0
    if cell.n < 2 and base.n < 2:
        return Versus(pct, True)  # two single runs: no noise to judge by
    a, b = cell.interval, base.interval
    return Versus(pct, a[0] <= b[1] and b[0] <= a[1])
