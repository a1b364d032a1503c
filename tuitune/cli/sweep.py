"""Headless `tuitune sweep SPEC.toml`: a report's table measured unattended (docs/sweep.md).

Each combination of the spec's settings is applied through the change journal as one step,
measured with iperf3 `repeats` times, recorded in the notebook, and undone before the next;
at the end (and after Ctrl+C or SIGTERM) every original is put back. Progress goes to stderr,
the table to stdout (text, --markdown, --csv or --json).

Exit status: 0 every cell measured and the host restored, 1 a cell failed or was refused, the
sweep was interrupted, or an original could not be put back, 2 a usage error (a bad spec, an
unknown interface, no peer).
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import signal
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err, journal_dir_arg
from tuitune.core.bench.limits import MAX_DURATION, MAX_REPEATS
from tuitune.core.text import printable


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "sweep", cmd_sweep)
    p.add_argument("spec", type=Path, nargs="?", help="the sweep spec (TOML)")
    _common.iface_arg(p, "the interface (default: lab)")
    p.add_argument(
        "--bisect",
        nargs=2,
        metavar=("GOOD", "BAD"),
        help="instead of a spec: which settings that differ between runs GOOD and BAD of the "
        "notebook (or two profile files) explain their difference (the first positional is "
        "then the interface)",
    )
    where = p.add_mutually_exclusive_group()
    where.add_argument("--netns", type=_common.netns, metavar="NAME", help="in namespace NAME")
    where.add_argument("--lab", action="store_true", help="on the lab of `tuitune lab`")
    p.add_argument("--peer", metavar="ADDR", help="a host where `iperf3 -s` runs")
    _common.peer_end_args(
        p,
        "the peer's end is in namespace NS of this machine: settings marked `both` "
        "(the MTU) are set there too, and its settings are recorded with each run "
        "(--lab does this by itself)",
    )
    p.add_argument(
        "--host-wide",
        action="store_true",
        help="in a namespace: also change the spec's host-wide sysctls (net.core.*), which are "
        "one value for the whole machine (refused without it; put back at the end)",
    )
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="check the spec on this host and print the cells in order; change nothing",
    )
    p.add_argument("--port", "-p", type=_common.port, metavar="N", help="the server's port")
    _common.count_option(p, "--repeats", high=MAX_REPEATS, help="runs a cell (the spec's)")
    _common.count_option(p, "--seconds", high=MAX_DURATION, metavar="S", help="seconds a run")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--markdown", action="store_true", help="print Markdown")
    fmt.add_argument("--csv", action="store_true", help="print CSV (one line a cell)")
    fmt.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--resume",
        action="store_true",
        help="continue the last sweep of this spec: skip the cells the notebook already holds",
    )
    p.add_argument(
        "--seed",
        type=_seed,
        metavar="N",
        help="the shuffle's seed (the table's header names the one a sweep used): the same "
        "order again",
    )
    p.add_argument(
        "--order",
        choices=("shuffle", "snake"),
        help="shuffle (the default: drift spreads over every dimension) or snake (neighbouring "
        "cells one value apart)",
    )
    p.add_argument(
        "--svg",
        type=Path,
        metavar="FILE",
        help="also write the pivot as a chart (bars with the repeats' range) to FILE",
    )
    p.add_argument("--notebook", type=Path, metavar="FILE", help="the notebook file")
    journal_dir_arg(p)


def _seed(text: str) -> int:
    from tuitune.core.sweep.spec import MAX_SEED

    t = text.strip()
    if not (t.isascii() and t.isdigit() and len(t) <= 10) or int(t) > MAX_SEED:
        raise argparse.ArgumentTypeError(f"{t[:20]!r} is not a whole number 0..{MAX_SEED}")
    return int(t)


def say(text: str) -> None:
    # After a lost SSH session the terminal is gone: progress is lost, the restore is not.
    with contextlib.suppress(OSError):
        print(text, file=sys.stderr, flush=True)


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """SIGTERM (a kill) and SIGHUP (a lost SSH session, a closed terminal) end the sweep like
    Ctrl+C: iperf3 stopped and every original put back before tuitune exits."""

    def handler(signum: int, frame: FrameType | None) -> None:
        del signum, frame
        raise KeyboardInterrupt

    old = {sig: signal.signal(sig, handler) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for sig, was in old.items():
            signal.signal(sig, was)


def bench_where(
    args: argparse.Namespace,
) -> tuple[str | None, str | None, int, str | None, Any] | str:
    """(ifname, netns, port, peer, lab), or why not. Sets args.peer_netns/peer_iface from
    the lab."""
    from tuitune.cli.bench_defaults import current_lab, lab_hint
    from tuitune.core.bench.model import DEFAULT_PORT

    ifname, netns, peer = args.iface, args.netns, args.peer
    lab = None
    if args.lab or peer is None:
        found = current_lab()
        if found is None and args.lab:
            return "no lab: build it first with `tuitune lab --no-tui`"
        if found is not None and netns in (None, found.netns):
            lab = found
            netns, ifname = found.netns, ifname or found.ifname
            peer = peer or found.peer_addr
            if args.peer_netns is None:
                args.peer_netns, args.peer_iface = found.peer_netns, found.peer_ifname
    if (problem := _common.peer_end_problem(args)) is not None:
        return problem
    if peer is None:
        return "no peer: give --peer ADDR (a host running `iperf3 -s`), or build the lab"
    port = args.port or (lab.port if lab is not None else DEFAULT_PORT)
    args.lab_found = lab  # its servers for stream processes and other engines
    return ifname, netns, port, peer, (lab_hint(lab) if lab is not None else None)


def notebook_and_session(
    args: argparse.Namespace, reader: Any, ifname: str, netns: str | None
) -> tuple[Any, Any] | None:
    """The notebook the runs go to (checked writable) and the Session whose journal puts
    every change back, as `sweep` and `autotune` open them; None (said) when the notebook
    cannot be written."""
    from tuitune.core.bench.notebook import Notebook
    from tuitune.core.session import Session

    notebook = Notebook(args.notebook or Notebook.default_path(ifname, netns=netns))
    try:
        notebook.check(write=True)
    except OSError as exc:
        err(f"notebook: {exc}")
        return None
    session = Session(
        reader.root,
        journal_dir=args.journal_dir,
        call=reader.call,
        handles=reader.handles,
        host_writes=args.host_wide,
    )
    return notebook, session


def cmd_sweep(args: argparse.Namespace) -> int:
    """measure every combination of a spec's settings (a report's table) unattended

    Apply each combination of the settings SPEC names through the change journal, run iperf3
    on it, record the runs in the notebook, and print the table. Everything is put back at the
    end, also after Ctrl+C. Spec format: docs/sweep.md; examples: docs/sweeps/.
    """
    from tuitune.core.sweep import spec as specfile
    from tuitune.core.sweep.runner import SweepRunner, Target

    if args.bisect:
        if args.iface is not None:
            err("with --bisect, name only the interface (no spec)")
            return EXIT_USAGE
        if args.spec is not None:
            try:
                args.iface = _common.ifname(str(args.spec))
            except argparse.ArgumentTypeError as exc:
                err(str(exc))
                return EXIT_USAGE
        spec = None
    elif args.spec is None:
        err("name a spec (docs/sweeps/ has examples), or --bisect GOOD BAD")
        return EXIT_USAGE
    else:
        try:
            spec = specfile.load(args.spec)
        except specfile.SpecError as exc:
            err(str(exc))
            return EXIT_USAGE
    if spec is not None and args.repeats is not None:
        spec = replace(spec, repeats=args.repeats)
    if spec is not None and args.seed is not None:
        spec = replace(spec, seed=args.seed)
    if spec is not None and args.order is not None:
        spec = replace(spec, order=args.order)
    if spec is not None and args.seconds is not None:
        spec = replace(spec, bench=replace(spec.bench, seconds=args.seconds))
    where = bench_where(args)
    if isinstance(where, str):
        err(where)
        return EXIT_USAGE
    ifname, netns, port, peer, hint = where
    assert peer is not None
    opened = _common.reader_on(netns, ifname, "the runs go through (tuitune sweep SPEC IFACE)")
    if opened is None:
        return EXIT_USAGE
    reader, ifname = opened
    with reader:
        opened_state = notebook_and_session(args, reader, ifname, netns)
        if opened_state is None:
            return EXIT_USAGE
        notebook, session = opened_state
        lab = getattr(args, "lab_found", None)
        target = Target(ifname, peer, port, netns, hint, args.peer_netns, args.peer_iface, lab)
        if spec is None:
            from tuitune.cli import sweep_bisect

            with session, sigterm_interrupts():
                return sweep_bisect.run(args, session, reader, target, notebook, say)
        runner = SweepRunner(spec, session, reader, target, notebook, say=say)
        if not args.dry_run:
            start_recording(runner, notebook, reader, ifname, netns, "sweep")
        try:
            with session, sigterm_interrupts():
                return _run(args, runner, notebook)
        finally:
            if runner.recorder is not None:
                runner.recorder.close()
                say(f"recording: {printable(runner.recording_path)}")


def start_recording(
    runner: Any, notebook: Any, reader: Any, ifname: str, netns: str | None, what: str
) -> None:
    """A sweep's (or autotune's: `what`) recording beside its notebook, as a headless bench
    keeps one; without it (one line said) the runs go on."""
    import os
    import time

    from tuitune.cli.record import live_recorder

    book: Path = notebook.path
    path = book.with_name(f"{book.stem}-{what}-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.rec")
    rec = live_recorder(path, reader, ifname, netns, 1.0)
    if rec is None:
        err(f"the {what} goes on without a recording")
        return
    runner.recorder, runner.recording_path = rec, str(path)


def _run(args: argparse.Namespace, runner: Any, notebook: Any) -> int:
    from tuitune.core.sweep import pivot
    from tuitune.core.sweep.runner import SweepError, sweep_runs

    try:
        if args.dry_run:
            return _dry_run(runner)
        out = runner.run(resume=args.resume)
    except SweepError as exc:  # before the first write: nothing changed
        err(str(exc))
        return EXIT_FAILED
    except KeyboardInterrupt:  # while checking the spec: before the first write
        err("interrupted before anything was changed")
        return EXIT_FAILED
    table = pivot.build(runner.spec, out.sweep_id, sweep_runs(notebook, out.sweep_id))
    if args.markdown:
        sys.stdout.write(pivot.to_markdown(table))
    elif args.csv:
        sys.stdout.write(pivot.to_csv(table))
    elif args.json:
        sys.stdout.write(pivot.to_json(table))
    else:
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        sys.stdout.write(pivot.to_text(table, width))
    svg_failed = args.svg is not None and not _write_svg(args.svg, table)
    failed = [c for c in out.cells if c.error]
    for cell in failed:
        say(f"cell {cell.combo.label}: {cell.error}")
    if out.problems:
        for line in out.problems:
            say(f"NOT put back {line}")
        say("`tuitune restore` puts back what the journal still holds")
    else:
        say(f"every original is back; runs in {notebook.path} (sweep {out.sweep_id})")
    if out.interrupted or out.error:
        say("the sweep did not finish: `tuitune sweep --resume` continues it")
    bad = failed or out.problems or out.interrupted or out.error or svg_failed
    return EXIT_FAILED if bad else EXIT_OK


def _write_svg(path: Path, table: Any) -> bool:
    """The chart to `path` (never through another user's link); a failure is one line."""
    from tuitune.core import fsutil
    from tuitune.core.sweep.svg import to_svg

    try:
        fsutil.write_file(path, to_svg(table).encode("utf-8"), 0o644, follow=True)
    except OSError as exc:
        err(f"chart not written: {exc}")
        return False
    say(f"chart written to {path}")
    return True


def _dry_run(runner: Any) -> int:
    """The cells in the order they would be measured, each with what it would change."""
    changes = runner.plan()
    spec = runner.spec
    b = spec.bench
    print(
        f"{len(runner.combos)} cell(s) x {spec.repeats} repeat(s) x {b.seconds} s "
        f"(about {len(runner.combos) * spec.repeats * (b.seconds + 2) // 60 + 1} min), "
        + (f"order shuffled, seed {runner.seed}" if spec.order == "shuffle" else "order snake")
    )
    for i, (combo, per_end) in enumerate(zip(runner.combos, changes, strict=True), 1):
        print(f"[{i}] {combo.label}")
        for end, pairs in zip(runner.ends, per_end, strict=True):
            for key, value in pairs:
                print(f"    {end.name + ' ' if end.name else ''}{key.label} = {value}")
    print("nothing was changed (--dry-run)")
    return EXIT_OK
