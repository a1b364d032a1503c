"""tuitune beside htop, btop, glances and network-top, in the same run: start-up to the first
frame with numbers, CPU a second at 1 Hz and at 4 Hz (the tick apart from the frame), and
resident memory. Prints one JSON document (benchmarks/writer.py makes the tables of it).

Every tool runs in a real terminal: its own private tmux server (-L, no config), a 200x60
pane, a private HOME (btop's refresh period set there, peers.py).

* start: each tool is launched in turn (alternating, so machine noise falls on all alike);
  the clock starts before `tmux new-session` and the pane is read every 10 ms until the
  screen shows numbers (`MARKS`: tuitune's CPU grid with a rate in its first row, htop's
  CPU meter percent, btop's CPU percentages, glances' CPU line, network-top's per-CPU
  block). The first launch of each is a warm-up (page cache) unless --quick.
* observer: the tools run at the same time at one refresh rate, each in its own server;
  after every screen shows numbers and a warm-up, the CPU time of the whole process tree
  (utime+stime of /proc/PID/stat, reaped children included) is read at the start and the
  end of the window, and beside it the nanoseconds of task/*/schedstat (live threads: finer
  than stat's 10 ms ticks), and the same for the tool's tmux server, its terminal, which the
  ratios count with the tool (a tool that writes more bytes makes its terminal work more).
  htop's -d counts tenths of a second: at 4 Hz both neighbours run (htop_delays). tuitune
  runs through _named_threads.py so its threads can be told
  apart: "tick" is the sampler thread and the kernel-I/O thread (reads and rates), "frame"
  the main thread (Textual's drawing), "other" the terminal's input/output threads.
  Resident memory (VmRSS) is read at the end of each window. Beside them runs the Textual
  floor (_ticking_app.py at the same interval, not a contender): its row and its main
  thread's CPU per update against tuitune's frame say how much of that Textual itself sets.

Each window is repeated (--repeats); the writer reports median and range. Load average and
busy CPUs of the whole machine are recorded for each window.
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _proc, peers
from benchmarks._report import REPO, _git, cpu_model, emit_json
from benchmarks._tmux import TmuxError, TmuxServer

PY = str(REPO / ".venv" / "bin" / "python")
POLL = 0.01


# The screen shows numbers (not dashes, not a "waiting" line, not a placeholder 0%).
def _btop() -> Callable[[str], bool]:
    """btop's first frame shows 0% in every CPU row until its first update: the mark is the
    first screen where CPU 0's row differs from the first one drawn."""
    first: list[str] = []

    def ok(screen: str) -> bool:
        line = next((ln for ln in screen.splitlines() if re.search(r"C0\s.*\d+%", ln)), None)
        if line is None:
            return False
        if not first:
            first.append(line)
            return False
        return line != first[0]

    return ok


def _regex(pattern: str) -> Callable[[], Callable[[str], bool]]:
    return lambda: lambda s: re.search(pattern, s, re.M) is not None


MARKS: dict[str, Callable[[], Callable[[str], bool]]] = {
    # tuitune: CPU 0's row of the grid with its rates (before: "waiting for the second sample")
    "tuitune": _regex(r"^[│|]\s*0[◆*]?\s+\d+(\.\d+)?\s+\d"),
    "htop": _regex(r"\d+\.\d%\]"),  # a CPU meter's percent (its first frame has them)
    "btop": _btop,
    "glances": _regex(r"CPU\s+\d+\.\d%"),
    "network-top": _regex(r"^\s*CPU0\s+\d+"),
    "floor": _regex(r"ticking textual app \d"),  # its first update
}


@dataclass(frozen=True)
class Tool:
    name: str  # a key of MARKS
    label: str  # the command as the tables show it
    argv: list[str]


def tools(p: peers.Peers, iface: str, interval: float) -> list[Tool]:
    """The contenders at one refresh period (seconds)."""
    t = f"{interval:g}"
    out = [
        Tool(
            "tuitune",
            f"tuitune {iface} --interval {t}",
            [PY, str(REPO / "benchmarks" / "_named_threads.py"), iface, "--interval", t],
        )
    ]
    if "htop" in p.paths:
        for tenths in htop_delays(interval):
            out.append(Tool("htop", f"htop -d {tenths}", [p.paths["htop"], "-d", str(tenths)]))
    if "btop" in p.paths:
        ms = int(interval * 1000)
        out.append(Tool("btop", f"btop (update_ms {ms})", [p.paths["btop"], "--utf-force"]))
    if "glances" in p.paths:
        out.append(Tool("glances", f"glances -t {t}", [p.paths["glances"], "-t", t]))
    if "network-top" in p.paths and interval == int(interval):  # -i takes whole seconds
        out.append(Tool("network-top", f"network-top -i {t}", [p.paths["network-top"], "-i", t]))
    return out


def htop_delays(interval: float) -> list[int]:
    """htop's -d for `interval`: it counts tenths of a second, so 4 Hz (2.5 tenths) has none;
    both neighbours run (-d 2 is 5 Hz, -d 3 is 3.3 Hz) and the writer interpolates between
    them in refresh rate. (round(2.5) is 2: one htop at 5 Hz compared unequal work.)"""
    tenths = interval * 10
    if abs(tenths - round(tenths)) < 1e-9:
        return [max(1, round(tenths))]
    return [max(1, math.floor(tenths)), math.ceil(tenths)]


def _tree_ns(pid: int) -> int:
    """Nanoseconds on CPU of pid and its live descendants (schedstat)."""
    return sum(_proc.run_ns(q) for q in (pid, *_proc.descendants(pid)))


def floor_tool(interval: float) -> Tool:
    """Not a contender: the smallest Textual app (one line, tuitune's driver) updated at the
    same rate, so the table shows how much of tuitune's cost Textual itself sets."""
    t = f"{interval:g}"
    argv = [PY, str(REPO / "benchmarks" / "_ticking_app.py"), "--interval", t]
    return Tool("floor", f"Textual floor (1 line every {t} s)", argv)


def env_for(home: Path) -> dict[str, str]:
    return {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
    }


def machine() -> dict[str, object]:
    commit = _git("rev-parse", "--short", "HEAD")
    if commit and _git("status", "--porcelain", "--untracked-files=no", "--", "tuitune"):
        commit += " (uncommitted changes in tuitune/)"
    return {
        "cpu_model": cpu_model(),
        "cpus": os.cpu_count(),
        "kernel": platform.release(),
        "python": platform.python_version(),
        "commit": commit or "unknown",
    }


class Window:
    """Load average and busy CPUs of the whole machine over a window."""

    def __init__(self) -> None:
        self.t0 = time.monotonic()
        self.m0 = _proc.machine_times()
        self.load0 = _proc.loadavg()

    def end(self) -> dict[str, object]:
        wall = time.monotonic() - self.t0
        m1 = _proc.machine_times()
        return {
            "wall_s": round(wall, 2),
            "busy_cpus": round(m1.busy_cpus(self.m0, wall), 3),
            "load_start": self.load0,
            "load_end": _proc.loadavg(),
        }


def start_up(p: peers.Peers, iface: str, repeats: int, warmup: bool) -> dict[str, object]:
    """Seconds from the command to the first screen with numbers, per tool."""
    contenders = tools(p, iface, 1.0)
    home = peers.home(p_scratch(), "start", 1000)
    env = env_for(home)
    server = TmuxServer("start")
    times: dict[str, list[float]] = {t.label: [] for t in contenders}
    failures: dict[str, str] = {}
    win = Window()
    try:
        server.new_session(["sleep", "3600"], env, name="keep")  # the server's own start
        for round_ in range(repeats + (1 if warmup else 0)):
            for i, tool in enumerate(contenders):
                if tool.label in failures:
                    continue
                name = f"s{round_}-{i}"
                t0 = time.perf_counter()
                server.new_session(tool.argv, env, name=name)
                seen, mark = None, MARKS[tool.name]()
                while time.perf_counter() - t0 < 30:
                    if mark(server.capture(name)):
                        seen = time.perf_counter() - t0
                        break
                    time.sleep(POLL)
                server.kill_session(name)
                if seen is None:
                    failures[tool.label] = "no numbers on screen within 30 s"
                elif round_ > 0 or not warmup:
                    times[tool.label].append(round(seen, 3))
                time.sleep(0.2)
    finally:
        server.kill()
    return {"times_s": times, "failures": failures, "window": win.end()}


_SCRATCH = [peers.SCRATCH]  # --scratch


def p_scratch() -> Path:
    return _SCRATCH[0]


def _rss_mb(pid: int) -> float:
    total = 0
    for q in (pid, *_proc.descendants(pid)):
        try:
            for line in Path(f"/proc/{q}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return round(total / 1024, 1)


def _threads(pid: int) -> dict[str, float]:
    """tuitune's CPU seconds by part: tick (sampler + kernel-I/O threads), frame (main)."""
    parts = {"tick": 0.0, "frame": 0.0, "other": 0.0}
    for tid, (comm, cpu) in _proc.thread_cpu(pid).items():
        if tid == pid:
            parts["frame"] += cpu
        elif comm.startswith(("tuitune-sampler", "tuitune-kernel")):
            parts["tick"] += cpu
        else:
            parts["other"] += cpu
    return parts


def _main_thread(pid: int) -> float:
    """CPU seconds of a process's main thread (its drawing, for a Textual app)."""
    return _proc.thread_cpu(pid).get(pid, ("", 0.0))[1]


def observer(
    p: peers.Peers, iface: str, interval: float, seconds: float, warmup: float, repeats: int
) -> dict[str, object]:
    """CPU seconds a second and RSS of each tool, all running together, per window."""
    contenders = [*tools(p, iface, interval), floor_tool(interval)]
    floor_label = contenders[-1].label
    rounds: list[dict[str, object]] = []
    for r in range(repeats):
        servers: dict[str, tuple[TmuxServer, int]] = {}
        home = peers.home(p_scratch(), f"obs-{interval:g}", int(interval * 1000))
        try:
            for tool in contenders:
                server = TmuxServer(f"obs{r}")
                servers[tool.label] = (server, server.new_session(tool.argv, env_for(home)))
            for tool in contenders:
                server, _ = servers[tool.label]
                try:
                    server.wait_for(MARKS[tool.name](), timeout=60)
                except TmuxError:
                    print(f"observer: {tool.label} never showed numbers", file=sys.stderr)
            time.sleep(warmup)
            before = {label: _proc.tree_cpu(pid) for label, (_, pid) in servers.items()}
            ns0 = {label: _tree_ns(pid) for label, (_, pid) in servers.items()}
            # The terminal: each tool's tmux server, its own threads only (its tree is the tool).
            term0 = {label: _proc.run_ns(srv.pid) for label, (srv, _) in servers.items()}
            tuitune_pid = servers[contenders[0].label][1]
            floor_pid = servers[floor_label][1]
            parts0 = _threads(tuitune_pid)
            floor0 = _main_thread(floor_pid)
            win = Window()
            time.sleep(seconds)
            after = {label: _proc.tree_cpu(pid) for label, (_, pid) in servers.items()}
            ns1 = {label: _tree_ns(pid) for label, (_, pid) in servers.items()}
            term1 = {label: _proc.run_ns(srv.pid) for label, (srv, _) in servers.items()}
            parts1 = _threads(tuitune_pid)
            floor1 = _main_thread(floor_pid)
            window = win.end()
            wall = float(window["wall_s"])  # type: ignore[arg-type]
            cpu = {
                label: round(_proc.tree_delta(before[label], after[label]) / wall, 5)
                for label in servers
            }
            rss = {label: _rss_mb(pid) for label, (_, pid) in servers.items()}
            split = {k: round((parts1[k] - parts0.get(k, 0.0)) / wall, 5) for k in parts1}
            # The floor's main thread: the same part of it as tuitune's "frame".
            split["floor_frame"] = round((floor1 - floor0) / wall, 5)
            sched = {label: round((ns1[label] - ns0[label]) / 1e9 / wall, 6) for label in ns0}
            term = {label: round((term1[label] - term0[label]) / 1e9 / wall, 6) for label in ns0}
            rounds.append(
                {
                    "cpu_s_per_s": cpu,
                    "sched_s_per_s": sched,
                    "terminal_s_per_s": term,
                    "rss_mb": rss,
                    "tuitune_parts": split,
                    **window,
                }
            )
        finally:
            for server, _ in servers.values():
                server.kill()
    return {
        "interval_s": interval,
        "tools": [t.label for t in contenders],
        "floor": floor_label,
        "rounds": rounds,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="1 repeat, 5 s windows")
    ap.add_argument("--iface", help="interface tuitune watches (default: the default route's)")
    ap.add_argument("--scratch", type=Path, default=peers.SCRATCH, help="peers and HOMEs")
    ap.add_argument("--no-install", action="store_true", help="use only the peers found")
    ap.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    ap.add_argument(
        "--observer-only", action="store_true", help="skip the start-up timing (no start table)"
    )
    args = ap.parse_args(argv)
    _SCRATCH[0] = args.scratch
    iface = args.iface or _proc.default_route_interface() or "lo"
    p = peers.ensure(args.scratch, install=not args.no_install)
    repeats, seconds, warm = (1, 5.0, 2.0) if args.quick else (3, 30.0, 5.0)
    doc: dict[str, object] = {
        "machine": machine(),
        "quick": args.quick,
        "iface": iface,
        "peers": {"versions": p.versions, "missing": p.missing},
    }
    if not args.observer_only:
        print("start-up...", file=sys.stderr, flush=True)
        doc["start"] = start_up(p, iface, 1 if args.quick else 5, warmup=not args.quick)
    doc["observer"] = []
    for interval in (1.0, 0.25):
        print(f"observer at {interval:g} s...", file=sys.stderr, flush=True)
        obs = observer(p, iface, interval, seconds, warm, repeats)
        doc["observer"].append(obs)  # type: ignore[attr-defined]
    emit_json(doc, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
