"""The recorded 1152-CPU host (tests/support/fixture_big.py) in the real app at 200x60: what a
tick costs the main thread, the Advisor's window, the keys, the process's memory, and the
frame's cost per added CPU (the same pegged host at 32 to 1152 CPUs, `SLOPE_FACTORS`: the
smallest this fixture scales to is 32; a 2-CPU host's frame is in bench_frame's tables).

The app runs under Textual's App.run_test (the headless driver) on a ReplayReader of the
tree, as `tuitune --root` reads one (the whole /proc/interrupts every tick). Once the sampler
has delivered its samples, the last two are handed to the screen in turn, again and again:

* frame: CPU time of the process (time.process_time; the sampler has stopped) from a sample
  handed to the screen to the end of the screen refresh after it: the presenters, Textual's
  compositor and the headless driver's output. Median and worst over the ticks.
* advisor window: `window_of` over the delivered samples, computed from the counters (as
  before issue 38) and with the sampler's own rates for each step (the Advisor's way now).
* keys: CPU time from a key press to the end of the refresh after it (v, o, PgDn, Down, /,
  7 typed in the filter box, Esc in the CPU panel; a in the IRQ panel; p, pause and resume).
* the collector: as the tuitune command sets it once started (core/gcpolicy.py);
* memory: VmRSS and USS (smaps_rollup Private_*) of this process after the frames: the
  benchmark's own code and the fixture's builder are in it too, so it is an upper bound.

    .venv/bin/python -m benchmarks.bench_bighost [--quick]   (Markdown on stdout)
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._proc import loadavg
from benchmarks._tmux import TmuxServer
from tests.support.fixture_big import host_1152cpu
from tests.support.fixture_hosts import SHARED_FIXTURES, ReplayReader, igb_ethtool, pegged_tree
from tuitune.core.advise.window import window_of
from tuitune.core.watch.sampler import Sample
from tuitune.tui.app import TuituneApp
from tuitune.tui.controllers.advisor import known_step, usable

SIZE = (200, 60)
ENV = {"TERM": "xterm-256color", "LANG": "C.UTF-8"}
SAMPLES = 4
# v and o act in the CPU panel (1), a in the IRQ panel (2): each key where it does something.
# down scrolls by a row, 7 is typed into the filter box `/` opened (cpu7, cpu17..., node7),
# p pauses and resumes: the keys issue 38 names beside the panels' own.
KEYS = (
    "v", "v", "v", "o", "o", "o", "o", "pagedown", "down", "down",
    "slash", "7", "escape", "2", "a", "a", "1", "p", "p",
)  # fmt: skip


def memory(pid: int | str = "self") -> tuple[float, float]:
    """(RSS, USS) of a process (this one by default) in MB."""
    status = Path(f"/proc/{pid}/status").read_text()
    rss = next(int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("VmRSS:"))
    uss = 0
    for ln in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if ln.startswith(("Private_Clean:", "Private_Dirty:")):
            uss += int(ln.split()[1])
    return rss / 1024, uss / 1024


def keeping_app(
    reader: ReplayReader, ifname: str
) -> tuple[TuituneApp, list[Sample], Callable[[Sample], Any]]:
    """The app on `reader`, every sample it takes also kept in the list, and its own take."""
    app = TuituneApp(
        reader, ifname, interval=0.05, env=ENV, limit=SAMPLES, show_cost=False, save_settings=False
    )
    # As the tuitune command sets it (core/gcpolicy.py once started): without it the default
    # collector's full passes over this host's large heap landed in the keys' figures.
    app.settle_gc = True
    got: list[Sample] = []
    take = app.view.take

    def keep(s: Sample) -> None:
        got.append(s)
        take(s)

    app.view.take = keep  # type: ignore[method-assign,assignment]
    return app, got, take


async def measure(tmp: Path, rows: int | None, ticks: int) -> dict[str, Any]:
    reader, ifname = host_1152cpu(tmp, samples=SAMPLES, rows=rows)
    app, got, take = keeping_app(reader, ifname)
    out: dict[str, Any] = {}
    async with app.run_test(size=SIZE) as pilot:
        t0 = time.monotonic()
        while app.samples_drawn < SAMPLES and time.monotonic() - t0 < 300:
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        with_rates = [s for s in got if s.rates is not None and s.counters is not None]
        a, b = with_rates[-2], with_rates[-1]

        async def refreshed(action: Callable[[], Any]) -> float:
            done = asyncio.Event()
            c0 = time.process_time()
            pending = action()
            if asyncio.iscoroutine(pending):  # a key press
                await pending
            app.call_after_refresh(done.set)
            await done.wait()
            return time.process_time() - c0

        def hand(s: Sample) -> Callable[[], None]:
            # The state taken and the screen redrawn, as the App does with a sample (take
            # alone only records it: the frame measured nothing, 0.1-0.4 ms).
            return lambda: app.view.redraw(state=take(s))

        def press(key: str) -> Callable[[], Any]:
            return lambda: pilot.press(key)

        for view in ("the NIC's IRQs", "all IRQs (a)"):
            for s in (a, b):
                await refreshed(hand(s))
            xs = [await refreshed(hand((a, b)[i % 2])) for i in range(ticks)]
            out[view] = (statistics.median(xs), max(xs))
            out[f"{view} rows"] = len(app.panels["irqs"].view.rows)
            await pilot.press("2", "a", "1")  # the IRQ panel: every IRQ of the host, then back
        keys: dict[str, list[float]] = {}
        for k in KEYS:
            keys.setdefault(k, []).append(await refreshed(press(k)))
        out["keys"] = {k: max(v) for k, v in keys.items()}
        out["memory"] = memory()
        out["irq_rows"] = len(a.counters.interrupts.rows) if a.counters else 0
        await pilot.press("q")
    cs = [s.counters for s in got if s.counters is not None]
    cs = [c for i, c in enumerate(cs) if i == 0 or c is not cs[i - 1]]
    taken = [s for s in got if s.counters is not None]
    nic = frozenset(q.irq for q in taken[0].nic.irqs) if taken[0].nic else frozenset()
    first: dict[int, Sample] = {}  # each counters' first delivery (the one with its rates)
    for s in taken:
        first.setdefault(id(s.counters), s)
    known = [usable(known_step(first[id(c)], p), nic) for p, c in pairwise(cs)]

    def cpu(f: Callable[[], object]) -> float:
        xs = []
        for _ in range(3):
            c0 = time.process_time()
            f()
            xs.append(time.process_time() - c0)
        return statistics.median(xs)

    out["advisor"] = (
        len(cs),
        cpu(lambda: window_of(cs, nic)),
        cpu(lambda: window_of(cs, nic, known=known)),
        sum(k is not None for k in known),
    )
    return out


# The slope: the same pegged host at 32 to 1152 CPUs (2 NUMA nodes each, so only the CPU
# count grows), its frame in the NIC's-IRQs view (issue 38: "cost per added CPU").
SLOPE_FACTORS = (1, 4, 9, 18, 36)


async def frame_at(tmp: Path, factor: int, ticks: int) -> float:
    """Median frame CPU seconds on the pegged host at 32 x `factor` CPUs, 200x60."""
    n = 32 * factor
    tree = pegged_tree(
        tmp / f"host_{n}cpu",
        factor,
        {},
        SAMPLES,
        SHARED_FIXTURES,
        bus="0000:02:00.0",
        nodes={0: f"0-{n // 2 - 1}", 1: f"{n // 2}-{n - 1}"},
        hostname=f"{n}cpu-2node",
        notes=[f"the pegged 32-CPU host's columns repeated {factor} times (bench_bighost)"],
    )
    reader = ReplayReader(tree, igb_ethtool(SHARED_FIXTURES, "eth0"), 1.0)
    app, got, take = keeping_app(reader, "eth0")
    async with app.run_test(size=SIZE) as pilot:
        t0 = time.monotonic()
        while app.samples_drawn < SAMPLES and time.monotonic() - t0 < 300:
            await pilot.pause(0.05)
        await pilot.pause(0.2)
        a, b = [s for s in got if s.rates is not None and s.counters is not None][-2:]
        xs = []
        for i in range(ticks + 2):
            done = asyncio.Event()
            c0 = time.process_time()
            app.view.redraw(state=take((a, b)[i % 2]))
            app.call_after_refresh(done.set)
            await done.wait()
            xs.append(time.process_time() - c0)
        await pilot.press("q")
    return statistics.median(xs[2:])


SETTLE_S = 10.0  # after the first frame, as bench_memory measures a small host


def real_memory(tmp: Path, rows: int | None) -> tuple[float, float]:
    """(VmRSS, USS) in MB of the real `tuitune --root TREE eth0` in a 200x60 tmux pane,
    SETTLE_S after its first frame: tuitune's own, not this process's."""
    reader, _ = host_1152cpu(tmp, samples=SAMPLES, rows=rows)
    reader.close()
    server = TmuxServer("bighost-rss")
    try:
        argv = [sys.executable, "-m", "tuitune", "--root", str(reader.root.sys.parent), "eth0"]
        pid = server.new_session(argv, {**ENV, "HOME": str(tmp)})
        server.wait_for(lambda screen: "CPUs (" in screen, timeout=120)
        time.sleep(SETTLE_S)
        return memory(pid)
    finally:
        server.kill()


def slope_lines(frames: dict[int, float]) -> list[str]:
    """The frame at each CPU count and the least-squares line through them."""
    cpus = list(frames)
    fit = statistics.linear_regression(cpus, [frames[c] for c in cpus])
    return [
        "",
        "Cost per added CPU: the frame (NIC's IRQs view, CPU ms, median) of the same pegged "
        "host at each CPU count, 2 NUMA nodes each, and the least-squares line through them.",
        "",
        "| CPUs | " + " | ".join(str(c) for c in cpus) + " | µs per added CPU | at 0 CPUs ms |",
        "|---|" + "--:|" * (len(cpus) + 2),
        "| frame ms | "
        + " | ".join(ms(frames[c]) for c in cpus)
        + f" | {fit.slope * 1e6:.2f} | {ms(fit.intercept)} |",
    ]


def goal_lines(
    results: dict[int | None, dict[str, Any]], real: dict[int | None, tuple[float, float]]
) -> list[str]:
    """Issue 38's big-host goals, said outright from this run's figures."""
    frames = [r[v] for r in results.values() for v in ("the NIC's IRQs", "all IRQs (a)")]
    med, worst = max(m for m, _ in frames), max(w for _, w in frames)
    key = max(max(r["keys"].values()) for r in results.values())
    rss = {results[rows]["irq_rows"]: real[rows][0] for rows in results}

    def met(ok: bool) -> str:
        return "**met**" if ok else "**not met**"

    out = [
        "",
        f"Goals (issue 38): frame <= 10 ms median: {met(med <= 0.010)} (at most {ms(med)}); "
        f"<= 20 ms worst: {met(worst <= 0.020)} ({ms(worst)}); every key <= 50 ms worst: "
        f"{met(key <= 0.050)} ({ms(key)}); RSS <= 80 MB: "
        + "; ".join(f"{met(v <= 80)} at {n} IRQ rows ({v:.0f} MB)" for n, v in rss.items())
        + ".",
    ]
    if any(v > 80 for v in rss.values()):
        out.append(
            "Where it was measured to go (tracemalloc, InterruptsParser, issue 38): one parsed "
            "1000-row /proc/interrupts holds 5.3 MB of packed counts and row digests, and the "
            "first whole read peaks at about 56 MB while the 13 MB text is decoded and split; "
            "measure again with tracemalloc before naming another cause."
        )
    return out


def ms(x: float) -> str:
    return f"{1000 * x:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="5 ticks a case instead of 30")
    args = ap.parse_args(argv)
    ticks = 5 if args.quick else 30
    before = loadavg()
    results = {}
    for rows in (None, 1000):
        with tempfile.TemporaryDirectory(prefix="bench-bighost-") as tmp:
            results[rows] = asyncio.run(measure(Path(tmp), rows, ticks))
    real = {}
    for rows in (None, 1000):
        with tempfile.TemporaryDirectory(prefix="bench-bighost-") as tmp:
            real[rows] = real_memory(Path(tmp), rows)
    frames = {}
    for factor in SLOPE_FACTORS:
        with tempfile.TemporaryDirectory(prefix="bench-bighost-") as tmp:
            frames[32 * factor] = asyncio.run(frame_at(Path(tmp), factor, ticks))
    after = loadavg()
    lines = [
        "## A 1152-CPU host at 200x60: frame, Advisor window, keys, memory",
        "",
        "`benchmarks/bench_bighost.py`: the recorded 1152-CPU, 16-node host "
        "(tests/support/fixture_big.py) in the real app at 200x60 (Textual's headless "
        f"driver), read as `tuitune --root` reads it; {ticks} ticks a case, the last two "
        "samples handed to the screen in turn. CPU time of the process (the sampler stopped).",
        "",
        "| IRQ rows | IRQ panel (its rows) | frame CPU ms, median | worst |",
        "|--:|---|--:|--:|",
    ]
    for r in results.values():
        for view in ("the NIC's IRQs", "all IRQs (a)"):
            med, worst = r[view]
            shown = f"{view} ({r[f'{view} rows']})"
            lines.append(f"| {r['irq_rows']} | {shown} | {ms(med)} | {ms(worst)} |")
    lines += [
        "",
        "Keys: CPU ms from the press to the end of the refresh after it (worst of its presses).",
        "",
        "| IRQ rows | " + " | ".join(dict.fromkeys(KEYS)) + " |",
        "|--:|" + "--:|" * len(dict.fromkeys(KEYS)),
    ]
    for r in results.values():
        lines.append(
            f"| {r['irq_rows']} | "
            + " | ".join(ms(r["keys"][k]) for k in dict.fromkeys(KEYS))
            + " |"
        )
    lines += [
        "",
        "The Advisor's window over the delivered samples: its steps' rates computed from the "
        "counters, against the sampler's own rates reused (the total, first to last, is "
        "computed in both).",
        "",
        "| IRQ rows | samples | computed ms | reused ms | steps reused |",
        "|--:|--:|--:|--:|--:|",
    ]
    for r in results.values():
        n, full, reused, k = r["advisor"]
        lines.append(f"| {r['irq_rows']} | {n} | {ms(full)} | {ms(reused)} | {k} of {n - 1} |")
    lines += [
        "",
        f"Memory: `tuitune --root TREE eth0` itself in a 200x60 tmux pane, {SETTLE_S:g} s after "
        "its first frame, and the benchmark's own process (the app, the fixture's builder and "
        "the samples the benchmark keeps: an upper bound).",
        "",
        "| IRQ rows | tuitune RSS MB | tuitune USS MB | benchmark RSS MB | benchmark USS MB |",
        "|--:|--:|--:|--:|--:|",
    ]
    for rows, r in results.items():
        rss, uss = r["memory"]
        t_rss, t_uss = real[rows]
        lines.append(f"| {r['irq_rows']} | {t_rss:.0f} | {t_uss:.0f} | {rss:.0f} | {uss:.0f} |")
    lines += [
        *goal_lines(results, real),
        *slope_lines(frames),
        "",
        f"Load average (start / end): {before} / {after}.",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
