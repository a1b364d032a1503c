"""Which of the settings that differ between a good run and a bad one explain the difference:
delta debugging (Zeller's ddmin) over the differences, each test a measurement with repeats.

A test applies the good run's values with a subset of the bad run's on top, measures it, and
calls it bad when it is not within the noise of the good measurement and lies on the bad
side. ddmin then finds a smallest subset that is still bad: "tso off explains -57 %; the
other 11 differences are within noise".

The search is pure (tests give it a synthetic measurement); the command measures each test
as a one-cell sweep, so every change goes through the journal and is put back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tuitune.core.sweep.stats import Summary, versus

Measure = Callable[[Sequence[str]], Summary | None]  # the bad values of these names applied


@dataclass
class BisectResult:
    culprits: list[str]  # a smallest set of settings whose bad values reproduce the bad run
    good: Summary
    bad: Summary
    steps: list[tuple[tuple[str, ...], Summary | None, bool]] = field(default_factory=list)
    reason: str | None = None  # why nothing was narrowed down (good and bad within noise)


def _is_bad(found: Summary | None, good: Summary, bad: Summary) -> bool:
    if found is None:
        return False  # a test that did not measure says nothing
    if versus(found, good).within_noise:
        return False
    down = bad.median < good.median
    return found.median < good.median if down else found.median > good.median


def bisect(names: Sequence[str], measure: Measure) -> BisectResult:
    """ddmin over `names`: `measure([])` is the good state, `measure(names)` the bad one."""
    cache: dict[tuple[str, ...], Summary | None] = {}
    order = {n: i for i, n in enumerate(names)}

    def run(subset: Sequence[str]) -> Summary | None:
        key = tuple(sorted(subset, key=order.__getitem__))
        if key not in cache:
            cache[key] = measure(list(key))
        return cache[key]

    good, bad = run([]), run(list(names))
    if good is None or bad is None:
        raise ValueError("the good or the bad state could not be measured")
    result = BisectResult([], good, bad)

    def test(subset: Sequence[str]) -> bool:
        found = run(subset)
        verdict = _is_bad(found, good, bad)
        result.steps.append((tuple(subset), found, verdict))
        return verdict

    if not _is_bad(bad, good, bad):
        result.reason = "the good and the bad state measure within noise of each other"
        return result
    current = list(names)
    n = 2
    while len(current) >= 2:
        chunks = _split(current, n)
        for chunk in chunks:  # one part alone reproduces it
            if test(chunk):
                current, n = chunk, 2
                break
        else:
            for chunk in chunks:  # or everything but one part
                rest = [x for x in current if x not in chunk]
                if n > 2 and test(rest):
                    current, n = rest, max(n - 1, 2)
                    break
            else:
                if n >= len(current):
                    break
                n = min(len(current), 2 * n)
    result.culprits = current
    return result


def _split(items: list[str], n: int) -> list[list[str]]:
    size, extra = divmod(len(items), n)
    out, start = [], 0
    for i in range(n):
        end = start + size + (1 if i < extra else 0)
        if end > start:
            out.append(items[start:end])
        start = end
    return out


def explain(result: BisectResult, total: int) -> str:
    """ "tso explains -57 % (the other 11 difference(s) are within noise)"."""
    if result.reason:
        return result.reason
    pct = versus(result.bad, result.good).pct
    what = ", ".join(result.culprits)
    others = total - len(result.culprits)
    tail = f" (the other {others} difference(s) are within noise)" if others else ""
    return f"{what} explain(s) {pct:+.0f} %{tail}" if pct is not None else what + tail
