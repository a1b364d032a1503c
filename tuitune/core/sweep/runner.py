"""Runs a sweep: for each combination, apply it through the change journal as one step, run
iperf3 `repeats` times with the bench runner, record each run in the notebook tagged with the
sweep and the cell, and put the host back to its originals before the next cell.

Safety: every combination is resolved and validated on this host before the first write (a
bad value changes nothing); a journal left by an earlier tuitune stops the sweep before it
starts (its originals are not this sweep's to put back); whatever happens (a refused cell, a
failed run, Ctrl+C, SIGTERM turned into KeyboardInterrupt, an exception), `run` ends by
restoring every original the journal holds, and says what it could not restore.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial

from tuitune.core.bench.engines import get as get_engine
from tuitune.core.bench.load import LoadTracker
from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Direction, Run
from tuitune.core.bench.notebook import Notebook
from tuitune.core.bench.runner import BenchEvent, BenchRunner, Finished, Started
from tuitune.core.bench.settings import capture
from tuitune.core.host.netns import NetnsError
from tuitune.core.host.root import HostRoot
from tuitune.core.lab.servers import serve
from tuitune.core.lab.state import Lab, LabError
from tuitune.core.record.recorder import Recorder, bench_event, journal_event
from tuitune.core.session import (
    InvalidValue,
    Journal,
    JournalError,
    Key,
    Session,
    WriteRefused,
)
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.profile import Profile, resolve
from tuitune.core.sweep.plan import Combination, measuring_order, new_seed
from tuitune.core.sweep.runner_cpus import CpuPlans, irq_plan_of
from tuitune.core.sweep.spec import SweepSpec, requests
from tuitune.core.sweep.spec_cpus import pin_cpus
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sample, Sampler

Say = Callable[[str], None]


class SweepError(Exception):
    """The sweep cannot start (nothing changed) or go on (the originals are put back); one
    line."""


@dataclass(frozen=True, slots=True)
class Target:
    """Where the sweep measures: the interface, its namespace, the iperf3 server."""

    ifname: str
    peer: str
    port: int
    netns: str | None = None
    server_hint: str | None = None  # the exact `iperf3 -s` to suggest (the lab's own)
    # The peer's end, when this machine holds it (the lab's other namespace): settings of a
    # dimension marked `both` are set there too, through its own journal.
    peer_netns: str | None = None
    peer_ifname: str | None = None
    # The lab, when the sweep runs in it: it starts the servers a run needs beyond its iperf3
    # daemon (one per stream process, nuttcp's, sockperf's) and stops them after the run.
    lab: Lab | None = None

    @classmethod
    def in_lab(cls, ifname: str, peer: str, netns: str | None, lab: Lab | None) -> Target:
        """The live screen's target: the lab's port and far end when a lab is up."""
        if lab is None:
            return cls(ifname, peer, 5201, netns)
        return cls(ifname, peer, lab.port, netns, None, lab.peer_netns, lab.peer_ifname, lab)


@dataclass(frozen=True, slots=True)
class _End:
    """One end the sweep changes: this one (every setting) or the peer (`both` only)."""

    name: str  # "" for this end, "peer" for the other
    session: Session
    ifname: str


@dataclass
class Cell:
    """A combination's outcome: its recorded runs, or why it has none."""

    index: int
    combo: Combination
    runs: list[Run] = field(default_factory=list)
    error: str | None = None
    skipped: bool = False  # already in the notebook (--resume)


@dataclass
class SweepOutcome:
    sweep_id: str
    cells: list[Cell]
    restored: list[Outcome]  # what the final restore did
    problems: list[str]  # what could not be restored (empty: the host is as it was)
    interrupted: bool = False
    error: str | None = None  # why the sweep stopped before its last cell


def sweep_runs(notebook: Notebook, sweep_id: str) -> list[Run]:
    return [r for r in notebook.runs() if r.tags.get("sweep") == sweep_id]


def _sweep_ids(notebook: Notebook, prefix: str) -> list[int]:
    out = []
    for run in notebook.runs():
        sid = run.tags.get("sweep", "")
        if sid.startswith(prefix) and sid[len(prefix) :].isdigit():
            out.append(int(sid[len(prefix) :]))
    return out


class SweepRunner:
    def __init__(
        self,
        spec: SweepSpec,
        session: Session,
        reader: HostReader,
        target: Target,
        notebook: Notebook,
        say: Say = print,
    ) -> None:
        self.spec = spec
        self.session = session
        self.reader = reader
        self.target = target
        self.notebook = notebook
        self.say = say
        # The shuffle's seed: the spec's, else drawn now; recorded with every run (a resumed
        # sweep takes the one it recorded).
        self.seed = spec.seed if spec.seed is not None else new_seed()
        self.combos = measuring_order(spec, self.seed)
        self._cpus = CpuPlans(reader, target.ifname, target.peer_netns is not None)
        self.ends = [_End("", session, target.ifname)]
        if target.peer_netns is not None and target.peer_ifname is not None:
            peer_root = HostRoot(netns=target.peer_netns)
            peer = Session(peer_root, journal_dir=session.journal_dir)
            self.ends.append(_End("peer", peer, target.peer_ifname))
        self._both = {d.name for d in spec.dimensions if d.both}
        self._tracker: LoadTracker | None = None
        self._sampler: Sampler | None = None
        self._warmed = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        # A recording beside the notebook (the CLI's `tuitune sweep` sets it): the sampler's
        # ticks and each repeat's start and end; each run's tags name it and its window.
        self.recorder: Recorder | None = None
        self.command: Sequence[str] | None = None  # tests: replay a recorded client output
        self.recording_path: str | None = None
        self._windows: dict[int, list[float]] = {}
        self._first = threading.Event()  # the sampler delivered (and recorded) a sample
        # The live screen's --record (its recording, not one of the sweep's own): where the
        # sweep's journal steps go when it has no recorder (recorder.safe_event's shape).
        self.on_journal: Callable[[str, dict[str, object]], None] | None = None

    def cancel(self) -> None:
        """Stop the sweep from another thread (the live screen's X): it ends as after Ctrl+C,
        iperf3 stopped and every original put back."""
        self._stop.set()

    def _check_stop(self) -> None:
        if self._stop.is_set():
            raise KeyboardInterrupt

    # -- before the first write ------------------------------------------------------------
    def plan(self) -> list[list[list[tuple[Key, str]]]]:
        """Each combination's (key, value) changes at each end, resolved and validated on
        its host; a SweepError naming the first problem (and how many there are) otherwise."""
        out: list[list[list[tuple[Key, str]]]] = []
        problems: list[str] = []
        try:
            for combo in self.combos:
                per_end = []
                for end in self.ends:
                    pairs, errors = self._resolve(end, combo)
                    where = f"{combo.label}{' (peer)' if end.name else ''}"
                    problems += [f"{where}: {e}" for e in errors]
                    per_end.append(pairs)
                out.append(per_end)
        except NetnsError as exc:
            raise SweepError(f"{exc}; nothing was changed") from None
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise SweepError(f"{problems[0]}{more}; nothing was changed")
        pins = self._cpus.pin_problems(self.spec)
        if pins:
            raise SweepError(f"{pins[0]}; nothing was changed")
        for end in self.ends:
            left = end.session.leftover()
            if left:
                raise SweepError(
                    f"an earlier tuitune left {left} setting(s) recorded on "
                    f"{end.session.root.netns or 'this host'}: `tuitune restore` first; "
                    "nothing was changed"
                )
        if len(self.ends) == 1 and self._both:
            names = ", ".join(sorted(self._both))
            self.say(f"not set at the peer (not on this machine): {names}; set it there by hand")
        return out

    def _resolve(self, end: _End, combo: Combination) -> tuple[list[tuple[Key, str]], list[str]]:
        chosen = [p for d, v in combo.values if not end.name or d in self._both for p in v.settings]
        wanted = requests(chosen)
        plan = irq_plan_of(chosen)
        if not wanted and plan is None:
            return [], []
        access = end.session.access()
        pairs, errors = resolve(access, Profile(None, tuple(wanted), "sweep"), end.ifname)
        if plan is not None:
            if end.name:
                errors.append(f"irqs {plan}: IRQ plans are set at this end only")
            else:
                irqs, why = self._cpus.irq_changes(plan)
                pairs += irqs  # last, as profiles write them: after channels and queues
                errors += why
        checked = []
        for key, text in pairs:
            try:
                checked.append((key, access.validate(key, text)))
            except InvalidValue as exc:
                errors.append(exc.message)
            except WriteRefused as exc:
                errors.append(exc.state.reason)
        return checked, errors

    def sweep_id(self, resume: bool) -> tuple[str, set[tuple[str, ...]]]:
        """This sweep's id, and (resuming) the cells already in the notebook."""
        prefix = f"{self.spec.name}-{self.spec.identity()}-"
        known = _sweep_ids(self.notebook, prefix)
        if resume and known:
            sid = f"{prefix}{max(known)}"
            done: dict[tuple[str, ...], int] = {}
            for run in sweep_runs(self.notebook, sid):
                seed = run.tags.get("seed", "")
                if seed.isascii() and seed.isdigit() and self.spec.seed is None:
                    self.seed = int(seed)  # the order it was started in
                if run.result.complete:
                    cell = tuple(run.tags.get("cell", "").split("\x1f"))
                    done[cell] = done.get(cell, 0) + 1
            return sid, {c for c, n in done.items() if n >= self.spec.repeats}
        if resume:
            self.say("nothing to resume: no runs of this sweep in the notebook; starting it")
        return f"{prefix}{max(known, default=0) + 1}", set()

    # -- the sweep ---------------------------------------------------------------------------
    def run(self, resume: bool = False) -> SweepOutcome:
        changes = self.plan()
        sid, done = self.sweep_id(resume)
        by_key = dict(zip([c.key for c in self.combos], changes, strict=True))
        self.combos = measuring_order(self.spec, self.seed)
        changes = [by_key[c.key] for c in self.combos]
        order = f"shuffled, seed {self.seed}" if self.spec.order == "shuffle" else "snake"
        self.say(
            f"sweep {sid}: {len(self.combos)} cell(s) x {self.spec.repeats} repeat(s), "
            f"order {order}"
        )
        cells: list[Cell] = []
        interrupted = False
        error: str | None = None
        try:
            with self.sampling():  # stopped before the restore, as soon as the cells end
                for i, (combo, per_end) in enumerate(zip(self.combos, changes, strict=True)):
                    cell = Cell(i, combo)
                    cells.append(cell)
                    if combo.key in done:
                        cell.skipped = True
                        self.say(f"[{i + 1}/{len(self.combos)}] {combo.label}: already recorded")
                        continue
                    self._check_stop()
                    self.say(f"[{i + 1}/{len(self.combos)}] {combo.label}")
                    self._cell(sid, cell, per_end)
        except KeyboardInterrupt:
            interrupted = True
            self.say("interrupted: putting every original back")
        except (SweepError, JournalError) as exc:
            error = str(exc)
            self.say(f"stopped: {error}")
        finally:
            with signals_held():  # a second Ctrl+C must not cut the restore short
                restored, problems = self._restore_all()
            for end in self.ends[1:]:
                end.session.close()
        return SweepOutcome(sid, cells, restored, problems, interrupted, error)

    def _cell(self, sid: str, cell: Cell, changes: Sequence[Sequence[tuple[Key, str]]]) -> None:
        for end, pairs in zip(self.ends, changes, strict=True):
            access = end.session.access()
            now = access.read_many([k for k, _ in pairs])
            todo = [(k, t) for k, t in pairs if now[k] != t]
            if not todo:
                continue
            with signals_deferred():  # an interruption lands before or after the step
                outs = end.session.run(partial(Journal.apply_all, changes=todo))
            self._journaled(end, outs)
            bad = [o for o in outs if not o.ok]
            if bad:
                at = " at the peer" if end.name else ""
                cell.error = f"not applied{at}: {bad[0].key.label}: {bad[0].reason}"
                self.say(f"  {cell.error}")
                self._put_back()
                return
        settings = self.settings(changes)
        spec = self.bench_spec(cell.combo)
        try:
            if self.spec.warmup and not self._warmed:
                self._warmed = True
                self.say("  warm-up run (not counted):")
                self.measure(replace(spec, repeats=1))
            results, loads, started = self.measure(spec)
        finally:
            self._put_back()
        self.record(sid, cell, spec, results, loads, started, settings)

    def settings(self, changes: Sequence[Sequence[tuple[Key, str]]]) -> dict[str, str]:
        """What the run runs with: every setting here and at the peer's end (its device and
        its namespace's sysctls), whether the sweep set them or not."""
        try:
            out = capture(self.session.access(), self.target.ifname)
            for end in self.ends[1:]:
                got = capture(end.session.access(), end.ifname, host_wide=False)
                out.update({f"{end.name} {name}": value for name, value in got.items()})
            return out
        except Exception as exc:  # a settings read must not stop the measurement
            self.say(f"  settings not read ({exc}); recorded without them")
            return {}

    def _put_back(self) -> None:
        """Back to the originals between cells; a cell that cannot be undone ends the sweep
        (the next would be measured on a host in an unknown state)."""
        for end in self.ends:
            if end.session.journal is None or not end.session.pending:
                continue
            with signals_deferred():  # never cut between the journal file and the session
                outs = end.session.run(lambda j: j.revert_all())
            self._journaled(end, outs)
            bad = [o for o in outs if not o.ok]
            if bad:
                raise SweepError(f"could not put back {bad[0].key.label}: {bad[0].reason}")

    def bench_spec(self, combo: Combination) -> BenchSpec:
        """The runs a combination gets: the spec's bench, its test dimensions, this target."""
        p = self.spec.bench
        streams = combo.test("streams")
        client_cpu, server_cpu = pin_cpus(combo.test("pin"))
        direction: Direction = p.direction
        way = combo.test("direction")
        if way in ("normal", "reverse", "bidir"):
            direction = way  # type: ignore[assignment]  # checked by the spec parser
        port = self.target.port
        if p.engine != "iperf3" and self.target.lab is not None:
            port = get_engine(p.engine).default_port  # the lab's port is its iperf3 daemon's
        n = int(streams) if streams else p.streams
        return BenchSpec(
            engine=p.engine,
            processes=p.processes and n > 1,
            peer=self.target.peer,
            port=port,
            duration=p.seconds,
            streams=int(streams) if streams else p.streams,
            direction=direction,
            length=p.length,
            client_cpu=client_cpu,
            server_cpu=server_cpu,
            repeats=self.spec.repeats,
            netns=self.target.netns,
        )

    def measure(self, spec: BenchSpec) -> tuple[list[BenchResult], list[CpuLoad], list[str]]:
        """`spec`'s repeats run on the host as it is now: each run's result, its CPU load
        (under `sampling`) and when it started; a lab's servers started and stopped around."""
        loads: list[CpuLoad] = []
        started: list[str] = []
        lines: list[str] = []  # said from this thread: `say` may raise (Ctrl+C in a UI)

        self._windows = {}

        def on_event(event: BenchEvent) -> None:  # runner thread
            self._recorded(event)
            if isinstance(event, Started):
                started.append(datetime.now().astimezone().isoformat(timespec="seconds"))
                with self._lock:
                    self._tracker = LoadTracker()
            elif isinstance(event, Finished):
                with self._lock:
                    tracker, self._tracker = self._tracker, None
                    loads.append(tracker.result() if tracker is not None else CpuLoad())
                    lines.append(_repeat_line(event))

        def flush() -> None:
            with self._lock:
                todo, lines[:] = list(lines), []
            for line in todo:
                self.say(line)

        with self._servers(spec) as servers:
            runner = BenchRunner(
                spec,
                on_event,
                command=self.command,
                server_hint=self.target.server_hint,
                server_commands=servers,
            )
            runner.start()
            try:
                while runner.running:
                    runner.wait(0.5)
                    flush()
                    self._check_stop()
                flush()
            finally:  # Ctrl+C or SIGTERM: iperf3 is stopped, the caller reverts
                if runner.running:
                    runner.cancel()
                    runner.wait()
        return runner.wait(), loads, started

    @contextlib.contextmanager
    def _servers(self, spec: BenchSpec) -> Iterator[tuple[str, ...]]:
        lab = self.target.lab
        if lab is None:
            yield ()
            return
        try:
            with serve(lab, spec, get_engine(spec.engine)) as servers:
                yield tuple(servers.commands)
        except LabError as exc:
            raise SweepError(str(exc)) from None

    def _recorded(self, event: BenchEvent) -> None:
        """A repeat's start or end into the recording, and its time for the run's tags."""
        if self.recorder is None or (got := bench_event(event)) is None:
            return
        self.recorder.safe_event("bench", got)
        if isinstance(event, Started | Finished):
            now = self.recorder.now()
            self._windows.setdefault(event.repeat, []).append(0.0 if now is None else now)

    def _recording_tags(self, repeat: int) -> dict[str, str]:
        window = self._windows.get(repeat, [])
        if self.recorder is None or self.recorder.stopped is not None or len(window) < 2:
            return {}
        from tuitune.core.record.recorder import window_tags

        return window_tags(self.recording_path or "", window[0], window[-1])

    @contextlib.contextmanager
    def sampling(self) -> Iterator[None]:
        """The per-CPU load sampled while the runs go (each run's load is what `measure`
        returns); `run` samples its cells this way, autotune its steps."""
        deliver = self.recorder.tee(self._deliver) if self.recorder else self._deliver
        sampler = Sampler(self.reader, self.target.ifname, deliver, interval=1.0)
        sampler.record_affinity = self.recorder is not None  # every IRQ's, into the recording
        self._sampler = sampler
        self._first.clear()
        sampler.start()
        try:
            if self.recorder is not None:
                # A step before the recording's first sample has no time on its clock and is
                # not written: the first cell's settings wait for it (one tick, taken at once).
                self._first.wait(timeout=10)
            yield
        finally:
            sampler.stop()
            self._sampler = None

    def _deliver(self, sample: Sample) -> None:  # sampler thread
        with self._lock:
            tracker = self._tracker
        if tracker is not None:
            tracker.add(sample)
        self._first.set()
        if self._sampler is not None:  # it waits for an ack before its next tick
            self._sampler.ack()

    def record(
        self,
        sid: str,
        cell: Cell,
        spec: BenchSpec,
        results: list[BenchResult],
        loads: list[CpuLoad],
        started: list[str],
        settings: dict[str, str],
    ) -> None:
        """The complete runs into the notebook, tagged with the sweep and the cell; a run that
        did not finish is the cell's error, never a row."""
        tags = {
            "sweep": sid,
            "cell": "\x1f".join(cell.combo.key),
            "combination": cell.combo.label,
            "order": self.spec.order,
        }
        if self.spec.order == "shuffle":
            tags["seed"] = str(self.seed)
        group = ""
        for i, result in enumerate(results):
            if not result.complete:
                cell.error = result.error or "the run did not finish"
                continue  # a half run would skew the medians
            rid = self.notebook.next_id()
            group = group or rid
            load = loads[i] if i < len(loads) else CpuLoad()
            when = started[i] if i < len(started) else ""
            marks = tags | self._recording_tags(i)
            run = Run(rid, group, self.target.ifname, when, spec, result, load, settings, marks)
            self.notebook.add(run)
            cell.runs.append(run)
        if not results:
            cell.error = "no run finished"

    def _restore_all(self) -> tuple[list[Outcome], list[str]]:
        """Every original the journals hold put back; what could not be, in lines."""
        outs: list[Outcome] = []
        problems: list[str] = []
        for end in self.ends:
            if end.session.journal is None:
                continue
            try:
                done = end.session.restore()
            except JournalError as exc:
                problems.append(f"{exc}; `tuitune restore` puts back what the journal holds")
                continue
            self._journaled(end, done)
            outs += done
            problems += [f"{o.key.label}: {o.reason}" for o in done if not o.ok]
        return outs, problems

    def _journaled(self, end: _End, outs: Sequence[Outcome]) -> None:
        """Each step of a change the sweep made (a cell's settings, putting them back, the
        final restore) into the recording, as the live screen's --record writes its own:
        replay's `]` stops at them. A failed write stops the recording, never the sweep."""
        sink = self.recorder.safe_event if self.recorder is not None else self.on_journal
        if sink is None:
            return
        for out in outs:
            sink("journal", journal_event(out, end.name))


def _repeat_line(event: Finished) -> str:
    r = event.result
    tp = r.throughput_bps
    text = "-" if tp is None else f"{tp / 1e6:.0f} Mb/s"
    if tp is None and r.latency_median_us is not None:  # a latency cell
        text = f"rtt {r.latency_median_us:.1f} us"
    retr = "" if r.total_retransmits is None else f", {r.total_retransmits} retr"
    error = f" ({r.error})" if r.error else ""
    return f"  repeat {event.repeat + 1}: {text}{retr}{error}"


@contextlib.contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl+C, SIGTERM and SIGHUP ignored while the originals go back (main thread only: Python
    handles signals there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {sig: signal.signal(sig, signal.SIG_IGN) for sig in held}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """Ctrl+C, SIGTERM and SIGHUP that arrive inside are delivered at its end, to the handlers
    that were there: a journal step (opening the journal, recording an original, the write)
    is never cut in the middle, where the file and the session would disagree. Main thread
    only, as `signals_held`."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []

    def hold(signum: int, frame: object) -> None:
        del frame
        got.append(signum)

    held = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {sig: signal.signal(sig, hold) for sig in held}
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
        if got:
            signal.raise_signal(got[0])  # now, to whoever handled it before
