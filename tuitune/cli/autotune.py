"""Headless `tuitune autotune IFACE --peer HOST`: the advisor's findings tried one by one with
the benchmark as the judge; only what beats the noise is kept (docs/autotune.md).

Exit status: 0 the search finished (kept or not), 1 it was interrupted or stopped by an error
(everything put back), 2 a usage error.
"""

from __future__ import annotations

import argparse
import re
from datetime import datetime
from pathlib import Path

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err, journal_dir_arg
from tuitune.core.autotune.stats import MAX_EXACT
from tuitune.core.text import printable

MAX_RUNS = 500


def _budget(text: str) -> float:
    """`20m`, `90s`, `1h`, or seconds: the wall time the search may take."""
    m = re.fullmatch(r"\s*(\d{1,6})\s*([smh]?)\s*", text)
    if m is None:
        raise argparse.ArgumentTypeError(f"{text[:20]!r}: give a time as 90s, 20m or 1h")
    value = int(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]
    if not 1 <= value <= 7 * 86400:
        raise argparse.ArgumentTypeError(f"{text[:20]!r}: between 1 s and 7 days")
    return float(value)


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "autotune", cmd_autotune)
    _common.iface_arg(p, "the interface (default: the lab's)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--netns", type=_common.netns, metavar="NAME", help="in namespace NAME")
    where.add_argument("--lab", action="store_true", help="on the lab of `tuitune lab`")
    p.add_argument("--peer", metavar="HOST", help="a host where the benchmark's server runs")
    _common.peer_end_args(p, "the peer's end is in namespace NS of this machine")
    p.add_argument("--port", "-p", type=_common.port, metavar="N", help="the server's port")
    p.add_argument(
        "--goal",
        type=_goal,
        default="throughput",
        metavar="throughput|latency",
        help="what is judged: iperf3's Mb/s (higher), or sockperf's median round trip (lower)",
    )
    p.add_argument(
        "--budget", type=_budget, default=1200.0, metavar="TIME", help="wall time (default 20m)"
    )
    _common.count_option(p, "--max-runs", high=MAX_RUNS, default=60, help="runs at most (60)")
    p.add_argument(
        "--repeats",
        type=_repeats,
        default=3,
        metavar="N",
        help=f"runs a step, 2..{MAX_EXACT} (default 3; below 4 the ranges must not overlap)",
    )
    _common.count_option(p, "--seconds", high=3600, default=5, metavar="S", help="seconds a run")
    p.add_argument("--report", type=Path, metavar="FILE", help="also write the report (Markdown)")
    p.add_argument(
        "--host-wide",
        action="store_true",
        help="with --netns or --lab: also try host-wide sysctls (refused without it)",
    )
    p.add_argument(
        "--profile",
        metavar="NAME",
        help="also try a shipped profile's values one at a time, scaled to this host "
        "(`auto`: the one `tuitune recommend` picks, with the round trip pinged to --peer)",
    )
    p.add_argument(
        "--spec",
        type=Path,
        metavar="FILE",
        help="also try each value a sweep spec names, one at a time (docs/sweep.md)",
    )
    p.add_argument("--notebook", type=Path, metavar="FILE", help="the notebook file")
    journal_dir_arg(p)


def _goal(text: str) -> str:
    """The goal as the live screen's T form reads it too (core/autotune/goal.py)."""
    from tuitune.core.autotune.goal import parse_goal

    try:
        return parse_goal(text).name
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _repeats(text: str) -> int:
    t = text.strip()
    if not (t.isascii() and t.isdigit()) or not 2 <= int(t) <= MAX_EXACT:
        raise argparse.ArgumentTypeError(f"{t[:20]!r}: give 2..{MAX_EXACT}")
    return int(t)


def cmd_autotune(args: argparse.Namespace) -> int:
    """try the advisor's changes one by one, judged by the benchmark; keep what beats the noise

    A baseline measured --repeats times; then each finding's change alone, applied through the
    change journal, measured, put back, and judged against the baseline (a one-sided
    Mann-Whitney U test); then the kept changes together, measured again. Ctrl+C, SIGTERM and
    SIGHUP put everything back. At the end the journal holds what was kept: `tuitune restore`
    puts it back. docs/autotune.md.
    """
    from tuitune.cli.advise import sample_facts
    from tuitune.cli.sweep import bench_where, notebook_and_session, say, sigterm_interrupts
    from tuitune.core.advise import Context, advise
    from tuitune.core.autotune.goal import parse_goal
    from tuitune.core.autotune.host import (
        JournalHost,
        SweepBench,
        at_both_ends,
        candidates_of,
        interacting,
        profile_candidates,
    )
    from tuitune.core.autotune.report import to_markdown
    from tuitune.core.autotune.search import AutotuneError, Budget, search
    from tuitune.core.autotune.sources import (
        host_wide,
        new_keys,
        save_report,
        scaled_profile,
        spec_candidates,
    )
    from tuitune.core.sweep.runner import Target, signals_held
    from tuitune.core.sweep.spec import BenchParams
    from tuitune.core.watch.hostreader import UnknownInterface

    where = bench_where(args)
    if isinstance(where, str):
        err(where)
        return EXIT_USAGE
    ifname, netns, port, peer, hint = where
    assert peer is not None
    opened = _common.reader_on(netns, ifname, "the runs go through (tuitune autotune IFACE)")
    if opened is None:
        return EXIT_USAGE
    reader, ifname = opened
    goal = parse_goal(args.goal)
    port = goal.port(args.port, getattr(args, "lab_found", None) is not None) or port
    with reader:
        opened_state = notebook_and_session(args, reader, ifname, netns)
        if opened_state is None:
            return EXIT_USAGE
        notebook, session = opened_state
        if session.leftover():
            err("an earlier tuitune left settings recorded: `tuitune restore` first")
            return EXIT_FAILED
        try:
            sampled = sample_facts(reader, ifname, 3)
        except UnknownInterface as exc:
            err(str(exc))
            return EXIT_USAGE
        context = Context(goal.context)
        advice = advise(sampled.facts(context))
        in_lab = netns is not None  # not the machine's own link: nothing to cut
        ssh = None if in_lab else _ssh_interface()
        candidates, skipped = candidates_of(advice.findings, allow_trial=in_lab, ssh_iface=ssh)
        if args.profile is not None:
            try:
                prof = scaled_profile(reader, ifname, netns, peer, args.goal, args.profile, say)
            except KeyError as exc:
                err(str(exc.args[0]))
                session.close()
                return EXIT_USAGE
            more, why_not = profile_candidates(
                session, prof, ifname, allow_trial=in_lab, ssh_iface=ssh
            )
            skipped += why_not
            candidates += new_keys(candidates, more)
        if args.spec is not None:
            from tuitune.core.sweep.spec import SpecError, load

            try:
                spec = load(args.spec)
            except SpecError as exc:
                err(str(exc))
                session.close()
                return EXIT_USAGE
            more, why_not = spec_candidates(
                session, spec, ifname, allow_trial=in_lab, ssh_iface=ssh
            )
            skipped += why_not
            candidates += new_keys(candidates, more)
        lab = getattr(args, "lab_found", None)
        target = Target(ifname, peer, port, netns, hint, args.peer_netns, args.peer_iface, lab)
        stamp = datetime.now().strftime("%Y%m%d%H%M%S")
        run_id = f"autotune-{stamp}"
        bench = BenchParams(seconds=args.seconds, engine=goal.engine)
        sb = SweepBench(session, reader, target, notebook, bench, run_id, args.goal, say)
        # Its samples and each run's window beside the notebook, as a sweep keeps them: the
        # report's runs replay (`tuitune replay`, `advise --recording` over a run's window).
        from tuitune.cli.sweep import start_recording

        start_recording(sb.runner, notebook, reader, ifname, netns, "autotune")
        far = sb.runner.ends[1] if len(sb.runner.ends) > 1 else None
        # This machine's own link: what can cut it goes on trial, its watchdog given room for
        # a candidate's warm-up and runs twice over.
        trial_s = (
            None if in_lab else min(3600.0, 2 * (args.repeats + 1) * (args.seconds + 1.5) + 30)
        )
        jhost = JournalHost(session, far.session if far is not None else None, trial_s)
        if far is not None:  # the lab's far end: what both ends must share is set at both
            candidates = at_both_ends(candidates, far.ifname, host_wide)
            far_ns = far.session.root.netns
            if far_ns is not None:  # and the far end's own findings, judged there
                from tuitune.core.autotune.far import far_end_candidates

                more, why_not = far_end_candidates(
                    far_ns, far.ifname, goal.context, candidates, say
                )
                skipped += why_not
                candidates += more
        pairs = interacting(candidates)
        for line in skipped:
            say(f"not tried: {line}")
        say(f"{len(candidates)} candidate(s): {', '.join(c.id for c in candidates) or 'none'}")
        for a, b in pairs:
            say(f"{a} x {b}: may interact, measured together too (a 2x2 factorial)")
        budget = Budget(args.max_runs, args.budget, args.seconds + 1.5)
        outcome = None
        problem = ""
        try:
            with sigterm_interrupts(), sb.sampling():
                outcome = search(
                    candidates,
                    sb,
                    jhost,
                    args.repeats,
                    budget,
                    higher_better=goal.higher_better,
                    goal=args.goal,
                    say=say,
                    pairs=pairs,
                )
        except KeyboardInterrupt:
            problem = "interrupted"
        except AutotuneError as exc:
            problem = f"stopped: {exc}"
        finally:
            if outcome is None:  # an interruption or an error: everything back
                with signals_held():  # a second Ctrl+C must not cut it short
                    left = jhost.revert_all()
                say(f"{problem or 'stopped'}: every change put back")
                for line in left:
                    say(f"NOT put back {line}")
            for s in (session, jhost.peer):  # the kept set stays recorded for `tuitune restore`
                if s is not None:
                    s.release()
                    s.close()
            if sb.runner.recorder is not None:
                sb.runner.recorder.close()
                say(f"recording: {printable(sb.runner.recording_path)}")
        if outcome is None:
            return EXIT_FAILED
        flag = _flag(netns)
        if far is not None:
            flag += f"` and `tuitune restore{_flag(args.peer_netns)}"
        text = to_markdown(outcome, ifname, peer, run_id, skipped, flag)
        print(text, end="")
        try:  # kept with its runs: `tuitune runs` and N name it
            say(f"report kept beside the notebook: {save_report(notebook.path, run_id, text)}")
        except OSError as exc:
            err(f"report not kept beside the notebook: {exc}")
        if args.report is not None:
            from tuitune.core import fsutil

            try:
                fsutil.write_file(args.report, text.encode("utf-8"), 0o644, follow=True)
            except OSError as exc:
                err(f"report not written: {exc}")
                return EXIT_FAILED
        return EXIT_OK


def _ssh_interface() -> str | None:
    """The interface of this process's SSH session (the machine's routing table), whose
    changes autotune never tries unattended: the issue allows them only on trial."""
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session.risk import ssh_interface

    return ssh_interface(HostRoot())


def _flag(netns: str | None) -> str:
    return f" --netns {netns}" if netns else ""
