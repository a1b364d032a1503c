"""What tuitune's resident memory is: the live screen on this machine, headless, after two
samples (the first frame with numbers), taken apart by package; and the real command in a
terminal. Prints one JSON document.

Three kinds of child process, so tracing does not inflate the sizes it reports:

* plain: VmRSS after `import tuitune.tui.app` and after the app has drawn two samples
  (Textual's headless driver, 200x60, read only, the default route's interface), with USS
  (the process's own pages: Private_Clean + Private_Dirty of /proc/PID/smaps_rollup);
* traced (tracemalloc from the first line, before any import): the Python heap still
  allocated at that point, grouped by the package of the file that allocated it (the
  innermost frame), and how many modules each top-level package brought in;
* terminal: `tuitune IFACE` itself in a private tmux pane of 200x60 (issue 38, goal 3: a
  small host's screen after its first frame), read from outside through /proc/PID/status and
  smaps_rollup when every CPU's row is on screen, and again SETTLE seconds later (the
  Advisor's rules and the platform's note load from the fifth sample on); beside it the
  smallest Textual app (benchmarks/_minimal_app.py) in the same kind of pane: the floor.
  HOME is a new empty directory: no settings file is read or written.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_memory [--out FILE]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PY = str(REPO / ".venv" / "bin" / "python")

CHILD = r"""
import sys, json, os
TRACE = sys.argv[1] == "traced"
if TRACE:
    import tracemalloc
    tracemalloc.start(1)

def rss_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

def uss_mb():
    kb = 0
    for line in open("/proc/self/smaps_rollup"):
        if line.startswith(("Private_Clean:", "Private_Dirty:")):
            kb += int(line.split()[1])
    return kb / 1024

out = {"rss_start_mb": rss_mb()}
import tuitune.tui.app as A  # before asyncio, as the command imports them (tui/notls.py)
import asyncio
out["rss_imported_mb"] = rss_mb()
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

async def run():
    reader = HostReader(HostRoot())
    app = A.TuituneApp(reader, sys.argv[2], save_settings=False, editable=False,
                       env={"TERM": "xterm-256color", "LANG": "C.UTF-8"})
    async with app.run_test(size=(200, 60)) as pilot:
        for _ in range(1500):
            if app.samples_drawn >= 2:
                break
            await pilot.pause(0.02)
        out["samples_drawn"] = app.samples_drawn
        out["rss_drawn_mb"] = rss_mb()
        out["uss_drawn_mb"] = uss_mb()
        if TRACE:
            snap = tracemalloc.take_snapshot()
            by = {}
            for stat in snap.statistics("filename"):
                name = stat.traceback[0].filename
                pkg = "other"
                for marker in ("/site-packages/", "/tuitune/"):
                    if marker in name:
                        rest = name.split(marker, 1)[1].split("/")
                        if marker == "/tuitune/":
                            pkg = "tuitune." + (rest[0].removesuffix(".py") if rest else "")
                        else:
                            pkg = rest[0].removesuffix(".py")
                        break
                else:
                    if "/lib/python3" in name:
                        pkg = "stdlib"
                    elif name.startswith("<frozen"):
                        pkg = "stdlib (frozen)"
                by[pkg] = by.get(pkg, 0) + stat.size
            big = sorted(by.items(), key=lambda kv: -kv[1])
            out["traced_kb"] = {k: round(v / 1024) for k, v in big}
            mods = {}
            for m in list(sys.modules):
                top = m.split(".")[0]
                if top == "tuitune":
                    top = ".".join(m.split(".")[:3])
                mods[top] = mods.get(top, 0) + 1
            out["modules"] = dict(sorted(mods.items(), key=lambda kv: -kv[1])[:25])
            out["modules_total"] = len(sys.modules)
        # Measured: print and leave without the app's teardown (not what is measured).
        print(json.dumps(out), flush=True)
        os._exit(0)

asyncio.run(run())
"""


def child(mode: str, iface: str) -> dict[str, object]:
    done = subprocess.run(
        [PY, "-c", CHILD, mode, iface], capture_output=True, text=True, timeout=600, cwd=REPO
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip()[-500:]}
    got: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return got


SETTLE = 10.0  # seconds after the first frame: the Advisor and the platform note have loaded
# ...and once it holds: Textual's caches and the garbage between two collections (its strips
# cache themselves, reference cycles) grow the small host's RSS by ~2 MB over the first ~70 s.
STEADY = 90.0


def proc_memory(pid: int) -> dict[str, float]:
    """MB of a process seen from outside: VmRSS, RssAnon, RssFile (/proc/PID/status), and
    USS and PSS (/proc/PID/smaps_rollup)."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile"):
                out[key] = int(value.split()[0]) / 1024
    private = 0
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in ("Private_Clean", "Private_Dirty"):
                private += int(value.split()[0])
            elif key == "Pss":
                out["PSS"] = int(value.split()[0]) / 1024
    out["USS"] = private / 1024
    return {k: round(v, 1) for k, v in out.items()}


def terminal(iface: str) -> dict[str, object]:
    """The real command and the minimal Textual app, each in its own 200x60 tmux pane."""
    import os
    import tempfile
    import time

    from benchmarks._minimal_app import TEXT as MINIMAL_TEXT
    from benchmarks._proc import loadavg
    from benchmarks._tmux import TmuxError, TmuxServer
    from benchmarks.bench_observer import tuitune_ready

    home = tempfile.mkdtemp(prefix="tt-bench-memory-")
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "HOME": home, "PATH": os.environ["PATH"]}
    out: dict[str, object] = {"load_before": loadavg()}
    server = TmuxServer("memory")
    try:
        pid = server.new_session([str(REPO / ".venv" / "bin" / "tuitune"), iface], env, "tt")
        server.wait_for(tuitune_ready(os.cpu_count() or 1), "tt", timeout=60)
        out["first_frame"] = proc_memory(pid)
        time.sleep(SETTLE)
        out[f"after_{SETTLE:.0f}s"] = proc_memory(pid)
        time.sleep(STEADY - SETTLE)
        out[f"after_{STEADY:.0f}s"] = proc_memory(pid)
        server.send_keys("tt", "q")
        server.wait_gone(pid)
        floor_env = {**env, "PYTHONPATH": str(REPO)}
        pid = server.new_session([PY, str(REPO / "benchmarks" / "_minimal_app.py")], floor_env, "m")
        server.wait_for(lambda screen: MINIMAL_TEXT in screen, "m", timeout=60)
        out["minimal_app"] = proc_memory(pid)
        server.send_keys("m", "q")
        server.wait_gone(pid)
    except (TmuxError, OSError) as exc:
        out["error"] = str(exc)
    finally:
        server.kill()
    out["load_after"] = loadavg()
    return out


def main(argv: list[str] | None = None) -> int:
    if __package__ in (None, ""):
        sys.path.insert(0, str(REPO))
    from benchmarks._proc import default_route_interface
    from benchmarks._report import emit_json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iface", help="interface (default: the default route's)")
    ap.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    args = ap.parse_args(argv)
    iface = args.iface or default_route_interface() or "lo"
    doc = {
        "iface": iface,
        "plain": child("plain", iface),
        "traced": child("traced", iface),
        "terminal": terminal(iface),
    }
    emit_json(doc, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
