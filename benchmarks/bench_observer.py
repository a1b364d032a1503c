"""Observer cost: tuitune live at 1 Hz beside `htop -d 10` and `mpstat -P ALL -I ALL 1`.

The three tools (and a fourth pane, below) run at the same time, each in its own tmux server
(-L) with a 200x60 pane, so they see the same host over the same window. Before they start, the
machine's own load is measured for --idle seconds (the baseline). Once every tool has drawn its
first frame and a warm-up has passed, each tool's whole-process CPU time is read from
/proc/PID/stat (utime+stime of all threads, plus cutime+cstime of reaped children, plus live
descendants) at the start and at the end of a --seconds window; CPU seconds per second is the
difference over the wall time. The tmux server that draws each tool's output is measured the
same way and shown apart: it is the terminal's share, paid for each byte the tool writes (wchar
of /proc/PID/io). tuitune's threads are listed one by one (tuitune runs through
benchmarks/_named_threads.py, which only gives each OS thread its Python name; --plain runs
.venv/bin/tuitune itself). A fourth pane runs tuitune paused with `p`: not a contender, the
app's cost at rest. A fifth runs benchmarks/_ticking_app.py, the smallest Textual app that
changes one line a second: the framework's floor for any 1 Hz Textual monitor.

tuitune watches the interface of the default route (eth0 here) and only reads: the
benchmark writes nothing to the kernel. Each tool gets a private HOME and XDG_CONFIG_HOME so
htop's rc file and tuitune's config land in a temporary directory.

Run from the repository root::

    .venv/bin/python benchmarks/bench_observer.py [--seconds 60] [--idle 10] [--warmup 5]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import _proc
from benchmarks._report import machine_lines
from benchmarks._tmux import TmuxError, TmuxServer

REPO = Path(__file__).resolve().parent.parent
TUITUNE = str(REPO / ".venv" / "bin" / "tuitune")
PYTHON = str(REPO / ".venv" / "bin" / "python")


def cpu_rows(screen: str) -> list[str]:
    """CPU numbers of the grid rows tuitune shows (same reading as tests/kernel/test_tui_tmux)."""
    rows = []
    for line in screen.splitlines():
        cells = line.strip("│ |").split()
        if cells and cells[0].rstrip("◆*").isdigit() and len(cells) >= 6:
            rows.append(cells[0].rstrip("◆*"))
    return rows


def _paused(screen: str) -> bool:
    return "PAUSED" in screen


def tuitune_ready(ncpus: int) -> Callable[[str], bool]:
    return lambda s: cpu_rows(s)[:ncpus] == [str(c) for c in range(ncpus)]


@dataclass
class Tool:
    name: str
    command: list[str]
    ready: Callable[[str], bool]  # the first full frame is on screen
    keys: tuple[str, ...] = ()  # sent after the first full frame...
    then: Callable[[str], bool] | None = None  # ...and this screen awaited
    server: TmuxServer | None = None
    pid: int = 0
    tmux_pid: int = 0
    started: float = 0.0
    first_frame_s: float = 0.0
    cpu_to_first_frame: float = 0.0
    before: dict[int, float] = field(default_factory=dict)
    after: dict[int, float] = field(default_factory=dict)
    tmux_before: float = 0.0
    tmux_after: float = 0.0
    io_before: tuple[int, int] = (0, 0)
    io_after: tuple[int, int] = (0, 0)
    ns_before: int = 0
    ns_after: int = 0
    threads_before: dict[int, tuple[str, float]] = field(default_factory=dict)
    threads_after: dict[int, tuple[str, float]] = field(default_factory=dict)
    rss_kb: int = 0
    nthreads: int = 0
    last_screen: str = ""
    died: str | None = None

    def cpu(self) -> float:
        return _proc.tree_delta(self.before, self.after)

    def tmux_cpu(self) -> float:
        return self.tmux_after - self.tmux_before


def read_tool(tool: Tool) -> tuple[dict[int, float], float, tuple[int, int], int]:
    server = _proc.read_stat(tool.tmux_pid)
    tree = _proc.tree_cpu(tool.pid)
    return (
        tree,
        server.total if server else 0.0,
        _proc.io_bytes(tool.pid),
        sum(_proc.run_ns(p) for p in tree),
    )


def start_tool(tool: Tool, env: dict[str, str], width: int, height: int) -> None:
    tool.server = TmuxServer(re.sub(r"\W+", "-", tool.name).strip("-"), width, height)
    tool.started = time.monotonic()
    tool.pid = tool.server.new_session(tool.command, env)
    tool.tmux_pid = tool.server.server_pid()


def wait_first_frames(tools: Sequence[Tool], timeout: float) -> None:
    """Poll every pane in turn until each shows its first full frame."""
    deadline = time.monotonic() + timeout
    waiting = list(tools)
    while waiting:
        for tool in list(waiting):
            assert tool.server is not None
            tool.last_screen = tool.server.capture()
            if tool.ready(tool.last_screen):
                tool.first_frame_s = time.monotonic() - tool.started
                tool.cpu_to_first_frame = sum(_proc.tree_cpu(tool.pid).values())
                waiting.remove(tool)
                if tool.keys:
                    tool.server.send_keys("main", *tool.keys)
                if tool.then is not None:
                    tool.last_screen = tool.server.wait_for(tool.then, timeout=timeout)
        if waiting and time.monotonic() > deadline:
            raise TmuxError(
                f"{waiting[0].name}: no full frame in {timeout:g} s; last screen:\n"
                + waiting[0].last_screen
            )
        time.sleep(0.05)


def label(t: Tool) -> str:
    if t.name.startswith("tuitune"):
        args = t.command[2:] if t.command[0] == PYTHON else t.command[1:]
        cmd = f"`tuitune {' '.join(args)}`"
        return cmd + (" (paused with p: the app at rest)" if t.keys else "")
    return f"`{t.name}`"


def fmt_ratio(x: float, ref: float) -> str:
    return f"{x / ref:.2f}" if ref > 0 else "n/a"


def report(
    tools: Sequence[Tool],
    wall: float,
    idle: tuple[float, float, str],
    during: tuple[float, float, str],
    args: argparse.Namespace,
    iface: str,
) -> list[str]:
    ref = next((t.cpu() / wall for t in tools if t.name.startswith("htop")), 0.0)
    lines = [
        "| tool | CPU s/s (whole process) | % of one CPU | / htop | schedstat CPU s/s "
        "| tmux server CPU s/s "
        "| tool + tmux, / htop + tmux | written KB/s | read KB/s | RSS MB | threads "
        "| first full frame s | CPU s to first full frame |",
        "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    htop = next((t for t in tools if t.name.startswith("htop")), None)
    ref_both = (htop.cpu() + htop.tmux_cpu()) / wall if htop else 0.0
    for t in tools:
        cps = t.cpu() / wall
        rchar = (t.io_after[0] - t.io_before[0]) / wall / 1024
        wchar = (t.io_after[1] - t.io_before[1]) / wall / 1024
        both = (t.cpu() + t.tmux_cpu()) / wall
        lines.append(
            f"| {label(t)} "
            f"| {cps:.4f} | {cps:.2%} | {fmt_ratio(cps, ref)} "
            f"| {(t.ns_after - t.ns_before) / 1e9 / wall:.5f} | {t.tmux_cpu() / wall:.4f} "
            f"| {fmt_ratio(both, ref_both)} | {wchar:.1f} | {rchar:.1f} | {t.rss_kb / 1024:.1f} "
            f"| {t.nthreads} | {t.first_frame_s:.2f} | {t.cpu_to_first_frame:.2f} |"
        )
    out = [
        "## Observer cost: tuitune, htop and mpstat side by side",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_observer.py --seconds {args.seconds:g} "
        f"--idle {args.idle:g} --warmup {args.warmup:g}`",
        "",
        *machine_lines(),
        f"- terminal: one tmux server (-L, no config) per tool, pane {args.size}",
        f"- watched interface: {iface} (read only)",
        "- tuitune run as "
        + (
            "`.venv/bin/tuitune` itself"
            if args.plain
            else "`python benchmarks/_named_threads.py` (tuitune.cli.main, threads named for "
            "the table below)"
        ),
        "",
        *lines,
        "",
        f"Window: {wall:.1f} s, all tools running. CPU s/s = (utime+stime+cutime+cstime of the "
        "pane's process and its descendants at the end - at the start) / wall seconds; "
        f"{_proc.CLK_TCK} ticks per second, so one tick is "
        f"{1 / _proc.CLK_TCK / wall:.5f} CPU s/s here. The schedstat column sums "
        "/proc/PID/task/*/schedstat (nanoseconds on CPU, live threads only): a finer "
        "cross-check for tools below a tick per second.",
        "",
        "| machine (all CPUs, /proc/stat) | busy CPUs (average) | steal | load average |",
        "|---|--:|--:|--:|",
        f"| idle baseline, {args.idle:g} s before the tools started | {idle[0]:.3f} "
        f"| {idle[1]:.1%} | {idle[2]} |",
        f"| during the window, all tools running | {during[0]:.3f} | {during[1]:.1%} "
        f"| {during[2]} |",
    ]
    tt = next((t for t in tools if t.name == "tuitune"), None)
    if tt is not None:
        out += [
            "",
            "tuitune's threads over the window. The main thread runs asyncio, Textual and the "
            "app (drawing); tuitune-kernel_0 does every read of /proc, /sys and netlink; "
            "tuitune-sampler computes the rates; textual-input reads keys, textual-output "
            "writes to the terminal:",
            "",
            "| tid | comm | CPU s | CPU s/s |",
            "|--:|---|--:|--:|",
        ]
        for tid, (comm, after) in sorted(tt.threads_after.items()):
            before = tt.threads_before.get(tid, (comm, 0.0))[1]
            main = " (main)" if tid == tt.pid else ""
            out.append(
                f"| {tid}{main} | {comm} | {after - before:.2f} | {(after - before) / wall:.4f} |"
            )
        gone = sum(v for _, v in tt.threads_before.values()) - sum(
            tt.threads_before[t][1] for t in tt.threads_after if t in tt.threads_before
        )
        if gone:
            out.append(f"| (threads that ended) | | {gone:.2f} before the end | |")
    for t in tools:
        if t.died:
            out += ["", f"**{t.name} ended early**: {t.died}"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0, help="measured window (default 60)")
    ap.add_argument("--idle", type=float, default=10.0, help="idle baseline before (default 10)")
    ap.add_argument("--warmup", type=float, default=5.0, help="after the first frames (default 5)")
    ap.add_argument("--iface", help="interface tuitune watches (default: the default route's)")
    ap.add_argument("--size", default="200x60", help="terminal size (default 200x60)")
    ap.add_argument(
        "--plain",
        action="store_true",
        help="run .venv/bin/tuitune itself, not through _named_threads.py (threads unnamed)",
    )
    ap.add_argument(
        "--no-paused", action="store_true", help="skip the 4th pane: tuitune paused with p"
    )
    ap.add_argument(
        "--no-floor",
        action="store_true",
        help="skip the 5th pane: the smallest Textual app updating one line each second",
    )
    ap.add_argument("--screens", type=Path, help="save each tool's last screen in this dir")
    args = ap.parse_args(argv)
    width, height = (int(x) for x in args.size.split("x"))
    iface = args.iface or _proc.default_route_interface()
    if iface is None:
        ap.error("no default route: pass --iface")
    for exe in ("tmux", "htop", "mpstat"):
        if shutil.which(exe) is None:
            ap.error(f"{exe} is not installed")

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    ncpus = os.cpu_count() or 1
    tuitune = [TUITUNE, iface, "--interval", "1"]
    if not args.plain:
        tuitune = [PYTHON, str(REPO / "benchmarks" / "_named_threads.py"), *tuitune[1:]]
    tools = [
        Tool("tuitune", tuitune, tuitune_ready(ncpus)),
        Tool("htop -d 10", ["htop", "-d", "10"], lambda s: "Load average" in s),
        Tool(
            "mpstat -P ALL -I ALL 1",
            ["mpstat", "-P", "ALL", "-I", "ALL", "1"],
            lambda s: "intr/s" in s and "NET_RX/s" in s,  # a whole second's blocks
        ),
    ]
    if not args.no_paused:
        # Not a contender: tuitune with sampling paused shows what the app costs at rest.
        paused = Tool("tuitune, paused", tuitune, tuitune_ready(ncpus), ("p",), _paused)
        tools.append(paused)
    if not args.no_floor:
        # Not a contender either: the smallest Textual app that changes a line each second.
        floor = [PYTHON, str(REPO / "benchmarks" / "_ticking_app.py")]
        tools.append(Tool("textual floor (1 line at 1 Hz)", floor, lambda s: "ticking" in s))
    say(f"idle baseline: {args.idle:g} s")
    t0, m0, la0 = time.monotonic(), _proc.machine_times(), _proc.loadavg()
    time.sleep(args.idle)
    m1, t1 = _proc.machine_times(), time.monotonic()
    idle = (m1.busy_cpus(m0, t1 - t0), m1.steal_share(m0), f"{la0} / {_proc.loadavg()}")
    home = tempfile.mkdtemp(prefix="tt-bench-home-")
    env = {
        "TERM": "xterm-256color",
        "LANG": "C.UTF-8",
        "HOME": home,
        "XDG_CONFIG_HOME": home,
        "S_COLORS": "never",  # mpstat: plain text, like a pipe
    }
    try:
        for tool in tools:
            start_tool(tool, env, width, height)
        wait_first_frames(tools, timeout=60)
        for tool in tools:
            say(f"{tool.name}: first full frame after {tool.first_frame_s:.2f} s")
        time.sleep(args.warmup)
        say(f"measuring {args.seconds:g} s")
        m0, la0 = _proc.machine_times(), _proc.loadavg()
        start = time.monotonic()
        for tool in tools:
            tool.before, tool.tmux_before, tool.io_before, tool.ns_before = read_tool(tool)
            tool.threads_before = _proc.thread_cpu(tool.pid)
        end = start + args.seconds
        while (now := time.monotonic()) < end:
            time.sleep(min(5.0, end - now))
            for tool in tools:
                if tool.died is None and _proc.read_stat(tool.pid) is None:
                    tool.died = f"pid {tool.pid} gone {time.monotonic() - start:.0f} s in"
        for tool in tools:
            tool.after, tool.tmux_after, tool.io_after, tool.ns_after = read_tool(tool)
            tool.threads_after = _proc.thread_cpu(tool.pid)
            st = _proc.read_stat(tool.pid)
            tool.rss_kb, tool.nthreads = (st.rss_kb, st.threads) if st else (0, 0)
        wall = time.monotonic() - start
        m1 = _proc.machine_times()
        during = (m1.busy_cpus(m0, wall), m1.steal_share(m0), f"{la0} / {_proc.loadavg()}")
        for tool in tools:
            assert tool.server is not None
            tool.last_screen = tool.server.capture()
            if tool.died is None and not tool.ready(tool.last_screen):
                tool.died = "its screen no longer shows a full frame"
            if args.screens is not None:
                args.screens.mkdir(parents=True, exist_ok=True)
                name = re.sub(r"\W+", "-", tool.name).strip("-") + ".txt"
                (args.screens / name).write_text(tool.last_screen)
    except TmuxError as exc:
        say(f"failed: {exc}")
        return 1
    finally:
        for tool in tools:
            if tool.server is not None:
                tool.server.kill()
        shutil.rmtree(home, ignore_errors=True)
    print("\n".join(report(tools, wall, idle, during, args, iface)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
