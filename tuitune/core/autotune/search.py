"""The greedy search, pure: a baseline, each candidate alone against it, the kept set together.

The host is behind two small protocols (a bench that measures, a host that applies and puts
back), so the loop is tested with a fake benchmark of fixed numbers (tests/unit).

Safety is the caller's frame plus this order: a candidate is applied, measured and always put
back before the next one; only after every candidate is the kept set applied, as one step,
and measured together (gains do not add). Whatever stops the loop before it returns
(Ctrl+C, SIGTERM, SIGHUP turned into KeyboardInterrupt, an error) leaves the host to the
caller's `revert_all`, which puts back everything: nothing is kept until the loop finished.
The kept set stays when its median together is still a gain (said whether above the noise).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from tuitune.core.autotune.stats import Verdict, gain, judge

K = TypeVar("K")
Say = Callable[[str], None]


class AutotuneError(Exception):
    """The search cannot go on (a run failed, a change could not be put back); one line."""


@dataclass(frozen=True, slots=True)
class Candidate(Generic[K]):
    id: str  # the advisor's finding id, or the setting tried
    title: str
    changes: tuple[tuple[K, str], ...]  # (journal key, value)


class Bench(Protocol):
    def measure(self, step: str, repeats: int) -> list[float]:
        """`repeats` runs as the host is now, recorded under `step`; one value each (Mb/s, or
        a round trip in us). Raises AutotuneError when a run fails."""
        ...


class Host(Protocol[K]):  # type: ignore[misc]  # K appears in arguments only
    def apply(self, changes: Sequence[tuple[K, str]]) -> str | None:
        """Apply as one journaled step; None when done, else why not (nothing changed)."""
        ...

    def undo(self) -> None:
        """Put the last step back. Raises AutotuneError when it cannot."""
        ...

    def keep(self) -> None:
        """The last step stays (a trial in it is confirmed)."""
        ...


@dataclass(frozen=True, slots=True)
class Budget:
    max_runs: int
    seconds: float  # wall time
    run_seconds: float  # what one run is expected to take (its length and the start)

    def fits(self, used_runs: int, started: float, now: float, runs: int) -> bool:
        if used_runs + runs > self.max_runs:
            return False
        return now - started + runs * self.run_seconds <= self.seconds


@dataclass
class Tried(Generic[K]):
    candidate: Candidate[K]
    values: list[float] = field(default_factory=list)
    verdict: Verdict | None = None
    kept: bool = False
    why: str = ""  # kept / put back / not tried, and why


@dataclass
class Factorial:
    """Two candidates whose gains may not add (tso x MTU), and the 2x2 design's fourth cell:
    both together. The other three cells are the baseline and each alone."""

    a: str
    b: str
    values: list[float] = field(default_factory=list)  # both on
    why: str = ""


@dataclass
class Outcome(Generic[K]):
    goal: str
    higher_better: bool
    baseline: list[float]
    tried: list[Tried[K]]
    final: list[float] = field(default_factory=list)
    final_verdict: Verdict | None = None
    kept: list[Candidate[K]] = field(default_factory=list)  # what the journal holds at the end
    runs: int = 0
    note: str = ""  # why the kept set was dropped, or the budget's word
    factorials: list[Factorial] = field(default_factory=list)

    def final_gain(self) -> tuple[float, float, float] | None:
        """Median change in % and its min..max interval, None without a final measurement."""
        if not self.final or not self.baseline:
            return None
        return gain(self.final, self.baseline)


def search(
    candidates: Sequence[Candidate[K]],
    bench: Bench,
    host: Host[K],
    repeats: int,
    budget: Budget,
    higher_better: bool = True,
    goal: str = "throughput",
    say: Say = print,
    clock: Callable[[], float] = time.monotonic,
    pairs: Sequence[tuple[str, str]] = (),
) -> Outcome[K]:
    started = clock()
    baseline = bench.measure("baseline", repeats)
    out: Outcome[K] = Outcome(goal, higher_better, baseline, [], runs=repeats)
    say(f"baseline: {_spread(baseline)}")
    for cand in candidates:
        tried: Tried[K] = Tried(cand)
        out.tried.append(tried)
        # Room for this one and for the kept set's measurement at the end.
        if not budget.fits(out.runs, started, clock(), 2 * repeats):
            tried.why = "not tried: the budget (time or runs) would be spent"
            say(f"{cand.id}: {tried.why}")
            continue
        refused = host.apply(cand.changes)
        if refused is not None:
            tried.why = f"not applied: {refused}"
            say(f"{cand.id}: {tried.why}")
            continue
        try:
            tried.values = bench.measure(cand.id, repeats)
            out.runs += repeats
        finally:
            host.undo()  # each candidate is measured alone, from the baseline
        tried.verdict = judge(tried.values, baseline, higher_better)
        tried.kept = tried.verdict.better
        mid = gain(tried.values, baseline)[0]
        word = "kept" if tried.kept else "put back"
        tried.why = f"{word}: {mid:+.1f}% of the median, {tried.verdict.why}"
        say(f"{cand.id}: {_spread(tried.values)}; {tried.why}")
        # A pair's fourth cell as soon as both are measured: before the budget goes to the
        # candidates after them.
        for a, b in pairs:
            if cand.id in (a, b) and not any((f.a, f.b) == (a, b) for f in out.factorials):
                _factorial(out, a, b, bench, host, repeats, budget, started, clock, say)
    chosen = [t.candidate for t in out.tried if t.kept]
    if not chosen:
        out.note = "nothing beat the noise: the host is as it was"
        return out
    merged: dict[K, str] = {}
    for cand in chosen:
        for key, value in cand.changes:
            merged.setdefault(key, value)  # the first candidate's value where two disagree
    refused = host.apply(list(merged.items()))
    if refused is not None:
        out.note = f"the kept set could not be applied together ({refused}): nothing kept"
        return out
    try:
        out.final = bench.measure("kept set", repeats)
        out.runs += repeats
    except BaseException:
        host.undo()
        raise
    out.final_verdict = judge(out.final, baseline, higher_better)
    mid = gain(out.final, baseline)[0]
    # Each change beat the noise alone; together they are kept unless they lost the gain (a
    # median no better than the baseline's: the changes undo each other). Above the noise
    # together or not is said, not acted on: on a busy machine a real gain can miss it twice.
    if (mid > 0) == higher_better and mid != 0:
        host.keep()
        out.kept = chosen
        word = "above the noise" if out.final_verdict.better else "NOT above the noise"
        out.note = f"together {mid:+.1f}% of the median, {word} ({out.final_verdict.why})"
        say(f"kept set: {_spread(out.final)}; kept: {out.note}")
    else:
        host.undo()
        out.note = f"together {mid:+.1f}% of the median: no gain, put back"
        say(f"kept set: {_spread(out.final)}; {out.note}")
    return out


def _factorial(
    out: Outcome[K],
    a: str,
    b: str,
    bench: Bench,
    host: Host[K],
    repeats: int,
    budget: Budget,
    started: float,
    clock: Callable[[], float],
    say: Say,
) -> None:
    """Both of an interacting pair together, judged against the better of the two alone: both
    are kept only when the pair beats that one beyond the noise (the second adds something on
    top of the first); when it does not, only the better one can stay."""
    by_id = {t.candidate.id: t for t in out.tried}
    ta, tb = by_id.get(a), by_id.get(b)
    if ta is None or tb is None or not ta.values or not tb.values:
        return
    f = Factorial(a, b)
    out.factorials.append(f)
    if not budget.fits(out.runs, started, clock(), 2 * repeats):
        f.why = "not measured: the budget (time or runs) would be spent"
        say(f"{a} x {b}: {f.why}")
        return
    refused = host.apply([*ta.candidate.changes, *tb.candidate.changes])
    if refused is not None:
        f.why = f"not applied together: {refused}"
        say(f"{a} x {b}: {f.why}")
        return
    try:
        f.values = bench.measure(f"{a} x {b}", repeats)
        out.runs += repeats
    finally:
        host.undo()
    sign = 1 if out.higher_better else -1
    best, other = sorted((ta, tb), key=lambda t: -sign * statistics.median(t.values))
    over = judge(f.values, best.values, out.higher_better)
    over_base = judge(f.values, out.baseline, out.higher_better)
    together = gain(f.values, out.baseline)[0]
    inter = together - gain(ta.values, out.baseline)[0] - gain(tb.values, out.baseline)[0]
    f.why = (
        f"together {together:+.1f}% of the median (interaction {inter:+.1f} points: the sum "
        f"of the two alone would be {together - inter:+.1f}%); against {best.candidate.id} "
        f"alone: {over.why}"
    )
    if over.better and over_base.better:
        for t in (ta, tb):
            if not t.kept:
                t.kept = True
                partner = (tb if t is ta else ta).candidate.id
                t.why = f"kept with {partner} (the factorial); alone: {_bare(t.why)}"
    elif other.kept and best.kept:  # on top of the better one it adds nothing beyond the noise
        other.kept = False
        other.why = (
            f"put back: adds nothing to {best.candidate.id} (the factorial); alone: "
            f"{_bare(other.why)}"
        )
    say(f"{a} x {b}: {_spread(f.values)}; {f.why}")


def _bare(why: str) -> str:
    """A single's verdict without its word (kept / put back): the factorial decides that."""
    for word in ("kept: ", "put back: "):
        if why.startswith(word):
            return why[len(word) :]
    return why


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "-"
    return (
        f"median {statistics.median(values):.1f} ({min(values):.1f}..{max(values):.1f}), "
        f"{len(values)} run(s)"
    )
