"""Start-up: command to first full frame, tuitune against a minimal Textual app, same run.

Each launch runs in a new session of one private tmux server (a 200x60 pane; the server is
started once, before the first launch, so its own start is not counted). The clock starts
just before `tmux new-session` and the pane is read with `capture-pane` every 10 ms until:

* minimal app (benchmarks/_minimal_app.py, one Static): its text is on screen;
* tuitune, first paint: the header and the panel borders are on screen (the CPU grid still
  says it waits for the second sample);
* tuitune, first full frame: the CPU grid has a row for every CPU of this machine. The grid
  shows rates, so it needs two samples, one --interval apart: with the default 1 s that
  wait is part of the figure, and a run with --interval 0.1 shows the rest.

Launches of the contenders alternate, so machine noise falls on all of them alike; the first
launch of each is a warm-up (page cache, bytecode) and is not counted. CPU seconds to the
mark are utime+stime of the process (/proc/PID/stat) when the mark was seen. tuitune reads
this machine's default-route interface (eth0 here), read only.

Run from the repository root::

    .venv/bin/python benchmarks/bench_start.py [--repeats 7] [--seconds 120]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _proc
from benchmarks._minimal_app import TEXT as MINIMAL_TEXT
from benchmarks._report import machine_lines
from benchmarks._tmux import TmuxError, TmuxServer
from benchmarks.bench_observer import cpu_rows

REPO = Path(__file__).resolve().parent.parent
PYTHON = str(REPO / ".venv" / "bin" / "python")
TUITUNE = str(REPO / ".venv" / "bin" / "tuitune")
POLL = 0.01


@dataclass
class Contender:
    name: str
    command: list[str]
    marks: dict[str, Callable[[str], bool]]  # mark -> the screen shows it
    times: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)


def first_paint(screen: str) -> bool:
    # The panels' borders and titles, before any sample is drawn (the grid then says
    # "waiting for the second sample...").
    return "CPUs" in screen and "IRQs" in screen and "sysctls" in screen


def full_frame(ncpus: int) -> Callable[[str], bool]:
    return lambda s: cpu_rows(s)[:ncpus] == [str(c) for c in range(ncpus)]


def launch(server: TmuxServer, name: str, c: Contender, env: dict[str, str]) -> None:
    """One start: seconds (and CPU seconds) from new-session to each mark."""
    t0 = time.perf_counter()
    pid = server.new_session(c.command, env, name=name)
    todo = dict(c.marks)
    seen: dict[str, tuple[float, float]] = {}
    screen = ""
    while todo:
        screen = server.capture(name)
        now = time.perf_counter() - t0
        for mark, ok in list(todo.items()):
            if ok(screen):
                st = _proc.read_stat(pid)
                seen[mark] = (now, st.cpu if st else float("nan"))
                del todo[mark]
        if todo and now > 60:
            raise TmuxError(f"{c.name}: no {next(iter(todo))} in 60 s; screen:\n{screen}")
        time.sleep(POLL)
    for mark, (t, cpu) in seen.items():
        c.times.setdefault(mark, []).append(t)
        c.cpu.setdefault(mark, []).append(cpu)
    server.send_keys(name, "q")
    if not server.wait_gone(pid):
        raise TmuxError(f"{c.name}: still running 10 s after q")
    server.kill_session(name)


def table(contenders: Sequence[Contender], ref: tuple[str, str]) -> list[str]:
    base = statistics.median(next(c for c in contenders if c.name == ref[0]).times[ref[1]])
    lines = [
        "| command | mark | median s | min s | max s | / minimal app | CPU s to the mark "
        "(median) | launches |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    for c in contenders:
        for mark in c.marks:
            ts = c.times[mark]
            med = statistics.median(ts)
            lines.append(
                f"| `{c.name}` | {mark} | {med:.3f} | {min(ts):.3f} | {max(ts):.3f} "
                f"| {med / base:.2f} | {statistics.median(c.cpu[mark]):.2f} | {len(ts)} |"
            )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeats", type=int, default=7, help="counted launches of each (7)")
    ap.add_argument("--seconds", type=float, default=300.0, help="stop launching after this")
    ap.add_argument("--iface", help="interface tuitune watches (default: the default route's)")
    ap.add_argument("--size", default="200x60", help="terminal size (default 200x60)")
    args = ap.parse_args(argv)
    width, height = (int(x) for x in args.size.split("x"))
    iface = args.iface or _proc.default_route_interface()
    if iface is None:
        ap.error("no default route: pass --iface")
    ncpus = os.cpu_count() or 1

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    minimal = Contender(
        "python benchmarks/_minimal_app.py",
        [PYTHON, str(REPO / "benchmarks" / "_minimal_app.py")],
        {"first frame": lambda s: MINIMAL_TEXT in s},
    )
    contenders = [
        minimal,
        Contender(
            f"tuitune {iface}",
            [TUITUNE, iface],
            {"first paint": first_paint, "first full frame (CPU grid)": full_frame(ncpus)},
        ),
        Contender(
            f"tuitune {iface} --interval 0.1",
            [TUITUNE, iface, "--interval", "0.1"],
            {"first paint": first_paint, "first full frame (CPU grid)": full_frame(ncpus)},
        ),
    ]
    home = tempfile.mkdtemp(prefix="tt-bench-home-")
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": home, "XDG_CONFIG_HOME": home}
    server = TmuxServer("start", width, height)
    started = time.perf_counter()
    n = 0
    try:
        server.new_session(["sleep", "100000"], env, name="hold")  # the server, started once
        for rep in range(args.repeats + 1):
            for c in contenders:
                n += 1
                launch(server, f"run{n}", c, env)
                if rep == 0:  # warm-up: forget it
                    c.times.clear()
                    c.cpu.clear()
            say(f"round {rep} done" + (" (warm-up)" if rep == 0 else ""))
            if rep >= 3 and time.perf_counter() - started > args.seconds:
                say("time budget reached")
                break
    except TmuxError as exc:
        say(f"failed: {exc}")
        return 1
    finally:
        server.kill()
        shutil.rmtree(home, ignore_errors=True)
    tuitune = contenders[1]
    full = statistics.median(tuitune.times["first full frame (CPU grid)"])
    paint = statistics.median(tuitune.times["first paint"])
    mini = statistics.median(minimal.times["first frame"])
    out = [
        "## Start-up: command to first full frame",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_start.py --repeats {args.repeats}`",
        "",
        *machine_lines(),
        f"- terminal: one tmux server, a new {args.size} session per launch; screen polled "
        f"every {POLL * 1000:.0f} ms",
        "",
        *table(contenders, (minimal.name, "first frame")),
        "",
        f"tuitune's first full frame takes {full / mini:.1f}x the minimal app's first frame "
        f"({full:.2f} s against {mini:.2f} s); its first paint {paint / mini:.1f}x "
        f"({paint:.2f} s). Wall time {time.perf_counter() - started:.0f} s.",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
