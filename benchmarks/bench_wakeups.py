"""Wake-ups and memory of the live screen idle at 1 Hz, in a real terminal (issue 38 goals 2
and 3): `tuitune IFACE` in a private tmux server at 200x60, each Python thread named
(benchmarks/_named_threads.py); RSS and RssAnon once the first frame with numbers is on screen
(plus 2 s, past the second sample); then each thread's voluntary context switches per second
over SECONDS (/proc/PID/task/TID/status), the main thread's CPU from /proc/PID/schedstat
(nanoseconds), and the load average. Prints one JSON document.

A voluntary switch is a wait: for the next tick, for the kernel thread's answer, for the GIL.
Compare trees in the same window (old, new, old, new) on a loaded machine.

Run from the repository root: ``.venv/bin/python -m benchmarks.bench_wakeups [--tree DIR]
[--iface lo] [--seconds 60] [--out FILE]``; --tree runs that checkout's code with its .venv.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _status(path: str) -> dict[str, str]:
    out: dict[str, str] = {}
    try:
        with open(path) as f:
            for line in f:
                key, _, value = line.partition(":")
                out[key] = value.strip()
    except OSError:
        pass
    return out


def _threads(pid: int) -> dict[str, tuple[str, int]]:
    got: dict[str, tuple[str, int]] = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        st = _status(f"/proc/{pid}/task/{tid}/status")
        got[tid] = (st.get("Name", "?"), int(st.get("voluntary_ctxt_switches", "0")))
    return got


def measure(tree: Path, iface: str, seconds: float) -> dict[str, object]:
    from benchmarks._tmux import TmuxServer

    cfg = Path(f"/tmp/tt-bench-wake-{os.getpid()}")
    cfg.mkdir(mode=0o700, exist_ok=True)
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(cfg)}
    env["PYTHONPATH"] = str(tree)
    server = TmuxServer("wake", 200, 60)
    python = str(tree / ".venv" / "bin" / "python")
    start = time.monotonic()
    pid = server.new_session(["sh", "-c", f"cd {tree} && exec {python} -m "
                              f"benchmarks._named_threads {iface}"], env)  # fmt: skip
    try:
        while time.monotonic() - start < 60:
            shown = server.run("capture-pane", "-p", "-t", "main")
            if iface in shown and "%" in shown and "CPU" in shown:
                break
            time.sleep(0.05)
        out: dict[str, object] = {"first_frame_s": round(time.monotonic() - start, 2)}
        time.sleep(2.0)
        st = _status(f"/proc/{pid}/status")
        out["rss_mb"] = round(int(st["VmRSS"].split()[0]) / 1024, 1)
        out["rss_anon_mb"] = round(int(st["RssAnon"].split()[0]) / 1024, 1)
        before = _threads(pid)
        with open(f"/proc/{pid}/schedstat") as f:
            cpu0 = int(f.read().split()[0])
        time.sleep(seconds)
        after = _threads(pid)
        with open(f"/proc/{pid}/schedstat") as f:
            cpu1 = int(f.read().split()[0])
        per = {
            f"{name}/{tid}": round((n - before.get(tid, (name, 0))[1]) / seconds, 2)
            for tid, (name, n) in after.items()
        }
        out["voluntary_switches_per_s"] = per
        out["voluntary_switches_total_per_s"] = round(sum(per.values()), 2)
        out["main_thread_cpu_ms_per_s"] = round((cpu1 - cpu0) / 1e6 / seconds, 2)
        with open("/proc/loadavg") as f:
            out["load"] = f.read().split()[:3]
        return out
    finally:
        server.kill()


def main(argv: list[str] | None = None) -> int:
    if __package__ in (None, ""):
        sys.path.insert(0, str(REPO))
    from benchmarks._report import emit_json

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", type=Path, default=REPO, help="checkout to run (its .venv)")
    ap.add_argument("--iface", default="lo")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    args = ap.parse_args(argv)
    doc = {"tree": str(args.tree), "iface": args.iface, **measure(args.tree, args.iface,
                                                                   args.seconds)}  # fmt: skip
    emit_json(doc, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
