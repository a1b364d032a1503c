"""BENCHMARKS.md's "where the start-up time goes" (issue 18, goal 2), from what
bench_timeline.py printed with --json. Every figure comes from that output."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.writer import _f, spread, table

IMPORTS = ("import textual.app", "import tuitune.tui.app (rest)")


def _med(runs: Sequence[Mapping[str, Mapping[str, float]]], phase: str, key: str) -> float:
    return statistics.median(float(r[phase][key]) for r in runs)


def timeline_section(tl: Mapping[str, Any] | None, error: str | None = None) -> str:
    if tl is None:
        return "Not measured in this run" + (f" ({error.strip()})." if error else ".")
    runs: Mapping[str, list[Mapping[str, Mapping[str, float]]]] = tl["runs"]
    label, mine = next(iter(runs.items()))
    if not mine:
        return "bench_timeline.py gave no launches."
    phases = list(mine[0])
    rows = []
    for phase in phases:
        med, rng = spread([float(r[phase]["wall_s"]) for r in mine], 3)
        cpu = _f(_med(mine, phase, "cpu_s"), 3)
        rows.append([phase, med, rng, cpu])
    total = _med(mine, "total", "wall_s")
    imports = sum(_med(mine, p, "wall_s") for p in IMPORTS if p in mine[0])
    imports_cpu = sum(_med(mine, p, "cpu_s") for p in IMPORTS if p in mine[0])
    biggest = max((p for p in phases if p != "total"), key=lambda p: _med(mine, p, "wall_s"))
    w = tl["window"]
    out = [
        f"`benchmarks/bench_timeline.py` ({tl['iface']}, --interval 1, {len(mine)} launches "
        "after a warm-up, in a fresh 200x60 tmux session each; the same mark on screen as above). "
        "Each phase starts where the one before ended; CPU is the process's, all threads.",
        "",
        table(["phase", "median s", "range s", "CPU s (median)"], rows),
        "",
        f"Load average during the launches (start / end): {w['load_start']} / {w['load_end']} "
        f"(busy CPUs {_f(float(w['busy_cpus']))}).",
        f"Imports take {_f(imports)} s of the {_f(total)} s ({_f(100 * imports / total, 0)} %; "
        f"{_f(imports_cpu)} CPU s); the largest single phase is {biggest}.",
    ]
    others = [(lb, rs) for lb, rs in runs.items() if lb != label and rs]
    for lb, rs in others:
        t = _med(rs, "total", "wall_s")
        out.append(
            f"Launched alternately with `{lb}`: its median {_f(t)} s against {_f(total)} s here."
        )
    return "\n".join(out)
