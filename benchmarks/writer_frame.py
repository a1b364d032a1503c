"""BENCHMARKS.md's section on where tuitune's frame goes (issue 18, goal 4), from what
bench_frame.py printed, with the Textual floor of bench_peers' observer run at the same rate.
Figures only from those outputs; medians over the windows, with their range."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from benchmarks.writer import spread, table

TITLE = "## Where the frame's time goes"

PARTS = (
    ("main_ms", "main thread, all of it"),
    ("compositor_ms", "Textual's compositor: layout, finding the changes, repainting widgets"),
    ("widgets_ms", "of which the widgets' repaint (render_lines)"),
    ("presenters_ms", "tuitune's presenters: building the rows from a sample"),
    ("write_ms", "terminal write: the frame turned into escape sequences"),
    ("other_ms", "the rest: message loop, timers, input"),
)


def _med(windows: Sequence[Mapping[str, Any]], key: str) -> float:
    return statistics.median(float(w[key]) for w in windows)


def _cell(xs: Sequence[float], digits: int = 2) -> str:
    med, rng = spread(xs, digits)
    return med if rng == "one run" else f"{med} ({rng})"


def floor_ms(peers: Mapping[str, Any] | None, interval: float) -> float | None:
    """The Textual floor's main-thread CPU per update at `interval`, from bench_peers."""
    for obs in (peers or {}).get("observer", []):
        rounds = obs.get("rounds", [])
        if float(obs["interval_s"]) != interval or not rounds:
            continue
        if "floor_frame" not in rounds[0]["tuitune_parts"]:
            return None
        per_s = statistics.median(float(r["tuitune_parts"]["floor_frame"]) for r in rounds)
        return per_s * 1000 * interval
    return None


def _widget_rows(windows: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    names: dict[str, float] = {}
    for w in windows:
        for name, v in w["widgets"].items():
            names[name] = names.get(name, 0.0) + float(v["ms"])
    rows = []
    for name in sorted(names, key=lambda n: -names[n]):
        # A widget not repainted in a window counts 0 there.
        ms = [float(w["widgets"].get(name, {}).get("ms", 0.0)) for w in windows]
        calls = [float(w["widgets"].get(name, {}).get("calls", 0.0)) for w in windows]
        rows.append([f"`{name}`", _cell(ms), _cell(calls, 1)])
    return rows


def cause(run: Mapping[str, Any], floor: float | None) -> str:
    """The sentence naming where goal 4's gap goes, every figure from the run."""
    ws = run["windows"]
    floor_txt = (
        f"; the Textual floor (one line changed) {floor:.2f} ms per update (observer table)"
        if floor is not None
        else ""
    )
    return (
        f"At --interval {float(run['interval_s']):g}, of {_med(ws, 'main_ms'):.2f} ms of "
        f"main-thread CPU a tick, Textual's compositor took {_med(ws, 'compositor_ms'):.2f} ms "
        f"repainting {_med(ws, 'repainted'):.1f} widgets of which "
        f"{_med(ws, 'changed'):.1f} had changed; tuitune's presenters "
        f"{_med(ws, 'presenters_ms'):.2f} ms; the terminal write {_med(ws, 'write_ms'):.2f} ms; "
        f"the rest {_med(ws, 'other_ms'):.2f} ms{floor_txt}."
    )


def run_section(run: Mapping[str, Any], floor: float | None) -> list[str]:
    ws: Sequence[Mapping[str, Any]] = run["windows"]
    parts = [[label, _cell([float(w[key]) for w in ws])] for key, label in PARTS]
    parts.append(
        ["widgets repainted / of them changed", _cell([float(w["repainted"]) for w in ws], 1)
         + " / " + _cell([float(w["changed"]) for w in ws], 1)]
    )  # fmt: skip
    loads = [
        [str(i + 1), str(w["ticks"]), f"{w['load_start']} / {w['load_end']}"]
        for i, w in enumerate(ws)
    ]
    return [
        f"### `{run['command']}`",
        "",
        cause(run, floor),
        "",
        table(["part (CPU ms per tick)", "median (range)"], parts),
        "",
        "Each widget's repaint:",
        "",
        table(["widget", "ms per tick", "repaints per tick"], _widget_rows(ws)),
        "",
        table(["window", "ticks", "load average start / end"], loads),
        "",
    ]


def frame_section(data: Mapping[str, Any] | None, peers: Mapping[str, Any] | None,
                  error: str | None = None) -> str:  # fmt: skip
    if data is None:
        why = f" ({error.strip()})" if error else ""
        return "\n".join([TITLE, "", f"Not measured in this run{why}.", ""])
    windows = len(data["runs"][0]["windows"]) if data["runs"] else 0
    out = [
        TITLE,
        "",
        "`benchmarks/bench_frame.py`: the real tuitune in a 200x60 tmux pane, timers around "
        "Textual's compositor, its terminal write, each widget's repaint and tuitune's "
        "presenters, inside the benchmark's own process (benchmarks/_frame_hooks.py; the "
        f"product is unchanged). {windows} window(s) of {data['ticks_per_window']} ticks per "
        "rate after a warm-up; CPU time of the main thread per tick, median and range. "
        "Widgets repainted: render_lines calls; changed: the widgets whose content changed "
        "(handed to Textual's update_widgets); every other one was repainted because part of it "
        "lies under a changed one (a panel's border around its list, the screen behind "
        "them): the live screen's compositor renders only the widgets a change touches "
        "(tuitune/tui/compositor.py).",
        "",
    ]
    if data.get("quick"):
        out += ["**quick mode**: a check that the benchmark runs, not figures to cite.", ""]
    for run in data["runs"]:
        out += run_section(run, floor_ms(peers, float(run["interval_s"])))
    out += ["Machine of this run:", "", *data["machine"], ""]
    return "\n".join(out)
