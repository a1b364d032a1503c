"""Autotune on a real host: the sweep's runner measures and records (its bench runner, lab
servers, per-CPU load, notebook records), the session's journal applies and puts back.

Every candidate is one journal step (`Journal.apply_all`) and is undone by `Journal.undo`;
the kept set is one step too, so `tuitune restore` (or `u` in the screen) puts it back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial

from tuitune.core.advise.model import Finding
from tuitune.core.autotune.search import AutotuneError, Candidate
from tuitune.core.bench.model import BenchResult
from tuitune.core.bench.notebook import Notebook
from tuitune.core.hostreader import HostReader
from tuitune.core.session import InvalidValue, Journal, JournalError, Key, Session, WriteRefused
from tuitune.core.sweep.plan import Combination
from tuitune.core.sweep.runner import Cell, SweepError, SweepRunner, Target, signals_deferred
from tuitune.core.sweep.spec import BenchParams, SweepSpec, Value


class JournalHost:
    """`search.Host` through the session's journal."""

    def __init__(self, session: Session) -> None:
        self.session = session

    def apply(self, changes: Sequence[tuple[Key, str]]) -> str | None:
        access = self.session.access()
        checked = []
        for key, text in changes:
            try:
                checked.append((key, access.validate(key, text)))
            except InvalidValue as exc:
                return exc.message
            except WriteRefused as exc:
                return exc.state.reason
        now = access.read_many([k for k, _ in checked])
        todo = [(k, t) for k, t in checked if now[k] != t]
        if not todo:
            return "every setting already has this value"
        try:
            with signals_deferred():  # an interruption lands before or after the step
                outs = self.session.run(partial(Journal.apply_all, changes=todo))
        except JournalError as exc:
            raise AutotuneError(str(exc)) from None
        bad = [o for o in outs if not o.ok]
        if bad:  # apply_all put back what it had changed of the step
            return f"{bad[0].key.label}: {bad[0].reason}"
        return None

    def undo(self) -> None:
        try:
            with signals_deferred():
                outs = self.session.run(lambda j: j.undo())
        except JournalError as exc:
            raise AutotuneError(str(exc)) from None
        bad = [o for o in outs if not o.ok]
        if bad:
            raise AutotuneError(f"could not put back {bad[0].key.label}: {bad[0].reason}")

    def revert_all(self) -> list[str]:
        """Every original back (an interruption, an error): what could not be, in lines."""
        if self.session.journal is None and not self.session.pending:
            return []
        try:
            done = self.session.restore()
        except JournalError as exc:
            return [f"{exc}; `tuitune restore` puts back what the journal holds"]
        return [f"{o.key.label}: {o.reason}" for o in done if not o.ok]


class SweepBench:
    """`search.Bench` through a one-cell sweep runner: the same runs, records and lab servers
    as `tuitune sweep`, tagged `sweep: autotune-...` and `cell: STEP`."""

    def __init__(
        self,
        session: Session,
        reader: HostReader,
        target: Target,
        notebook: Notebook,
        bench: BenchParams,
        run_id: str,
        goal: str,
        say: Callable[[str], None],
    ) -> None:
        spec = SweepSpec("autotune", "grid", (), None, 1, bench, warmup=False, order="snake")
        self.runner = SweepRunner(spec, session, reader, target, notebook, say=say)
        self.run_id = run_id
        self.goal = goal
        self.steps = 0
        self.warmed = False

    def sampling(self) -> contextlib.AbstractContextManager[None]:
        """The per-CPU load sampled while runs go, as a sweep samples it."""
        return self.runner.sampling()

    def measure(self, step: str, repeats: int) -> list[float]:
        r = self.runner
        combo = Combination((("autotune", Value(step, ())),))
        cell = Cell(self.steps, combo)
        self.steps += 1
        spec = r.bench_spec(combo)
        spec = replace(spec, repeats=repeats)
        settings = r.settings([])
        try:
            if not self.warmed:  # caches, ARP, slow start: as a sweep's warm-up, not counted
                self.warmed = True
                r.measure(replace(spec, repeats=1))
            results, loads, started = r.measure(spec)
        except SweepError as exc:
            raise AutotuneError(str(exc)) from None
        r.record(self.run_id, cell, spec, results, loads, started, settings)
        if cell.error or len(cell.runs) < repeats:
            raise AutotuneError(f"{step}: {cell.error or 'a run did not finish'}")
        values = [_value(run.result, self.goal) for run in cell.runs]
        if any(v is None for v in values):
            raise AutotuneError(f"{step}: a run reported no {self.goal}")
        return [v for v in values if v is not None]


def _value(result: BenchResult, goal: str) -> float | None:
    """Mb/s, or the median round trip in us for a latency goal."""
    if goal == "latency":
        return result.latency_median_us
    bps = result.throughput_bps
    return None if bps is None else bps / 1e6


def candidates_of(
    findings: Sequence[Finding], allow_trial: bool
) -> tuple[list[Candidate[Key]], list[str]]:
    """The advisor's findings with a change as candidates; those it cannot try, and why."""
    out: list[Candidate[Key]] = []
    skipped: list[str] = []
    for f in findings:
        if not f.change:
            continue
        if f.trial and not allow_trial:
            skipped.append(f"{f.id}: its change can cut the link (not tried headless)")
            continue
        out.append(Candidate(f.id, f.title, tuple((c.key, c.value) for c in f.change)))
    return out, skipped
