"""Where tuitune's frame goes (issue 18, goal 4): the main thread's CPU per tick, part by part,
with the real `tuitune IFACE --interval T` in a 200x60 tmux pane (as bench_peers runs it).
Prints one JSON document (benchmarks/writer_frame.py makes the section of it).

tuitune runs through _frame_hooks.py: timers around Textual's compositor, its terminal write,
each widget's render_lines and tuitune's presenters, in that process only (the product is not
changed). After the screen shows numbers and a warm-up, each window is opened with SIGUSR1
and closed with SIGUSR2 after --ticks ticks; the process writes the window's figures. Per
tick: main-thread CPU, compositor, presenters, terminal write, the rest; widgets repainted
(render_lines calls) and how many of them had changed content (handed to update_widgets);
and each widget's repaint CPU. --repeats windows in a row; the writer gives median and range.
The machine's load average is recorded before and after each window.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _proc, peers
from benchmarks._report import REPO, emit_json, machine_lines
from benchmarks._tmux import TmuxServer
from benchmarks.bench_peers import MARKS, env_for

PY = str(REPO / ".venv" / "bin" / "python")
HOOKS = str(REPO / "benchmarks" / "_frame_hooks.py")


def per_tick(raw: dict[str, Any]) -> dict[str, Any]:
    """One window's totals (seconds, counts) as figures per tick (ms, counts)."""
    ticks = max(1, int(raw["ticks"]))
    ph = raw["phases_s"]
    ms = 1000 / ticks
    display = float(ph.get("display", 0.0))
    # _display runs inside _compositor_refresh: the compositor's own share is without it.
    compositor = float(ph.get("compositor", 0.0)) - display
    presenters = float(ph.get("presenters", 0.0))
    main = float(raw["main_cpu_s"])
    widgets = {
        name: {
            "ms": round(float(w["cpu_s"]) * ms, 3),
            "calls": round(int(w["calls"]) / ticks, 2),
            "lines": round(int(w["lines"]) / ticks, 1),
        }
        for name, w in sorted(raw["widgets"].items(), key=lambda kv: -float(kv[1]["cpu_s"]))
    }
    return {
        "ticks": int(raw["ticks"]),
        "wall_s": round(float(raw["wall_s"]), 2),
        "main_ms": round(main * ms, 3),
        "compositor_ms": round(compositor * ms, 3),
        "widgets_ms": round(sum(float(w["cpu_s"]) for w in raw["widgets"].values()) * ms, 3),
        "presenters_ms": round(presenters * ms, 3),
        "write_ms": round(display * ms, 3),
        "other_ms": round(max(0.0, main - compositor - presenters - display) * ms, 3),
        "repainted": round(sum(int(w["calls"]) for w in raw["widgets"].values()) / ticks, 2),
        "changed": round(sum(int(n) for n in raw["changed"]) / ticks, 2),
        "widgets": widgets,
    }


def _wait_file(path: Path, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the hooked tuitune wrote no {path.name}")
        time.sleep(0.05)
    doc: dict[str, Any] = json.loads(path.read_text())
    path.unlink()
    return doc


def run(iface: str, interval: float, ticks: int, repeats: int, warmup: float) -> dict[str, Any]:
    """`repeats` windows of `ticks` ticks of one tuitune at `interval` seconds."""
    home = peers.home(peers.SCRATCH, f"frame-{interval:g}", int(interval * 1000))
    outdir = Path(tempfile.mkdtemp(prefix="tt-frame-"))  # 0700, ours alone
    out = outdir / "window.json"
    env = {**env_for(home), "TUITUNE_FRAME_OUT": str(out)}
    argv = [PY, HOOKS, iface, "--interval", f"{interval:g}"]
    server = TmuxServer("frame")
    windows: list[dict[str, Any]] = []
    try:
        pid = server.new_session(argv, env)
        server.wait_for(MARKS["tuitune"](), timeout=60)
        time.sleep(warmup)
        for _ in range(repeats):
            load0 = _proc.loadavg()
            os.kill(pid, signal.SIGUSR1)
            time.sleep(ticks * interval)
            os.kill(pid, signal.SIGUSR2)
            raw = _wait_file(out)
            windows.append({**per_tick(raw), "load_start": load0, "load_end": _proc.loadavg()})
    finally:
        server.kill()
        shutil.rmtree(outdir, ignore_errors=True)
    return {"interval_s": interval, "command": f"tuitune {iface} --interval {interval:g}",
            "windows": windows}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 window of 5 ticks per interval")
    ap.add_argument("--iface", help="interface tuitune watches (default: the default route's)")
    ap.add_argument("--ticks", type=int, help="ticks per window (default 20; --quick 5)")
    ap.add_argument("--repeats", type=int, help="windows per interval (default 3; --quick 1)")
    ap.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    args = ap.parse_args(argv)
    iface = args.iface or _proc.default_route_interface() or "lo"
    ticks = args.ticks or (5 if args.quick else 20)
    repeats = args.repeats or (1 if args.quick else 3)
    doc: dict[str, Any] = {
        "machine": machine_lines(),
        "quick": args.quick,
        "iface": iface,
        "ticks_per_window": ticks,
        "runs": [],
    }
    for interval in (1.0, 0.25):
        print(f"frame at {interval:g} s...", file=sys.stderr, flush=True)
        r = run(iface, interval, ticks, repeats, warmup=2.0 if args.quick else 5.0)
        doc["runs"].append(r)
    emit_json(doc, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
