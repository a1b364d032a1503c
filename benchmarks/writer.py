"""BENCHMARKS.md from the benchmark scripts' output, never by hand (benchmarks/run.py).

`render(results)` takes what the scripts printed: bench_peers.py's, bench_memory.py's and
bench_frame.py's (writer_frame.py) JSON documents, and the Markdown that bench_tick.py and
bench_reaction.py print, and returns the whole document. Every figure in it comes from those
outputs; the words around them are fixed here and say only how the figures were taken.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

COMMAND = "scripts/dev bench"  # = .venv/bin/python -m benchmarks.run

WITHDRAWN = (
    "the observer-cost ratios to htop (2.1-2.6x)",
    "the Textual floor app's ratio to htop (0.93x)",
    "start-up against the minimal Textual app (7.2x)",
    "the repaint at 1024 CPUs (19-21 ms)",
    "the frame CPU figures of the repaint benchmark",
    "the tick benchmark's own cost",
    "the tick table printed under a header that did not match its rows",
)


def _f(x: float, digits: int = 2) -> str:
    return f"{x:,.{digits}f}"


def spread(xs: Sequence[float], digits: int = 2) -> tuple[str, str]:
    """(median, "min-max") of repeats; one value has no range."""
    if not xs:
        return "-", "-"
    med = _f(statistics.median(xs), digits)
    rng = f"{_f(min(xs), digits)}-{_f(max(xs), digits)}" if len(xs) > 1 else "one run"
    return med, rng


def table(head: Sequence[str], rows: Sequence[Sequence[str]], right_from: int = 1) -> str:
    align = ["---" if i < right_from else "--:" for i in range(len(head))]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def machine_section(peers: Mapping[str, Any]) -> str:
    m = peers["machine"]
    versions = peers["peers"].get("versions", {})
    missing = peers["peers"].get("missing", {})
    lines = [
        f"- CPU: {m['cpu_model']}, {m['cpus']} cores (as /proc/cpuinfo and os.cpu_count() say)",
        f"- kernel: {m['kernel']}; Python {m['python']}; tuitune commit {m['commit']}",
        "- peers: " + (", ".join(f"{k} ({v})" for k, v in sorted(versions.items())) or "none"),
    ]
    for name, why in sorted(missing.items()):
        lines.append(f"- left out: {name}: {why}")
    if peers.get("quick"):
        lines.append(
            "- **quick mode** (1 repeat, 5 s windows): a check that the tools run, "
            "not figures to cite"
        )
    return "\n".join(lines)


def _load(w: Mapping[str, Any]) -> str:
    return f"{w['load_start']} / {w['load_end']} (busy CPUs {_f(float(w['busy_cpus']))})"


def start_section(peers: Mapping[str, Any]) -> str:
    if "start" not in peers:
        return "Not measured in this run (bench_peers --observer-only)."
    start = peers["start"]
    times: Mapping[str, list[float]] = start["times_s"]
    ref = next((k for k in times if k.startswith("btop")), None)
    ref_med = statistics.median(times[ref]) if ref and times[ref] else None
    rows = []
    for label, xs in times.items():
        med, rng = spread(xs)
        ratio = _f(statistics.median(xs) / ref_med) if xs and ref_med else "-"
        rows.append([f"`{label}`", med, rng, ratio, str(len(xs))])
    for label, why in start.get("failures", {}).items():
        rows.append([f"`{label}`", why, "-", "-", "0"])
    out = [
        table(["command", "median s", "range s", "/ btop", "launches"], rows),
        "",
        f"Load average during the launches (start / end): {_load(start['window'])}.",
    ]
    tt = next((xs for k, xs in times.items() if k.startswith("tuitune")), [])
    if tt:
        med = statistics.median(tt)
        verdict = "met" if med <= 1.0 and (ref_med is None or med <= ref_med) else "not met"
        peer = f", btop {_f(ref_med)} s" if ref_med is not None else ""
        out.append(f"Goal (<= 1.0 s and <= btop's): tuitune {_f(med)} s{peer}: **{verdict}**.")
    return "\n".join(out)


def _charged(r: Mapping[str, Any], t: str) -> float:
    """A tool's CPU s/s in one window as the ratios count it: its threads' schedstat plus its
    terminal's (its tmux server's); stat's ticks where a result has no schedstat."""
    if "sched_s_per_s" in r and "terminal_s_per_s" in r:
        return float(r["sched_s_per_s"][t]) + float(r["terminal_s_per_s"][t])
    return float(r["cpu_s_per_s"][t])


def _interpolated_htop(
    tools: Sequence[str], series: dict[str, dict[str, list[float]]], interval: float
) -> str | None:
    """htop at the tools' exact rate from its two neighbours (`htop -d 2` and `-d 3` for 4 Hz),
    linear in refresh rate, window by window; added to each of `series`. Its label, or None
    when htop ran at the exact rate (or not at all)."""
    htops = [t for t in tools if t.startswith("htop -d ")]
    if len(htops) != 2:
        return None
    (a, b), target = htops, 1 / interval
    ra, rb = (10 / int(t.split()[-1]) for t in (a, b))
    w = (target - rb) / (ra - rb)  # a's weight
    label = f"htop at {target:g} Hz (interpolated: {w:.2f} x `{a}` + {1 - w:.2f} x `{b}`)"
    for values in series.values():
        values[label] = [w * x + (1 - w) * y for x, y in zip(values[a], values[b], strict=True)]
    return label


def observer_section(obs: Mapping[str, Any]) -> str:
    tools: list[str] = list(obs["tools"])
    rounds: list[Mapping[str, Any]] = obs["rounds"]
    has_sched = all("sched_s_per_s" in r and "terminal_s_per_s" in r for r in rounds)
    series: dict[str, dict[str, list[float]]] = {
        "charged": {t: [_charged(r, t) for r in rounds] for t in tools},
        "stat": {t: [float(r["cpu_s_per_s"][t]) for r in rounds] for t in tools},
        "rss": {t: [float(r["rss_mb"][t]) for r in rounds] for t in tools},
    }
    if has_sched:
        series["sched"] = {t: [float(r["sched_s_per_s"][t]) for r in rounds] for t in tools}
        series["term"] = {t: [float(r["terminal_s_per_s"][t]) for r in rounds] for t in tools}
    htop = _interpolated_htop(tools, series, float(obs["interval_s"]))
    if htop is not None:
        last = max(i for i, t in enumerate(tools) if t.startswith("htop"))
        tools.insert(last + 1, htop)
    else:
        htop = next((t for t in tools if t.startswith("htop")), None)
    btop = next((t for t in tools if t.startswith("btop")), None)
    cpu = series["charged"]

    def ratio(t: str, ref: str | None) -> str:
        """Per window (the same seconds for both), then their median and range."""
        if ref is None or not cpu[ref] or min(cpu[ref]) <= 0:
            return "-"
        med, rng = spread([x / y for x, y in zip(cpu[t], cpu[ref], strict=True)])
        return f"{med} ({rng})"

    rows = []
    for t in tools:
        med, rng = spread(cpu[t], 4)
        pct = _f(100 * statistics.median(cpu[t])) + "%" if cpu[t] else "-"
        parts = [spread(series[k][t], 4)[0] for k in ("sched", "term") if k in series]
        stat = spread(series["stat"][t], 4)[0]
        rss = spread(series["rss"][t], 1)[0]
        rows.append([f"`{t}`", *parts, stat, med, rng, pct, ratio(t, htop), ratio(t, btop), rss])
    head = [
        "tool",
        *(["tool CPU s/s (schedstat)", "terminal s/s"] if has_sched else []),
        "stat ticks s/s",
        "tool + terminal s/s (median)" if has_sched else "CPU s/s (median)",
        "range",
        "% of one CPU",
        "/ htop (windows)",
        "/ btop (windows)",
        "RSS MB",
    ]
    parts = {k: [float(r["tuitune_parts"][k]) for r in rounds] for k in ("tick", "frame", "other")}
    prow = [[k, *spread(v, 4)] for k, v in parts.items()]
    wins = [[str(i + 1), _f(float(r["wall_s"]), 1), _load(r)] for i, r in enumerate(rounds)]
    how = (
        "Each tool's CPU is its process tree's (task/*/schedstat, nanoseconds) plus its "
        "terminal's (its own tmux server's), the tool + terminal column; the ratios are taken "
        "window by window (all tools in the same seconds) and given as median (range). The "
        "stat ticks column is /proc/PID/stat's 10 ms ticks of the tool alone, for comparison."
        if has_sched
        else "CPU of each tool's process tree (stat ticks); ratios per window."
    )
    return "\n".join(
        [
            how,
            "",
            table(head, rows),
            "",
            "tuitune's CPU by thread (tick: the sampler and kernel-I/O threads, reads and rates; "
            "frame: the main thread, Textual's drawing; other: terminal input/output):",
            "",
            table(["part", "CPU s/s (median)", "range"], prow),
            *floor_split(obs),
            *_observer_goal(cpu, tools, htop, btop, rounds),
            "",
            table(["window", "seconds", "load average start / end"], wins),
        ]
    )


def _observer_goal(
    cpu: Mapping[str, list[float]],
    tools: Sequence[str],
    htop: str | None,
    btop: str | None,
    rounds: Sequence[Mapping[str, Any]],
) -> list[str]:
    """Issue 38's goal 2 (at most htop's and btop's, per window), said outright, with where
    its measured cause is when it is not met."""
    ours = next((t for t in tools if t.startswith("tuitune")), None)
    peers = [t for t in (htop, btop) if t is not None and cpu[t]]
    if ours is None or not cpu[ours] or not peers:
        return []
    mine = statistics.median(cpu[ours])
    # Every peer, every window: at most the lower of the two (before, "at most the higher").
    lows = [min(cpu[t][i] for t in peers) for i in range(len(cpu[ours]))]
    won = sum(1 for m, low in zip(cpu[ours], lows, strict=True) if m <= low)
    n = len(lows)
    shown = ", ".join(f"{t.split()[0]} {100 * statistics.median(cpu[t]):.2f} %" for t in peers)
    if won == n:
        return [
            "",
            f"Goal (issue 38): at most htop's and btop's in every window: **met** "
            f"(tuitune {100 * mine:.2f} %, {shown}; {n} of {n} windows).",
        ]
    best = min(statistics.median(cpu[t]) for t in peers)
    return [
        "",
        f"Goal (issue 38): at most htop's and btop's in every window: **not met**: tuitune"
        f" {100 * mine:.2f} % against {shown} ({mine / best:.2f}x the lower; at most both in"
        f" {won} of {n} windows).",
        *_gap(cpu, tools, rounds, best),
    ]


def _gap(
    cpu: Mapping[str, list[float]],
    tools: Sequence[str],
    rounds: Sequence[Mapping[str, Any]],
    best: float,
) -> list[str]:
    """Where the gap to the lower peer is, from this run's medians: tuitune's parts, and the
    Textual floor (a Textual app changing one line at the same rate), which any Textual app
    pays before it draws anything of its own."""
    floor_tool = next((t for t in tools if t.startswith("Textual floor")), None)
    parts = {
        k: statistics.median(float(r["tuitune_parts"][k]) for r in rounds)
        for k in ("tick", "frame", "other")
    }
    said = ", ".join(f"{k} {100 * v:.2f} %" for k, v in parts.items())
    out = ["", f"Where tuitune's CPU goes (medians, % of one CPU): {said}."]
    if floor_tool is None or not cpu[floor_tool]:
        return out
    floor = statistics.median(cpu[floor_tool])
    own = max(0.0, parts["frame"] - floor) + parts["tick"] + parts["other"]
    room = best - floor
    out += [
        f"The measured cause: the Textual floor alone is {100 * floor:.2f} % "
        f"({floor / best:.2f}x the lower peer), which leaves {100 * room:.2f} % for "
        f"everything tuitune does itself; that is {100 * own:.2f} % "
        f"(the tick's reads and rates {100 * parts['tick']:.2f} %, the frame above the floor "
        f"{100 * max(0.0, parts['frame'] - floor):.2f} %, terminal I/O "
        f"{100 * parts['other']:.2f} %)."
        + (" So no Textual app that redraws at this rate can meet this goal." if room <= 0 else "")
    ]
    return out


def floor_split(obs: Mapping[str, Any]) -> list[str]:
    """The frame against the Textual floor, per tick: how much of tuitune's main thread any
    Textual app updating at the same rate pays (runs before the floor row have none)."""
    rounds: list[Mapping[str, Any]] = obs["rounds"]
    if "floor" not in obs or not rounds or "floor_frame" not in rounds[0]["tuitune_parts"]:
        return []
    per_tick = 1000 * float(obs["interval_s"])  # CPU s/s to ms of CPU per tick
    frame = statistics.median(float(r["tuitune_parts"]["frame"]) for r in rounds) * per_tick
    floor = statistics.median(float(r["tuitune_parts"]["floor_frame"]) for r in rounds) * per_tick
    share = f"{100 * floor / frame:.0f} %" if frame > 0 else "-"
    return [
        "",
        f"Frame against the floor: tuitune's main thread used {_f(frame)} ms of CPU per tick, "
        f"the Textual floor's main thread {_f(floor)} ms per update ({share} of tuitune's "
        f"frame): what Textual itself costs to change one line at this rate. The other "
        f"{_f(max(0.0, frame - floor))} ms per tick are tuitune's own: its presenters building "
        "the rows, and Textual drawing the widgets whose lines changed.",
    ]


def memory_section(mem: Mapping[str, Any]) -> str:
    plain, traced = mem.get("plain", {}), mem.get("traced", {})
    if "error" in plain or "error" in traced:
        return "bench_memory.py failed: " + str(plain.get("error") or traced.get("error"))
    rows = [
        ["Python started", _f(float(plain["rss_start_mb"]), 1)],
        ["after `import tuitune.tui.app`", _f(float(plain["rss_imported_mb"]), 1)],
        ["after two samples drawn (first frame with numbers)", _f(float(plain["rss_drawn_mb"]), 1)],
    ]
    if "uss_drawn_mb" in plain:
        rows.append(["USS then (its own pages)", _f(float(plain["uss_drawn_mb"]), 1)])
    by = [[k, _f(v / 1024, 1)] for k, v in traced.get("traced_kb", {}).items()]
    mods = [[k, str(v)] for k, v in traced.get("modules", {}).items()]
    return "\n".join(
        [
            table(["point", "VmRSS MB"], rows),
            "",
            *_terminal_memory(mem.get("terminal", {})),
            "Python heap still allocated then, by the package that allocated it (tracemalloc "
            "from the first line; module code objects are counted under the import machinery, "
            "`stdlib (frozen)`):",
            "",
            table(["package", "MB"], by),
            "",
            f"Modules loaded: {traced.get('modules_total', '-')}; the largest families:",
            "",
            table(["package", "modules"], mods),
        ]
    )


def _terminal_memory(term: Mapping[str, Any]) -> list[str]:
    """The real command in a 200x60 tmux pane (issue 38, goal 3: <= 40 MB after the first
    frame on a small host), beside the smallest Textual app; [] when it was not measured."""
    if not term:
        return []
    if "error" in term:
        return [f"In a terminal: not measured ({term['error']}).", ""]
    cols = ["VmRSS", "RssAnon", "RssFile", "USS", "PSS"]
    names = {
        "first_frame": "`tuitune IFACE`, first frame (every CPU's row drawn)",
        "minimal_app": "the smallest Textual app (the floor)",
    }
    rows = [
        [names.get(k, f"`tuitune IFACE`, {k.replace('_', ' ')}"), *(_f(v[c], 1) for c in cols)]
        for k, v in term.items()
        if isinstance(v, Mapping)
    ]
    return [
        f"In a 200x60 terminal (tmux), read from /proc/PID/status and smaps_rollup; load "
        f"{term.get('load_before', '-')} before, {term.get('load_after', '-')} after:",
        "",
        table(["process", *(f"{c} MB" for c in cols)], rows),
        "",
    ]


def render(results: Mapping[str, Any]) -> str:
    peers = results["peers"]
    parts = [
        "# Benchmarks",
        "",
        f"Generated by `{COMMAND}` (`.venv/bin/python -m benchmarks.run`; `--quick` for a short "
        "check). Every figure below is printed by a script in `benchmarks/` and put here by "
        "`benchmarks/writer.py`; nothing is typed by hand. Regenerate on a quiet machine. "
        "tuitune's bytecode is compiled first, as installing a wheel does.",
        "",
        "## Machine",
        "",
        machine_section(peers),
        "",
        "## Start-up: command to the first frame with numbers",
        "",
        "`benchmarks/bench_peers.py`: each tool in a fresh 200x60 tmux session, launches "
        "alternating, the first of each a warm-up; the mark is the first screen with real "
        "numbers (tuitune: CPU 0's rates; htop: a CPU meter; btop: CPU 0's row after its first "
        "update; glances: the CPU line; network-top: the per-CPU block).",
        "",
        start_section(peers),
        "",
        "### Where the start-up time goes",
        "",
        _timeline(results),
        "",
    ]
    for obs in peers["observer"]:
        hz = 1 / float(obs["interval_s"])
        parts += [
            f"## Observer cost at {hz:g} Hz (--interval {float(obs['interval_s']):g})",
            "",
            "`benchmarks/bench_peers.py`: all tools at once, each in its own tmux server "
            "(200x60); CPU time of the whole process tree over each window, after a warm-up.",
            "",
            observer_section(obs),
            "",
        ]
    parts += _frame_parts(results)
    if "memory" in results:
        parts += [
            "## Memory: what tuitune's resident size is",
            "",
            "`benchmarks/bench_memory.py` (the peers' RSS is in the observer tables).",
            "",
            memory_section(results["memory"]),
            "",
        ]
    for title, key in (
        ("Tick cost against host size", "tick"),
        ("A 1152-CPU host at 200x60", "bighost"),
        ("Reaction", "reaction"),
    ):
        if key in results:
            text = results[key].strip()
            # A script that prints its own heading keeps it; one that does not gets ours.
            parts += [text, ""] if text.startswith("## ") else [f"## {title}", "", text, ""]
    parts += _irqfiles_parts(results)
    parts += [
        "## Withdrawn",
        "",
        "Issue 18 found seven claims of the earlier, hand-written BENCHMARKS.md that did not "
        "reproduce on another machine of the same kind; they are no longer made: "
        + "; ".join(WITHDRAWN)
        + ". Their subjects are measured again above where a script covers them.",
        "",
    ]
    return "\n".join(parts)


def _timeline(results: Mapping[str, Any]) -> str:
    from benchmarks.writer_timeline import timeline_section  # it imports this

    return timeline_section(results.get("timeline"), results.get("timeline_error"))


def _frame_parts(results: Mapping[str, Any]) -> list[str]:
    """Where the frame's time goes (bench_frame.py), against the observer run's floor."""
    from benchmarks.writer_frame import frame_section  # it imports this

    error = results.get("frame_error")
    return [frame_section(results.get("frame"), results["peers"], error and str(error))]


def _irqfiles_parts(results: Mapping[str, Any]) -> list[str]:
    """The 1152-CPU tick, old path against new, and the kernel's side from the VM guest."""
    from benchmarks.writer_irqfiles import irqfiles_section, kernel_section  # it imports this

    if "irqfiles" in results:
        tick = irqfiles_section(results["irqfiles"])
    else:
        why = results.get("irqfiles_error")
        tick = "Not measured in this run" + (f" ({str(why).strip()})." if why else ".")
    kernel = kernel_section(results.get("irqfiles_kernel"), results.get("irqfiles_kernel_error"))
    return [
        "## A 1152-CPU host's tick: the NIC's per-IRQ files against the whole /proc/interrupts",
        "",
        tick,
        "",
        "## The kernel's side: /proc/interrupts against the NIC's per_cpu_count files",
        "",
        kernel,
        "",
    ]
