"""Is a candidate's gain above the noise? A one-sided Mann-Whitney U test, exact, pure Python.

Why this test (docs/autotune.md): throughput repeats are few (3..5) and not normal (a run that
lost a CPU to another job is far off, one way), so a t-test's assumption does not hold; U
compares ranks only. Its exact distribution is enumerated from the pooled values (ties
included), which is cheap for the repeats allowed (at most C(16, 8) = 12870 splits). With
fewer than 4 runs a side U cannot reach p < 0.05 (3 against 3: at best 1/20), so there the
ranges must not overlap as well, which is the same as the best U.
"""

from __future__ import annotations

import itertools
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

ALPHA = 0.05
MAX_EXACT = 8  # runs a side: C(16, 8) splits enumerated at most


def u_statistic(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Pairs where x beats y, a tie counting a half."""
    return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x in xs for y in ys)


def p_greater(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Exact one-sided p-value of "xs tend to be greater than ys": the share of every split of
    the pooled values into groups of len(xs) and len(ys) whose U is at least the observed."""
    n, m = len(xs), len(ys)
    if not n or not m:
        raise ValueError("both samples need at least one value")
    if max(n, m) > MAX_EXACT:
        raise ValueError(f"at most {MAX_EXACT} values a sample")
    pooled = [*xs, *ys]
    seen = u_statistic(xs, ys)
    hits = total = 0
    for chosen in itertools.combinations(range(n + m), n):
        picked = set(chosen)
        a = [pooled[i] for i in chosen]
        b = [pooled[i] for i in range(n + m) if i not in picked]
        total += 1
        if u_statistic(a, b) >= seen - 1e-9:
            hits += 1
    return hits / total


@dataclass(frozen=True, slots=True)
class Verdict:
    better: bool  # above the noise, in the wanted direction
    p: float  # the exact one-sided p-value
    why: str  # one line for the report


def judge(candidate: Sequence[float], baseline: Sequence[float], higher_better: bool) -> Verdict:
    """Whether `candidate` beats `baseline` beyond the noise (see the module's note)."""
    sign = 1.0 if higher_better else -1.0
    xs = [sign * v for v in candidate]
    ys = [sign * v for v in baseline]
    p = p_greater(xs, ys)
    apart = min(xs) > max(ys)
    if min(len(xs), len(ys)) < 4:
        test = "ranges apart" if apart else "ranges not apart"
        return Verdict(apart, p, f"{test}, U test p={p:.3f} (n<4: the ranges decide)")
    better = p < ALPHA
    return Verdict(better, p, f"U test p={p:.3f} ({'<' if better else '>='} {ALPHA})")


def gain(candidate: Sequence[float], baseline: Sequence[float]) -> tuple[float, float, float]:
    """The change in % of the median, and its interval from the repeats' min..max ranges (the
    worst and the best pairing of the two ranges)."""
    mid = statistics.median(candidate) / statistics.median(baseline) - 1
    low = min(candidate) / max(baseline) - 1
    high = max(candidate) / min(baseline) - 1
    return mid * 100, low * 100, high * 100
