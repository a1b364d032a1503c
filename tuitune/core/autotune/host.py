"""Autotune on a real host: the sweep's runner measures and records (its bench runner, lab
servers, per-CPU load, notebook records), the session's journal applies and puts back.

Every candidate is one journal step (`Journal.apply_all`) and is undone by `Journal.undo`;
the kept set is one step too, so `tuitune restore` (or `u` in the screen) puts it back.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from tuitune.core.advise.model import Finding
from tuitune.core.autotune.search import AutotuneError, Candidate
from tuitune.core.bench.model import BenchResult
from tuitune.core.bench.notebook import Notebook
from tuitune.core.profiles import ShippedProfile
from tuitune.core.session import InvalidValue, Journal, JournalError, Key, Session, WriteRefused
from tuitune.core.sweep.plan import Combination
from tuitune.core.sweep.runner import Cell, SweepError, SweepRunner, Target, signals_deferred
from tuitune.core.sweep.spec import BenchParams, SweepSpec, Value
from tuitune.core.watch.hostreader import HostReader


@dataclass(frozen=True, slots=True)
class AtPeer:
    """A setting at the far end (the lab's peer namespace), applied through its own journal."""

    key: Key

    @property
    def label(self) -> str:
        return f"peer {self.key.label}"


Change = tuple["Key | AtPeer", str]


class JournalHost:
    """`search.Host` through the session's journal, and the far end's when there is one: a
    candidate's changes at both ends are one step each, this end's first; if the far end
    refuses, this end's step is put back, so a candidate is on at both ends or at none."""

    def __init__(
        self, session: Session, peer: Session | None = None, trial_seconds: float | None = None
    ) -> None:
        self.session = session
        self.peer = peer
        # On this machine's own link a change that can cut it (is_risky) goes on trial: the
        # detached watchdog puts it back after `trial_seconds` if tuitune hangs or dies
        # mid-measurement; a candidate is put back after its runs anyway, and the kept set's
        # trials are confirmed once it is kept (keep). None: no trials (a lab's namespaces).
        self.trial_seconds = trial_seconds
        self._stack: list[list[tuple[Session, bool]]] = []  # per candidate: (session, trial)

    def apply(self, changes: Sequence[Change]) -> str | None:
        near = [(k, t) for k, t in changes if isinstance(k, Key)]
        far = [(k.key, t) for k, t in changes if isinstance(k, AtPeer)]
        if far and self.peer is None:
            return "the far end is not reachable here"
        risky: list[tuple[Key, str]] = []
        if self.trial_seconds is not None:
            from tuitune.core.session.risk import is_risky

            risky = [(k, t) for k, t in near if is_risky(k, None)]
            if len(risky) > 1:  # one trial at a time, and these must be on together
                return (
                    f"{len(risky)} changes that can cut the link: each goes on trial alone, "
                    "and this candidate needs them together"
                )
            near = [p for p in near if p not in risky]
        done: list[tuple[Session, bool]] = []
        steps = (
            (self.session, near, "", False),
            (self.session, risky, " (on trial)", True),
            (self.peer, far, " at the peer", False),
        )
        for session, pairs, where, trial in steps:
            if not pairs or session is None:
                continue
            if trial and self.trial_seconds is not None:
                got = _trial(session, pairs[0], self.trial_seconds)
            else:
                got = _step(session, pairs)
            if got is None:
                done.append((session, trial))
                continue
            if got == SAME:
                continue
            for s, t in reversed(done):
                _put_back(s, t)
            return f"{got}{where}"
        if not done:
            return "every setting already has this value"
        self._stack.append(done)
        return None

    def undo(self) -> None:
        for session, trial in reversed(self._stack.pop() if self._stack else []):
            _put_back(session, trial)

    def keep(self) -> None:
        """The last step stays: its trial (if any) is confirmed, its watchdog stopped."""
        for session, trial in self._stack[-1] if self._stack else []:
            if trial and not session.run(lambda j: j.confirm()):
                # Its deadline passed first (tuitune too slow): the watchdog put it back.
                raise AutotuneError("the kept set's trial ended before it was confirmed: put back")

    def revert_all(self) -> list[str]:
        """Every original back at both ends (an interruption, an error): what could not be."""
        out: list[str] = []
        for session, where in ((self.session, ""), (self.peer, "peer ")):
            if session is None or (session.journal is None and not session.pending):
                continue
            try:
                done = session.restore()
            except JournalError as exc:
                out.append(f"{where}{exc}; `tuitune restore` puts back what the journal holds")
                continue
            out += [f"{where}{o.key.label}: {o.reason}" for o in done if not o.ok]
        self._stack.clear()
        return out


SAME = "every setting already has this value"


def _step(session: Session, changes: Sequence[tuple[Key, str]]) -> str | None:
    """One journal step on `session`: None when applied, else why not (nothing changed)."""
    access = session.access()
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
        return SAME
    try:
        with signals_deferred():  # an interruption lands before or after the step
            outs = session.run(partial(Journal.apply_all, changes=todo))
    except JournalError as exc:
        raise AutotuneError(str(exc)) from None
    bad = [o for o in outs if not o.ok]
    if bad:  # apply_all put back what it had changed of the step
        return f"{bad[0].key.label}: {bad[0].reason}"
    return None


def _trial(session: Session, change: tuple[Key, str], seconds: float) -> str | None:
    """One change on trial (Journal.apply_trial): None when applied, else why not."""
    key, text = change
    access = session.access()
    try:
        value = access.validate(key, text)
    except InvalidValue as exc:
        return exc.message
    except WriteRefused as exc:
        return exc.state.reason
    if access.read_many([key])[key] == value:
        return SAME
    try:
        with signals_deferred():
            out, trial = session.run(lambda j: j.apply_trial(key, value, seconds))
    except JournalError as exc:
        raise AutotuneError(str(exc)) from None
    if not out.ok:
        return f"{key.label}: {out.reason}"
    return None if trial is not None else SAME


def _put_back(session: Session, trial: bool) -> None:
    """A step back: a trial still open is reverted (its watchdog stopped); one the watchdog
    already reverted has nothing left; a confirmed one is a step as any other."""
    if trial:
        try:
            with signals_deferred():
                state = session.run(lambda j: (j.trial, j.last_trial_end))
                if state[0] is not None:
                    outs = session.run(lambda j: j.revert_trial())
                    bad = [o for o in outs if not o.ok]
                    if bad:
                        raise AutotuneError(
                            f"could not put back {bad[0].key.label}: {bad[0].reason}"
                        )
                    return
        except JournalError as exc:
            raise AutotuneError(str(exc)) from None
        end = state[1]
        if end is not None and end.how != "confirmed":
            return  # the watchdog put it back (tuitune was too slow): nothing left of it
    _undo(session)


def _undo(session: Session) -> None:
    try:
        with signals_deferred():
            outs = session.run(lambda j: j.undo())
    except JournalError as exc:
        raise AutotuneError(str(exc)) from None
    bad = [o for o in outs if not o.ok]
    if bad:
        raise AutotuneError(f"could not put back {bad[0].key.label}: {bad[0].reason}")


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


CUTS = "more than one of its changes can cut the link (one at a time goes on trial headless)"


def cuts(keys: Sequence[Key], allow_trial: bool, ssh_iface: str | None) -> str | None:
    """Why autotune does not try these changes, or None. In a lab's namespaces
    (`allow_trial`) nothing carries the session: everything is tried. On this machine's own
    link a change that can cut it (a link reset: MTU, rings, channels, pause; SMT) is tried on
    trial, one such change per candidate (JournalHost.trial_seconds: the watchdog puts it back
    if tuitune hangs or dies mid-run); nothing on the SSH session's interface is tried, since
    a run that goes well elsewhere does not show the session still reaches its user."""
    from tuitune.core.session.risk import is_risky

    if allow_trial:
        return None
    for k in keys:
        if ssh_iface is not None and k.ifname == ssh_iface:
            return (
                f"it changes {ssh_iface}, the SSH session's interface: changed only on trial, "
                "which needs you to confirm (not tried headless)"
            )
    return CUTS if sum(is_risky(k, None) for k in keys) > 1 else None


def candidates_of(
    findings: Sequence[Finding], allow_trial: bool, ssh_iface: str | None = None
) -> tuple[list[Candidate[Key]], list[str]]:
    """The advisor's findings with a change as candidates; those it cannot try, and why."""
    out: list[Candidate[Key]] = []
    skipped: list[str] = []
    for f in findings:
        if not f.change:
            continue
        why = cuts([c.key for c in f.change], allow_trial, ssh_iface)
        if why is not None:
            skipped.append(f"{f.id}: {why}")
            continue
        out.append(Candidate(f.id, f.title, tuple((c.key, c.value) for c in f.change)))
    return out, skipped


# Settings the far end must share for the change to count: LOFAR (WAN) tunes both ends (MTU,
# buffers), and TCP's segment size follows the smaller MTU of the two. Offloads are each end's
# own business (TSO is the sender's), so features are not mirrored.
MIRRORED_KINDS = frozenset({"mtu", "sysctl"})


def at_both_ends(
    cands: Sequence[Candidate[Key]], peer_ifname: str, host_wide: Callable[[Key], bool]
) -> list[Candidate[Any]]:
    """Each candidate whose change the far end must share, with the same change there too
    (its own interface, its namespace's sysctls; never a host-wide one: one value for both)."""
    out: list[Candidate[Any]] = []
    for c in cands:
        far = [
            (AtPeer(replace(k, ifname=peer_ifname) if k.ifname else k), v)
            for k, v in c.changes
            if k.kind in MIRRORED_KINDS and not host_wide(k)
        ]
        if not far:
            out.append(c)
            continue
        changes: tuple[tuple[Any, str], ...] = (*c.changes, *far)
        out.append(Candidate(c.id, f"{c.title} (both ends)", changes))
    return out


def profile_candidates(
    session: Session,
    prof: ShippedProfile,
    ifname: str,
    allow_trial: bool,
    ssh_iface: str | None = None,
) -> tuple[list[Candidate[Key]], list[str]]:
    """The profile's values one at a time (as `profile diff` resolves them on this host): each
    a candidate `profile:SETTING`; what cannot be set here, or is already so, is a line."""
    from tuitune.core.profiles.platform import extra_parts
    from tuitune.core.session.profile import resolve
    from tuitune.core.session.profile_model import Profile, Request

    access = session.access()
    whole = prof.to_profile()
    out: list[Candidate[Key]] = []
    skipped: list[str] = []
    singles = list(zip(prof.picks, whole.requests, strict=False))  # one pick, one request
    each: list[tuple[str, str, tuple[Request, ...]]] = [
        (p.setting, f"{prof.name}'s {p.setting} = {p.value} ({p.advice.source}, "
         f"{p.advice.context})", (r,)) for p, r in singles
    ]  # fmt: skip
    titles = {"irqs": "IRQs on the NIC-local cores", "cpu-governor": "performance governor"}
    for part, cite, reqs in extra_parts(prof):  # the IRQ placement, the governor: each whole
        each.append((part, f"{prof.name}'s {titles[part]} ({cite})", reqs))
    for setting, title, reqs in each:
        cid = f"profile:{setting}"
        pairs, errors = resolve(access, Profile(None, reqs, whole.source), ifname)
        if errors or not pairs:
            skipped.append(f"{cid}: {errors[0] if errors else 'nothing to set here'}")
            continue
        why = refused(access, pairs)
        if why is not None:  # a veth's rings, a host-wide sysctl from a namespace
            skipped.append(f"{cid}: {why}")
            continue
        cut = cuts([k for k, _ in pairs], allow_trial, ssh_iface)
        if cut is not None:
            skipped.append(f"{cid}: {cut}")
            continue
        now = access.read_many([k for k, _ in pairs])
        if all(now[k] == t for k, t in pairs):
            continue  # already as the profile has it: nothing to try
        out.append(Candidate(cid, title, tuple(pairs)))
    # Link-level first: the budget may end the list, and these are the ones that move a link.
    out.sort(key=lambda c: 0 if any(k.kind in ("mtu", "feature") for k, _ in c.changes) else 1)
    return out, skipped


def refused(access: Any, pairs: Sequence[tuple[Key, str]]) -> str | None:
    """Why this host cannot take these values (checked as the journal checks them)."""
    for key, text in pairs:
        try:
            access.validate(key, text)
        except InvalidValue as exc:
            return exc.message
        except WriteRefused as exc:
            return exc.state.reason
    return None


SEGMENTATION = ("segmentation", "scatter-gather")


def interacting(cands: Sequence[Candidate[Any]]) -> list[tuple[str, str]]:
    """Pairs of candidates whose gains are known not to add: one that turns segmentation
    offloads (TSO/GSO/SG) and one that changes the MTU. With TSO off, every packet costs the
    CPU and a 9000 MTU cuts their number by six; with TSO on the NIC (or GSO) already sends
    64 KiB per call, so the MTU matters far less (NASA's Table 2 measures offloads at 1500 and
    9000). Such a pair gets the 2x2 factorial's fourth cell: both together."""

    def keys(c: Candidate[Any]) -> list[Key]:
        return [k.key if isinstance(k, AtPeer) else k for k, _ in c.changes]

    seg = [c for c in cands if any(k.kind == "feature" and any(w in k.name for w in SEGMENTATION)
                                   for k in keys(c))]  # fmt: skip
    mtu = [c for c in cands if any(k.kind == "mtu" for k in keys(c))]
    return [(a.id, b.id) for a in seg[:1] for b in mtu[:1] if a.id != b.id]
