"""`tuitune sweep --bisect GOOD BAD`: which of the settings that differ between two runs of
the notebook, or two profiles, explain their difference (core/sweep/bisect.py). Each test is
a one-cell sweep of the good values with some of the bad ones: applied through the journal,
measured, recorded, put back."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err

Say = Callable[[str], None]


def run(
    args: argparse.Namespace, session: Any, reader: Any, target: Any, notebook: Any, say: Say
) -> int:
    from tuitune.core.sweep.bisect import bisect, explain
    from tuitune.core.sweep.runner import SweepError, SweepRunner, sweep_runs
    from tuitune.core.sweep.spec import (
        Dimension,
        SweepSpec,
        Value,
    )
    from tuitune.core.sweep.stats import Summary, summarize

    good_id, bad_id = args.bisect
    got = _states(args, notebook, session)
    if isinstance(got, str):
        err(got)
        return EXIT_USAGE
    states, bench = got
    for line in states.not_tried:
        say(f"not tried: {line}")
    names = states.names
    settings = states.values
    if not names:
        err(f"{good_id} and {bad_id} differ in no setting a sweep can change")
        return EXIT_USAGE
    repeats = args.repeats or 3

    def measure(bad_names: Sequence[str]) -> Summary | None:
        picked = ((settings[n][0], settings[n][2 if n in bad_names else 1]) for n in names)
        chosen = tuple((s, v) for s, v in picked if v is not None)  # None: as found here
        label = "bad: " + (", ".join(bad_names) or "none")
        value = Value(label[:40], chosen)
        spec = SweepSpec(
            "bisect",
            "grid",
            (Dimension("step", (value,)),),
            None,
            repeats,
            bench,
            f"bisect {good_id} {bad_id}",
            warmup=False,
        )
        say(f"-- trying the bad value of: {', '.join(bad_names) or 'nothing (the good run)'}")
        out = SweepRunner(spec, session, reader, target, notebook, say=say).run()
        if out.problems or out.interrupted or out.error:
            raise SweepError(out.error or "; ".join(out.problems) or "interrupted")
        runs = sweep_runs(notebook, out.sweep_id)
        return summarize([r.result.throughput_bps or 0.0 for r in runs if r.result.complete])

    try:
        result = bisect(names, measure)
    except (SweepError, ValueError) as exc:
        err(f"bisect stopped: {exc}")
        return EXIT_FAILED
    print(f"bisect {good_id} -> {bad_id}: {len(names)} differing setting(s), {repeats} repeat(s)")
    for subset, found, verdict in result.steps:
        mb = "-" if found is None else f"{found.median / 1e6:.0f} Mb/s"
        print(f"  bad {', '.join(subset) or '-'}: {mb} {'(bad)' if verdict else '(good)'}")
    print(explain(result, len(names)))
    return EXIT_OK


def _states(args: argparse.Namespace, notebook: Any, session: Any) -> tuple[Any, Any] | str:
    """(States, BenchParams) of two runs, or of two profiles (both GOOD and BAD files), or
    why not (one line)."""
    from pathlib import Path

    from tuitune.core.session.profile_model import ProfileError
    from tuitune.core.sweep.bisect_states import from_runs, load_profiles
    from tuitune.core.sweep.spec import BenchParams

    good_id, bad_id = args.bisect
    if Path(good_id).is_file() and Path(bad_id).is_file():
        try:
            states = load_profiles(Path(good_id), Path(bad_id), session.root.netns)
        except ProfileError as exc:
            return str(exc)
        return states, BenchParams(seconds=args.seconds or 10)
    good, bad = notebook.find(good_id), notebook.find(bad_id)
    for rid, run in ((good_id, good), (bad_id, bad)):
        if run is None:
            return f"no run {rid} in {notebook.path} (nor two profile files)"
    test_a, test_b = replace(good.spec, repeats=1), replace(bad.spec, repeats=1)
    if test_a != test_b:
        return f"runs {good_id} and {bad_id} ran different tests: a bisect compares settings only"
    spec0 = good.spec
    bench = BenchParams(spec0.duration, spec0.streams, spec0.direction, spec0.length)
    return from_runs(good.settings, bad.settings), bench
