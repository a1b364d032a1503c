"""BENCHMARKS.md's sections on the big host's tick (issue 18, goal 1), from what
bench_irqfiles.py printed: its --json on the 1152-CPU capture, and its --kernel text from
the VM bench's guest (benchmarks/run.py --vm). Figures only from those outputs."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.writer import spread, table

VM_COMMAND = "`.venv/bin/python -m benchmarks.run --vm`"


def _med(runs: Sequence[Mapping[str, float]], key: str) -> float:
    return statistics.median(float(r[key]) for r in runs)


def _cell(runs: Sequence[Mapping[str, float]], key: str, digits: int = 1) -> str:
    med, rng = spread([float(r[key]) for r in runs], digits)
    return med if rng == "one run" else f"{med} ({rng})"


def _times(n: int) -> str:
    return "once" if n == 1 else f"{n} times, alternately"


def _loaded(data: Mapping[str, Any]) -> str:
    """A warning when the machine was busier than its CPUs: CPU times inflate with contention."""
    cpus = int(data.get("machine_cpus", 0))
    loads = [float(x) for x in f"{data['load_before']} {data['load_after']}".split()[::3]]
    if cpus and max(loads) > cpus:
        return (
            f" The load average ({max(loads):g}) was above this machine's {cpus} CPUs: the CPU"
            " times are inflated by contention; regenerate on a quiet machine before citing them."
        )
    return ""


def _met(ok: bool) -> str:
    return "**met**" if ok else "**not met**"


def _bytes_by_file(old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]]) -> list[str]:
    """Where a tick's bytes go: the old path's tick against the new one's between whole reads,
    per file (median over runs of each run's median). Empty for a --json without them."""
    was = [r["kb_by_file"]["whole"] for r in old if "kb_by_file" in r]
    now = [r["kb_by_file"]["partial"] for r in new if "kb_by_file" in r]
    if not was or not now:
        return []
    groups = sorted({g for runs in (was, now) for r in runs for g in r})

    def kb(runs: list[Mapping[str, float]], group: str) -> float:
        return statistics.median(float(r.get(group, 0.0)) for r in runs)

    rows = [[f"`{g}`", f"{kb(was, g):.1f}", f"{kb(now, g):.1f}"] for g in groups]
    rows.append(
        [
            "all files",
            f"{sum(kb(was, g) for g in groups):.1f}",
            f"{sum(kb(now, g) for g in groups):.1f}",
        ]
    )
    return [
        "",
        "Where a tick's bytes go (KB read, median):",
        "",
        table(["file", "old tick", "new tick between whole reads"], rows),
    ]


def _cpu_by_part(parts: Mapping[str, Any] | None, typical: float, goal: float) -> list[str]:
    """Where a tick's CPU goes, from one more run with timers around its parts; when the
    typical tick misses the goal, the sentence names the largest parts (the measured cause).
    Empty for a --json without them."""
    if not parts:
        return []
    by_part: Mapping[str, float] = parts["parts_ms"]
    total = float(parts["total_ms"])
    rest = max(0.0, total - sum(by_part.values()))
    rows = [[p, f"{ms:.2f}"] for p, ms in sorted(by_part.items(), key=lambda kv: -kv[1])]
    rows.append(["the rest: the sampler's loop, other reads, the thread hand-offs", f"{rest:.2f}"])
    rows.append(["a tick, all of it (this run)", f"{total:.2f}"])
    top = sorted(by_part.items(), key=lambda kv: -kv[1])[:3]
    named = ", ".join(f"{p} {ms:.1f} ms" for p, ms in top)
    if typical <= goal:
        why = f"The largest parts: {named}."
    else:
        why = (
            f"The typical tick ({typical:.1f} ms) misses the {goal:g} ms goal by"
            f" {typical - goal:.1f} ms. What is left is per CPU, 1152 times over, and already"
            " converts only the cells that moved (docs/sampling.md); the largest parts:"
            f" {named}."
        )
    return [
        "",
        f"Where a tick's CPU goes (ms per tick, median over {parts['ticks']} ticks between "
        "whole reads, in one more run of the new path with timers around each part "
        "(benchmarks/_tick_parts.py); the timers add their own small cost):",
        "",
        table(["part", "CPU ms"], rows),
        "",
        why,
    ]


def _whole_path_goal(old: Sequence[Mapping[str, Any]], goal: Mapping[str, Any]) -> list[str]:
    """Issue 38: the same goal on the whole-table path (`--root` trees, the all-IRQs view,
    a kernel without the per-IRQ files read the whole table every tick)."""
    typical, worst = _med(old, "typical_ms"), _med(old, "worst_ms")
    return [
        "",
        f"The whole-table path against the same goal: typical <= {goal['typical_ms']:g} ms:"
        f" {_met(typical <= goal['typical_ms'])} ({typical:.1f}); worst <="
        f" {goal['worst_ms']:g} ms: {_met(worst <= goal['worst_ms'])} ({worst:.1f}).",
    ]


def _host_tick(
    old: Sequence[Mapping[str, Any]], new: Sequence[Mapping[str, Any]], goal: float
) -> list[str]:
    """The worst tick that also read the host state (sysctls, topology, the irqbalance scan),
    each path; nothing when the runs had no such tick (older results, or fewer ticks)."""
    said = []
    for name, runs in (("per-IRQ files", new), ("whole table", old)):
        xs = [float(r["host_worst_ms"]) for r in runs if r.get("host_worst_ms") is not None]
        if xs:
            said.append(f"{name} {max(xs):.1f} ms ({_met(max(xs) <= goal)})")
    if not said:
        return []
    return [
        "",
        "The tick that also read the host state (once every 30 ticks live), its worst over"
        f" the runs against the {goal:g} ms worst: " + "; ".join(said) + ".",
    ]


def irqfiles_section(data: Mapping[str, Any]) -> str:
    host = data["host"]
    runs: Mapping[str, list[Mapping[str, float]]] = data["runs"]
    goal = data["goal"]
    old, new = runs["old"], runs["new"]
    every = data["full_every"]
    rows = []
    for name, label in (
        ("old", "old: the whole /proc/interrupts every tick"),
        ("new", f"new: the NIC's per_cpu_count files, the whole table every {every} ticks"),
    ):
        r = runs[name]
        rows.append(
            [
                label,
                _cell(r, "typical_ms"),
                _cell(r, "worst_ms"),
                _cell(r, "proc_cpu_ms_per_tick"),
                _cell(r, "kb_per_tick"),
                _cell(r, "files_per_tick", 0),
            ]
        )
    typical, worst = _med(new, "typical_ms"), _med(new, "worst_ms")
    ratio = _med(old, "kb_per_tick") / max(_med(new, "kb_per_tick"), 1e-9)
    lines = [
        f"`benchmarks/bench_irqfiles.py --json`: the 1152-CPU host of "
        f"tests/support/fixture_big.py ({host['irq_rows']} IRQ rows, /proc/interrupts "
        f"{host['interrupts_mb']} MB), {new[0]['ticks']:.0f} ticks after the first, each path "
        f"run {_times(int(data['repeats']))} (median, and the range over runs). A tick's "
        "CPU time is the process's, both sampler threads, from the request to the delivery; "
        '"process CPU/tick" is os.times() over the whole run divided by its ticks, a check. '
        f"Load average {data['load_before']} before, {data['load_after']} after.",
        "",
        table(
            [
                "path",
                "typical CPU ms",
                "worst CPU ms",
                "process CPU/tick ms",
                "KB read/tick",
                "files/tick",
            ],
            rows,
        ),
        "",
        f"Goal: typical <= {goal['typical_ms']:g} ms:"
        f" {_met(typical <= goal['typical_ms'])} ({typical:.1f}); worst <="
        f" {goal['worst_ms']:g} ms: {_met(worst <= goal['worst_ms'])}"
        f" ({worst:.1f}); bytes per tick cut >= {goal['bytes_ratio']:g}x:"
        f" {_met(ratio >= goal['bytes_ratio'])} ({ratio:.1f}x on this {host['irq_rows']}-row"
        " table; a real 1152-CPU host's has about 1000 rows: `--rows 1000`)." + _loaded(data),
        *_whole_path_goal(old, goal),
        *_host_tick(old, new, float(goal["worst_ms"])),
        *_bytes_by_file(old, new),
        *_cpu_by_part(data.get("parts"), typical, float(goal["typical_ms"])),
        "",
        "Machine of this run:",
        "",
        *data["machine"],
    ]
    return "\n".join(lines)


def kernel_section(text: str | None, error: str | None) -> str:
    if text is None:
        why = f" ({error.strip()})" if error else ""
        return (
            f"Not measured in this run{why}. {VM_COMMAND} boots the VM bench's guest with 32 "
            "vCPUs (`TUITUNE_VM_CPUS=32 scripts/vm run -k irqfiles`) and runs "
            "`bench_irqfiles.py --kernel` on its kernel."
        )
    return "\n".join(
        [
            f"{VM_COMMAND}: `bench_irqfiles.py --kernel` in the VM bench's guest (TCG, "
            "`TUITUNE_VM_CPUS=32 scripts/vm run -k irqfiles`), its output as printed. A run "
            "without `--vm` keeps the last one (`--vm-only` makes it alone): its date and "
            "commit are its own.",
            "",
            "```",
            text.strip(),
            "```",
        ]
    )
