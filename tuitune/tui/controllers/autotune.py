"""Autotune from the live screen (T): the advisor's findings of the moving window tried one at
a time with the benchmark as the judge (tuitune.core.autotune, as `tuitune autotune` does),
on a worker thread through the screen's own Session (its journal: one writer a host). The
peer is the lab's far end, or typed. Progress goes to the notification line; T again, or
quitting, stops it, and every change not yet kept is put back before anything else happens.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

from tuitune.core.autotune.goal import Goal
from tuitune.core.session import Key
from tuitune.tui.shell import Shell

if TYPE_CHECKING:
    from tuitune.core.advise.model import Advice, ContextKind
    from tuitune.core.autotune.host import SweepBench
    from tuitune.core.autotune.search import Candidate
    from tuitune.core.lab import Lab
    from tuitune.core.session import Session
    from tuitune.core.sweep.spec import SweepSpec
    from tuitune.core.watch.hostreader import HostReader

REPEATS = 3
THROUGHPUT = Goal()
SECONDS = 2
BUDGET_S = 300.0
MAX_RUNS = 40


class AutotuneController:
    class News(Message):
        """From the autotune thread: a progress `line`, or the end (`done`, with its last
        `lines` and the whole `report`, Markdown)."""

        def __init__(
            self, line: str = "", done: bool = False, lines: tuple[str, ...] = (), report: str = ""
        ):
            super().__init__()
            self.line, self.done, self.lines, self.report = line, done, lines, report

    def __init__(
        self,
        shell: Shell,
        advice: Callable[[ContextKind], Advice | None],
        *,
        lab: Lab | None = None,
        notebook_path: Path | None = None,
    ) -> None:
        self.shell = shell
        # The advisor's judgement of the moving window in a context (the latency goal judges
        # with the latency rules, as `autotune --goal latency`); None before its first.
        self.advice = advice
        self.lab = lab
        self.notebook_path = notebook_path
        self.bench: SweepBench | None = None
        self.last_lines: tuple[str, ...] = ()  # the last run's end: its chart and verdict
        self.typed: dict[str, str] = {}  # the form's fields as last submitted
        self.command: Sequence[str] | None = None  # tests: replay a recorded client output

    @property
    def running(self) -> bool:
        return self.bench is not None

    def open(self) -> None:
        """T: stop a run under way; else the form (the peer outside the lab, the goal, a
        sweep spec), whose Enter starts one."""
        if self.bench is not None:
            self.stop()
            return
        from tuitune.tui.screens.autotune_form import AutotuneFormScreen

        lab_peer = self.lab.peer_addr if self.lab is not None else None
        self.shell.push_screen(AutotuneFormScreen(self.typed, lab_peer, self._submitted))

    def _submitted(self, fields: Mapping[str, str]) -> str | None:
        """The form's Enter: started (None), else why not in one line, nothing changed. The
        goal, the profile and the spec are read as `tuitune autotune --goal --profile --spec`
        reads them."""
        from tuitune.core.autotune.goal import parse_goal
        from tuitune.core.autotune.sources import unknown_profile
        from tuitune.core.profiles import find
        from tuitune.core.sweep.spec import SpecError, load
        from tuitune.tui.screens.autotune_form import NO_PROFILE

        self.typed = dict(fields)
        peer = fields.get("peer", "").strip()
        try:
            goal = parse_goal(fields.get("goal", ""))
        except ValueError as exc:
            return str(exc)
        chosen = fields.get("profile", "auto").strip() or "auto"
        if chosen != NO_PROFILE and chosen != "auto" and find(chosen) is None:
            return unknown_profile(chosen)
        profile = None if chosen == NO_PROFILE else chosen
        spec = None
        path = fields.get("spec", "").strip()
        if path:
            try:  # a hostile file: the sweep's bounded, link-safe reader (core/docfile.py)
                spec = load(Path(path))
            except SpecError as exc:
                return str(exc)
        return self._start(peer, goal, spec, profile)

    def stop(self) -> None:
        if self.bench is not None:
            self.bench.runner.cancel()
            self.shell.notify_line("autotune: stopping; every change not kept goes back", True)

    def refuse_quit(self) -> None:
        """Quitting mid-run: stop it (everything not kept goes back), then quit."""
        self.stop()
        self.shell.notify_line(
            "autotune is putting every change back: quit again when it says so", True
        )

    # -- the run -------------------------------------------------------------------------------
    def _start(
        self, peer: str, goal: Goal, spec: SweepSpec | None, profile: str | None = "auto"
    ) -> str | None:
        problem = self._problem(peer)
        if problem is not None:
            return problem
        from tuitune.core.autotune.goal import WORDS
        from tuitune.core.autotune.host import SweepBench, candidates_of
        from tuitune.core.bench.notebook import Notebook
        from tuitune.core.host.root import HostRoot
        from tuitune.core.session.risk import ssh_interface
        from tuitune.core.sweep.runner import Target
        from tuitune.core.sweep.spec import BenchParams
        from tuitune.core.watch.hostreader import HostReader

        shell = self.shell
        session = shell.session
        ifname = shell.selection().ifname
        assert ifname is not None  # _problem said so otherwise
        advice = self.advice(goal.context)
        findings = advice.findings if advice is not None else ()
        in_ns = session.root.netns is not None
        # The SSH session's interface (the machine's routes, read on this UI thread): changed
        # only on trial, so never by autotune, which measures unattended.
        ssh = None if in_ns or not session.root.live else ssh_interface(HostRoot())
        candidates, skipped = candidates_of(findings, allow_trial=in_ns, ssh_iface=ssh)
        lab = self.lab
        target = Target.in_lab(ifname, peer, session.root.netns, lab)
        target = replace(target, port=goal.port(None, lab is not None) or target.port)
        path = self.notebook_path or Notebook.default_path(ifname, netns=session.root.netns)
        run_id = f"autotune-{datetime.now().strftime('%Y%m%d%H%M%S')}"
        reader = HostReader(session.root)
        params = BenchParams(seconds=SECONDS, engine=goal.engine)
        bench = SweepBench(session, reader, target, Notebook(path), params, run_id, goal.name,
                           self._say)  # fmt: skip
        bench.runner.command = self.command
        self.bench = bench
        names = ", ".join(c.id for c in candidates) or "none"
        then = f"; profile {profile} next" if profile is not None else ""
        shell.notify_line(f"autotune {run_id}, goal {goal.name} ({WORDS[goal.name]}): advisor "
                          f"candidate(s): {names}{then}")  # fmt: skip
        job = _Job(bench, reader, ifname, peer, run_id, path, in_ns, goal, spec, profile, ssh)

        def work() -> None:
            lines, report = _run(job, candidates, skipped)
            shell.post_message(AutotuneController.News(done=True, lines=lines, report=report))

        shell.in_thread(work, group="autotune")
        return None

    def _problem(self, peer: str) -> str | None:
        from tuitune.core.advise.peer import peer_problem

        shell = self.shell
        if shell.selection().ifname is None:
            return "pick an interface first (n): autotune tunes one"
        if shell.session.pending:
            return (
                "changes of yours are pending: undo (u) or revert them (R) first; autotune "
                "puts back everything the journal holds when it stops"
            )
        if self.advice("any") is None:
            return "the advisor has not judged the interface yet: wait a few seconds"
        return peer_problem(peer)

    def _say(self, line: str) -> None:  # the autotune thread
        self.shell.post_message(AutotuneController.News(line=line))

    # -- back on the UI thread ------------------------------------------------------------------
    def on_message(self, news: AutotuneController.News) -> None:
        if news.done:
            self.bench = None
            self.last_lines = news.lines
            for line in news.lines[-1:]:
                self.shell.notify_line(line, line.startswith("autotune stopped"))
            if news.report:  # the report with its chart, as the CLI prints it
                from tuitune.tui.screens.dialogs import TextScreen

                self.shell.push_screen(TextScreen("autotune: the report", news.report))
            return
        line = news.line.strip()
        if line:  # each step and each repeat: the progress
            self.shell.notify_line(f"autotune: {line}")


@dataclass(frozen=True)
class _Job:
    bench: SweepBench
    reader: HostReader
    ifname: str
    peer: str
    run_id: str
    notebook: Path
    in_ns: bool  # a namespace (the lab): nothing to cut, link-level changes are tried
    goal: Goal = THROUGHPUT
    spec: SweepSpec | None = None  # the form's sweep spec: its values are candidates too
    profile: str | None = "auto"  # the form's profile (as --profile), None: no profile
    ssh_iface: str | None = None  # the SSH session's interface: no candidate changes it


def _candidates(
    job: _Job, advised: list[Candidate[Any]], skipped: list[str]
) -> list[Candidate[Any]]:
    """The advisor's, then the form's profile's values scaled to this host (as `tuitune
    autotune --profile NAME|auto`; none with `none`), each setting tried once; at both ends
    where the far end is the lab's (as `--lab`). On the autotune thread: the profile pings
    the peer."""
    from tuitune.core.autotune.host import at_both_ends, profile_candidates
    from tuitune.core.autotune.sources import host_wide, new_keys, scaled_profile

    say = job.bench.runner.say
    session = job.bench.runner.session
    netns = session.root.netns
    cands: list[Candidate[Any]] = list(advised)
    if job.profile is not None:
        prof = scaled_profile(job.reader, job.ifname, netns, job.peer, job.goal.name,
                              job.profile, say)  # fmt: skip
        more, why_not = profile_candidates(session, prof, job.ifname, allow_trial=job.in_ns,
                                           ssh_iface=job.ssh_iface)  # fmt: skip
        skipped += why_not
        cands += new_keys(advised, more)
    if job.spec is not None:  # as `--spec`: each value it names, alone
        from tuitune.core.autotune.sources import spec_candidates

        more, why_not = spec_candidates(session, job.spec, job.ifname, allow_trial=job.in_ns,
                                        ssh_iface=job.ssh_iface)  # fmt: skip
        skipped += why_not
        cands += new_keys(cands, more)
    if netns is not None:  # the screen's session may write the host's sysctls; T never does
        cands, wide = _not_host_wide(cands)
        skipped += wide
    ends = job.bench.runner.ends
    if len(ends) > 1:  # the lab's far end: what both ends must share is set at both
        cands = at_both_ends(cands, ends[1].ifname, host_wide)
        far_ns = ends[1].session.root.netns
        if far_ns is not None:  # and the far end's own findings, judged there (as --lab)
            from tuitune.core.autotune.far import far_end_candidates

            more, why_not = far_end_candidates(far_ns, ends[1].ifname, job.goal.context, cands,
                                               say)  # fmt: skip
            skipped += why_not
            cands += more
    for line in skipped:
        say(f"not tried: {line}")
    say(f"{len(cands)} candidate(s): {', '.join(c.id for c in cands) or 'none'}")
    return cands


def _not_host_wide(cands: list[Candidate[Any]]) -> tuple[list[Candidate[Any]], list[str]]:
    """From a namespace: candidates that change nothing host-wide (a sysctl, the CPU power, a
    module parameter: one value for the whole machine, not the namespace's; the CLI refuses
    them without --host-wide), and why not."""
    from tuitune.core.autotune.sources import host_wide

    keep: list[Candidate[Any]] = []
    said: list[str] = []
    for c in cands:
        wide = [k for k, _ in c.changes if isinstance(k, Key) and host_wide(k)]
        if wide:
            said.append(f"{c.id}: {wide[0].label} is host-wide (the whole machine's, not the "
                        "namespace's): `tuitune autotune --host-wide` tries it")  # fmt: skip
        else:
            keep.append(c)
    return keep, said


def _run(
    job: _Job, advised: list[Candidate[Any]], skipped: list[str]
) -> tuple[tuple[str, ...], str]:
    """The search on the worker thread; every change not kept put back when it stops or
    fails. Its report's chart and last line, for the screen; the report kept beside the
    notebook (as the CLI keeps it), where N names it."""
    from tuitune.core.autotune.host import JournalHost, interacting
    from tuitune.core.autotune.report import chart, to_markdown
    from tuitune.core.autotune.search import AutotuneError, Budget, search
    from tuitune.core.autotune.sources import save_report

    bench = job.bench
    ends = bench.runner.ends
    far = ends[1].session if len(ends) > 1 else None
    # This machine's own link: what can cut it goes on trial (cli/autotune.py says why).
    trial_s = None if job.in_ns else 2 * (REPEATS + 1) * (SECONDS + 1.5) + 30
    jhost = JournalHost(bench.runner.session, far, trial_s)
    budget = Budget(MAX_RUNS, BUDGET_S, SECONDS + 1.5)
    problem = ""
    try:
        with job.reader:
            cands = _candidates(job, advised, skipped)
            with bench.sampling():
                out = search(
                    cands, bench, jhost, REPEATS, budget, say=bench.runner.say,
                    pairs=interacting(cands), higher_better=job.goal.higher_better,
                    goal=job.goal.name,
                )  # fmt: skip
    except KeyboardInterrupt:  # T again, or quit: the runner's cancel
        problem = "by T or quit"
    except AutotuneError as exc:
        problem = f"stopped: {exc}"
    except Exception as exc:  # a traceback is never the user's answer
        problem = f"failed: {exc}"
    if problem:
        left = jhost.revert_all()
        _let_go(far)
        end = f"NOT put back: {left[0]} (`tuitune restore`)" if left else "every change is back"
        return (f"autotune stopped ({problem}): {end}",), ""
    _let_go(far)  # the far end's kept changes stay in its journal for `tuitune restore`
    g = out.final_gain()
    if out.kept and g is not None:
        kept = ", ".join(c.id for c in out.kept)
        undo = "u undoes it"
        if far is not None and any(not isinstance(k, Key) for c in out.kept for k, _ in c.changes):
            undo += f" here, `tuitune restore --netns {far.root.netns}` at the far end"
        last = f"autotune: kept {kept}: {g[0]:+.1f}% ({g[1]:+.1f}..{g[2]:+.1f}%); {undo}"
    else:
        last = f"autotune: nothing kept ({out.note}); the host is as it was"
    report = to_markdown(out, job.ifname, job.peer, job.run_id, skipped, chart_width=12)
    try:
        kept_at = f"report beside the notebook: {save_report(job.notebook, job.run_id, report)}"
    except OSError as exc:
        kept_at = f"report not kept beside the notebook: {exc.strerror or exc}"
    return (*chart(out, width=24), kept_at, last), report


def _let_go(session: Session | None) -> None:
    """The far end's session (the runner opened it): its journal left on disk, closed."""
    if session is not None:
        session.release()
        session.close()
