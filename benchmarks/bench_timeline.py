"""Where tuitune's start-up goes: the phases from the command to the first frame with numbers.

Each launch runs `benchmarks/_start_trace.py` (tuitune's live screen, unchanged, with the time
of each phase noted) in a new 200x60 session of one private tmux server, as bench_peers.py
launches tuitune; the screen is polled every 10 ms until CPU 0's row shows numbers (the same
mark as bench_peers.py). The phases, from the launcher's clock and the process's notes:

* tmux, exec and the interpreter's start: until the script's first line ran (its CPU: what
  the process had used by then, the interpreter's start-up);
* import textual.app; then import tuitune.tui.app (tuitune's modules and the rest of
  Textual's that they import); then the host reader opened;
* the App built (its controllers, the change session); App.run to compose (the driver, the
  CSS parsed); compose to Mount (the widgets mounted, styles applied);
* Mount to the first sample on the UI thread (the sampler's thread reads /proc for it,
  since-boot numbers; started at Textual's Load event, it overlaps the phases before);
* until the launcher saw it: drawn (layout, render, written to the terminal), tmux, the 10 ms
  poll. Textual's after-refresh callback can run after the bytes reached the terminal, so
  the draw is not split from the terminal's part here.

CPU seconds are the process's (all threads), per phase where it notes them; at the mark on
screen, /proc/PID/stat's (10 ms ticks). `--python
LABEL=PATH` (repeatable) measures other trees too, launches alternating (e.g. main's venv:
`--python main=/work/main/.venv/bin/python`); the first launch of each is a warm-up.

    .venv/bin/python -m benchmarks.bench_timeline [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _proc
from benchmarks._report import REPO, machine_lines
from benchmarks._tmux import TmuxError, TmuxServer
from benchmarks.bench_peers import MARKS, PY, Window, env_for

TRACE = str(REPO / "benchmarks" / "_start_trace.py")
POLL = 0.01
# (phase, mark it ends at); each phase starts where the one before ended.
PHASES = (
    ("tmux, exec, interpreter start", "python"),
    ("import textual.app", "textual.app imported"),
    ("import tuitune.tui.app (rest)", "tuitune.tui.app imported"),
    ("open the host reader", "reader open"),
    ("build the App (controllers, session)", "app built"),
    ("App.run to compose (driver, CSS)", "compose"),
    ("compose to Mount (widgets mounted)", "mount"),
    ("Mount to first sample handled", "first sample"),
    ("first sample to screen (draw, terminal, poll)", "seen"),
)


Marks = dict[str, tuple[float, float]]


def launch(server: TmuxServer, name: str, python: str, iface: str, env: dict[str, str]) -> Marks:
    """One start: the marks (epoch seconds, CPU seconds) of the trace plus "launch", "seen"."""
    out = Path(env["HOME"]) / f"{name}.json"
    argv = [python, TRACE, str(out), iface, "--interval", "1"]
    seen_mark = MARKS["tuitune"]()
    t0 = time.time()
    pid = server.new_session(argv, env, name=name)
    seen, cpu = None, float("nan")
    while time.time() - t0 < 30:
        if seen_mark(server.capture(name)):
            seen = time.time()
            st = _proc.read_stat(pid)
            cpu = st.cpu if st is not None else cpu
            break
        time.sleep(POLL)
    server.send_keys(name, "q")
    server.wait_gone(pid)
    server.kill_session(name)
    if seen is None or not out.exists():
        raise TmuxError(f"{python}: no numbers on screen within 30 s")
    marks = {k: (float(v[0]), float(v[1])) for k, v in json.loads(out.read_text()).items()}
    marks["launch"], marks["seen"] = (t0, 0.0), (seen, cpu)
    return marks


def phases(marks: Marks) -> dict[str, dict[str, float]]:
    """Per phase: wall seconds, and CPU seconds where both ends have them."""
    got: dict[str, dict[str, float]] = {}
    prev = "launch"
    for label, end in PHASES:
        wall = marks[end][0] - marks[prev][0]
        cpu = marks[end][1] - marks[prev][1]
        got[label] = {"wall_s": round(wall, 4), "cpu_s": round(cpu, 4)}
        prev = end
    got["total"] = {
        "wall_s": round(marks["seen"][0] - marks["launch"][0], 4),
        "cpu_s": round(marks["seen"][1], 4),
    }
    return got


def markdown(doc: dict[str, object]) -> list[str]:
    runs: dict[str, list[dict[str, dict[str, float]]]] = doc["runs"]  # type: ignore[assignment]
    labels = list(runs)
    head = "| phase | " + " | ".join(f"{lb}: wall s (CPU s)" for lb in labels) + " |"
    lines = [head, "|---|" + "--:|" * len(labels)]
    for phase in [p for p, _ in PHASES] + ["total"]:
        cells = []
        for lb in labels:
            walls = [r[phase]["wall_s"] for r in runs[lb]]
            cpus = [r[phase]["cpu_s"] for r in runs[lb]]
            cpu = statistics.median(cpus)
            cells.append(f"{statistics.median(walls):.3f}" + (f" ({cpu:.3f})" if cpu else ""))
        lines.append(f"| {phase} | " + " | ".join(cells) + " |")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=5, help="counted launches of each (5)")
    ap.add_argument("--iface", help="interface to watch (default: the default route's)")
    ap.add_argument("--python", action="append", default=[], metavar="LABEL=PATH")
    ap.add_argument("--json", action="store_true", help="print JSON (for benchmarks/run.py)")
    ap.add_argument("--quick", action="store_true", help="1 repeat")
    args = ap.parse_args(argv)
    iface = args.iface or _proc.default_route_interface()
    if iface is None:
        ap.error("no default route: pass --iface")
    trees = [("this tree", PY)] + [tuple(p.split("=", 1)) for p in args.python]
    repeats = 1 if args.quick else args.repeats
    home = Path(tempfile.mkdtemp(prefix="tt-bench-timeline-"))
    env = env_for(home)
    runs: dict[str, list[dict[str, dict[str, float]]]] = {lb: [] for lb, _ in trees}
    server = TmuxServer("timeline")
    win = Window()
    n = 0
    try:
        server.new_session(["sleep", "3600"], env, name="keep")  # the server's own start
        for round_ in range(repeats + 1):
            for label, python in trees:
                n += 1
                marks = launch(server, f"t{n}", python, iface, env)
                if round_ > 0:  # the first of each: a warm-up
                    runs[label].append(phases(marks))
                time.sleep(0.2)
    except TmuxError as exc:
        print(f"bench_timeline: {exc}", file=sys.stderr)
        return 1
    finally:
        server.kill()
    doc: dict[str, object] = {
        "runs": runs,
        "window": win.end(),
        "ncpus": os.cpu_count(),
        "iface": iface,
    }
    if args.json:
        print(json.dumps(doc, indent=1))
    else:
        print("\n".join([*machine_lines(), f"- load average: {doc['window']}", "", *markdown(doc)]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
