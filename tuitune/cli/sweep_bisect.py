"""`tuitune sweep --bisect GOOD BAD`: which of the settings that differ between two runs of
the notebook explain their difference (core/sweep/bisect.py). Each test is a one-cell sweep
of the good run's values with some of the bad run's: applied through the journal, measured,
recorded, put back."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err

Say = Callable[[str], None]


def _value(kind: str | None, text: str) -> str:
    """A recorded value as a value to write: a feature's "off [requested on]" -> "off"; a
    sysctl's "4096 87380 8388608" stays whole."""
    return text.split(" ", 1)[0] if kind == "feature" else text


def run(
    args: argparse.Namespace, session: Any, reader: Any, target: Any, notebook: Any, say: Say
) -> int:
    from tuitune.core.bench import settings as st
    from tuitune.core.sweep.bisect import bisect, explain
    from tuitune.core.sweep.runner import SweepError, SweepRunner, sweep_runs
    from tuitune.core.sweep.spec import (
        BenchParams,
        Dimension,
        SpecError,
        SweepSpec,
        Value,
        setting_of,
    )
    from tuitune.core.sweep.stats import Summary, summarize

    good_id, bad_id = args.bisect
    good, bad = notebook.find(good_id), notebook.find(bad_id)
    for rid, found in ((good_id, good), (bad_id, bad)):
        if found is None:
            err(f"no run {rid} in {notebook.path}")
            return EXIT_USAGE
    test_a, test_b = replace(good.spec, repeats=1), replace(bad.spec, repeats=1)
    if test_a != test_b:
        err(f"runs {good_id} and {bad_id} ran different tests: a bisect compares settings only")
        return EXIT_USAGE
    names: list[str] = []
    settings: dict[str, tuple[Any, str, str]] = {}
    for name, bad_text in st.diff(good.settings, bad.settings):
        good_text = good.settings.get(name)
        if name.startswith("peer ") or good_text is None or bad_text == st.GONE:
            say(f"not tried: {name} (not a setting a sweep sets here)")
            continue
        try:
            setting = setting_of(name, "run")
        except SpecError:
            say(f"not tried: {name} (not a setting a sweep sets)")
            continue
        names.append(name)
        kind = setting.kind
        settings[name] = (setting, _value(kind, good_text), _value(kind, bad_text))
    if not names:
        err(f"runs {good_id} and {bad_id} differ in no setting a sweep can change")
        return EXIT_USAGE
    spec0 = good.spec
    bench = BenchParams(spec0.duration, spec0.streams, spec0.direction, spec0.length)
    repeats = args.repeats or 3

    def measure(bad_names: Sequence[str]) -> Summary | None:
        chosen = tuple(
            (settings[n][0], settings[n][2] if n in bad_names else settings[n][1]) for n in names
        )
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
