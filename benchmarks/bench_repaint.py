"""Repaint cost of the CPU grid and the IRQ panel against host size, in the real app.

Each host runs the real TuituneApp under Textual's App.run_test at 200x60 (the headless
driver), fed by a ReplayReader on a recorded host tree (tests/support/fixture_hosts.py:
host_32cpu, host_256cpu; benchmarks/_big_host.py: 1024 CPUs built the same way, with the
capture's 180 IRQ rows and widened to 2048) or by this machine's live HostReader (read only).
The sampler takes two samples and stops, so the screen holds rates for every CPU; then, with
nothing else running, one repaint is timed again and again:

* build: `_draw_cpus()` + `_draw_irqs()`, the app's own per-sample work for those two panels:
  `grid_rows` and `irq_rows` (timed inside, by wrapping the functions the app calls), the
  heat map's layout, `RowView.set_rows` (filter, cursor, virtual size);
* render: `render_line(y)` for every visible line of the CPU list, the heat map (when shown)
  and the IRQ list: the Strips Textual composes;
* repaint = build + render;
* frame: the whole `_redraw()` (header and all four panels) up to the end of the screen
  refresh that follows (Textual's layout, compositor and the headless driver's output),
  measured as CPU time of the process (time.process_time), so waiting for the frame timer
  does not count. This is what one sample costs the main thread at 1 Hz.

Each host is run twice: the IRQ panel showing the interface's IRQs (the default), and all
IRQs of the host (`a`), where the sampler also asks for every IRQ's per-CPU detail.

Run from the repository root::

    .venv/bin/python benchmarks/bench_repaint.py [--seconds 2] [--profile]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import math
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

if __package__ in (None, ""):  # run as a file: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks._big_host import host_1024cpu
from benchmarks._proc import default_route_interface
from benchmarks._report import machine_lines
from tests.support.fixture_hosts import host_32cpu, host_256cpu
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui import app as app_mod
from tuitune.tui.app import TuituneApp
from tuitune.tui.panels.cpugrid import HeatMap, grid_rows
from tuitune.tui.panels.irqpanel import irq_rows

SIZE = (200, 60)
ENV = {"TERM": "xterm-256color", "LANG": "C.UTF-8"}


class Timed:
    """Stands in for a function the app calls and records how long each call took."""

    def __init__(self, fn: Callable[..., Any]) -> None:
        self.fn = fn
        self.last = 0.0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        out = self.fn(*args, **kwargs)
        self.last = time.perf_counter() - t
        return out


@dataclass
class Result:
    name: str
    view: str  # "NIC IRQs" or "all IRQs"
    ncpus: int = 0
    nirqs: int = 0  # rows of /proc/interrupts
    irq_panel_rows: int = 0
    mode: str = ""
    lines: int = 0  # visible lines rendered: CPU list + heat map + IRQ list
    grid_rows: list[float] = field(default_factory=list)
    irq_rows: list[float] = field(default_factory=list)
    build: list[float] = field(default_factory=list)
    render: list[float] = field(default_factory=list)
    repaint: list[float] = field(default_factory=list)
    frame_cpu: list[float] = field(default_factory=list)
    frame_wall: list[float] = field(default_factory=list)
    parts: dict[str, list[float]] = field(default_factory=dict)  # frame_parts: CPU s
    profile: str = ""

    @property
    def cells(self) -> int:
        return self.ncpus * self.nirqs


def med(xs: list[float]) -> float:
    return statistics.median(xs) if xs else math.nan


def p90(xs: list[float]) -> float:
    s = sorted(xs)
    return s[max(0, math.ceil(0.9 * len(s)) - 1)] if s else math.nan


async def wait_until(pilot: Any, ok: Callable[[], bool], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not ok():
        if time.monotonic() > deadline:
            raise TimeoutError("the app never drew two samples")
        await pilot.pause(0.05)


async def one_frame(app: TuituneApp, action: Callable[[], object]) -> tuple[float, float]:
    """CPU and wall seconds of `action` and the screen refresh after it."""
    done = asyncio.Event()
    c0, w0 = time.process_time(), time.perf_counter()
    action()
    app.call_after_refresh(done.set)
    await done.wait()
    return time.process_time() - c0, time.perf_counter() - w0


def frame_parts(app: TuituneApp) -> dict[str, Callable[[], object]]:
    """What one frame is made of, from all of it down to nothing: each is timed as a frame.
    Static.update() on the header (height auto) and on the help strips asks for a new layout
    of the screen; RowView.refresh() repaints a list without one."""
    views = [p.view for p in app.panels.values()]

    def lists_and_header() -> None:
        app._draw_header()
        app._draw_cpus()
        app._draw_irqs()

    return {
        "_redraw(): header + 4 panels": app._redraw,
        "header + CPU grid + IRQ panel": lists_and_header,
        "header only": app._draw_header,
        "refresh() of the 4 lists": lambda: [v.refresh() for v in views],
        "refresh() of CPU and IRQ lists": lambda: [v.refresh() for v in views[:2]],
        "nothing": lambda: None,
    }


async def measure(
    reader: HostReader, ifname: str, result: Result, budget: float, profile: bool
) -> None:
    app = TuituneApp(
        reader, ifname, interval=0.05, env=ENV, limit=2, show_cost=False, save_settings=False
    )
    if result.view == "all IRQs":
        app.show_all_irqs = True
        app.sampler.all_irqs = True
    # Wrap the names the app module calls, so the app's own calls are the ones timed.
    grid = Timed(grid_rows)
    irqs = Timed(irq_rows)
    with (
        mock.patch.object(app_mod, "grid_rows", grid),
        mock.patch.object(app_mod, "irq_rows", irqs),
    ):
        async with app.run_test(size=SIZE) as pilot:
            await wait_until(pilot, lambda: app.samples_drawn >= 2, timeout=120)
            await pilot.pause()
            sample = app.sample
            assert sample is not None and sample.rates is not None
            assert sample.counters is not None
            if len(sample.rates.cpus) != len(sample.counters.stat.cpus):
                raise AssertionError(f"rates for {len(sample.rates.cpus)} CPUs only")
            result.ncpus = len(sample.rates.cpus)
            result.nirqs = len(sample.counters.interrupts.rows)
            cpus, irq_panel = app.panels["cpus"], app.panels["irqs"]
            heat = cpus.query_one(HeatMap)
            views: list[Any] = [cpus.view, irq_panel.view]
            result.irq_panel_rows = len(irq_panel.view.rows)

            def repaint() -> None:
                t0 = time.perf_counter()
                app._draw_cpus()
                app._draw_irqs()
                t1 = time.perf_counter()
                shown = [*views, heat] if heat.display else views
                n = 0
                for v in shown:
                    for y in range(v.size.height):
                        v.render_line(y)
                        n += 1
                t2 = time.perf_counter()
                result.build.append(t1 - t0)
                result.render.append(t2 - t1)
                result.repaint.append(t2 - t0)
                result.grid_rows.append(grid.last)
                result.irq_rows.append(irqs.last)
                result.lines = n

            repaint()  # warm: the first call lays out the columns
            result.mode = "heat map + list" if heat.display else "list"
            for k in (result.build, result.render, result.repaint):
                k.clear()
            result.grid_rows.clear()
            result.irq_rows.clear()
            t_end = time.perf_counter() + budget
            while time.perf_counter() < t_end or len(result.repaint) < 5:
                repaint()
            whole = app._redraw
            await one_frame(app, whole)
            t_end = time.perf_counter() + budget
            while time.perf_counter() < t_end or len(result.frame_cpu) < 5:
                cpu, wall = await one_frame(app, whole)
                result.frame_cpu.append(cpu)
                result.frame_wall.append(wall)
            for name, action in frame_parts(app).items():
                xs = result.parts.setdefault(name, [])
                t_end = time.perf_counter() + budget / 2
                while time.perf_counter() < t_end or len(xs) < 10:
                    xs.append((await one_frame(app, action))[0])
            if profile:
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(10):
                    await one_frame(app, whole)
                prof.disable()
                out = io.StringIO()
                pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(15)
                result.profile = out.getvalue()
            await pilot.press("q")


def table(results: Sequence[Result]) -> list[str]:
    lines = [
        "| host | IRQ panel | CPUs | IRQ rows | CPUs x IRQs | panel rows | grid | lines drawn "
        "| grid_rows ms | irq_rows ms | build ms | render ms | repaint ms | repaint p90 ms "
        "| repaint µs per CPU | frame CPU ms | frame / 1 s period | repeats |",
        "|---|---|--:|--:|--:|--:|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
    ]
    for r in results:
        rep = med(r.repaint)
        lines.append(
            f"| {r.name} | {r.view} | {r.ncpus} | {r.nirqs} | {r.cells:,} | {r.irq_panel_rows} "
            f"| {r.mode} | {r.lines} | {med(r.grid_rows) * 1e3:.2f} | {med(r.irq_rows) * 1e3:.2f} "
            f"| {med(r.build) * 1e3:.2f} | {med(r.render) * 1e3:.2f} | {rep * 1e3:.2f} "
            f"| {p90(r.repaint) * 1e3:.2f} | {rep * 1e6 / r.ncpus:.1f} "
            f"| {med(r.frame_cpu) * 1e3:.1f} | {med(r.frame_cpu):.1%} | {len(r.repaint)} |"
        )
    return lines


def parts_table(results: Sequence[Result]) -> list[str]:
    """Median CPU ms of a frame made of each part alone (NIC IRQs view)."""
    rows = [r for r in results if r.view == "NIC IRQs" and r.parts]
    if not rows:
        return []
    names = list(rows[0].parts)
    lines = [
        "| host | " + " | ".join(names) + " |",
        "|---|" + "--:|" * len(names),
    ]
    for r in rows:
        lines.append(
            f"| {r.name} | " + " | ".join(f"{med(r.parts[n]) * 1e3:.1f}" for n in names) + " |"
        )
    return lines


def growth(results: Sequence[Result]) -> list[str]:
    """Repaint and frame cost of the largest host over the smallest recorded one."""
    rec = [r for r in results if r.view == "NIC IRQs" and not r.name.startswith("this")]
    if len(rec) < 2:
        return []
    a, b = rec[0], rec[-1]
    return [
        f"From {a.name} to {b.name} (NIC IRQs view): CPUs x{b.ncpus / a.ncpus:.0f}, "
        f"CPUs x IRQs x{b.cells / a.cells:.0f}; repaint x{med(b.repaint) / med(a.repaint):.1f}, "
        f"grid_rows x{med(b.grid_rows) / med(a.grid_rows):.1f}, "
        f"frame CPU x{med(b.frame_cpu) / med(a.frame_cpu):.1f}."
    ]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timing per case and part")
    ap.add_argument("--profile", action="store_true", help="cProfile 10 frames per case")
    ap.add_argument("--no-live", action="store_true", help="skip this machine")
    ap.add_argument("--no-large", action="store_true", help="skip the 1024-CPU hosts")
    args = ap.parse_args(argv)

    def say(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    started = time.perf_counter()
    results: list[Result] = []
    builders: list[tuple[str, Callable[[Path], tuple[Any, str]]]] = [
        ("host_32cpu", lambda tmp: host_32cpu(tmp, samples=2)),
        ("host_256cpu", lambda tmp: host_256cpu(tmp, samples=2)),
    ]
    if not args.no_large:
        builders += [
            ("1024 CPUs, 180 IRQ rows", lambda tmp: host_1024cpu(tmp)),
            ("1024 CPUs, 2048 IRQ rows", lambda tmp: host_1024cpu(tmp, irq_rows=2048)),
        ]
    with tempfile.TemporaryDirectory(prefix="tuitune-bench-repaint-") as tmp:
        for name, build in builders:
            t = time.perf_counter()
            reader, ifname = build(Path(tmp) / f"{len(results)}")
            built = time.perf_counter() - t
            with reader:
                for view in ("NIC IRQs", "all IRQs"):
                    reader.calls = 0  # replay from the first sample again
                    result = Result(name, view)
                    asyncio.run(measure(reader, ifname, result, args.seconds, args.profile))
                    results.append(result)
                    say(
                        f"{name}, {view}: built {built:.1f} s, repaint "
                        f"{med(result.repaint) * 1e3:.2f} ms, "
                        f"frame {med(result.frame_cpu) * 1e3:.1f} ms"
                    )
    if not args.no_live:
        iface = default_route_interface()
        if iface is not None:
            for view in ("NIC IRQs", "all IRQs"):
                result = Result(f"this machine, live, {iface}", view)
                with HostReader() as reader:  # real /proc and /sys, read only
                    asyncio.run(measure(reader, iface, result, args.seconds, args.profile))
                results.append(result)
                say(f"live {view}: repaint {med(result.repaint) * 1e3:.2f} ms")
    out = [
        "## Repaint cost of the CPU grid and IRQ panel",
        "",
        f"Command: `.venv/bin/python benchmarks/bench_repaint.py --seconds {args.seconds:g}`",
        "",
        *machine_lines(),
        f"- terminal: Textual run_test (headless) at {SIZE[0]}x{SIZE[1]}",
        "",
        *table(results),
        "",
        "build = _draw_cpus() + _draw_irqs() (grid_rows and irq_rows are parts of it); render = "
        "render_line of every visible line of the CPU list, heat map and IRQ list; repaint = "
        "build + render (medians of perf_counter); frame CPU = process CPU time of _redraw() "
        "(header and all four panels) through the screen refresh after it.",
        "",
        "Where a frame's CPU time goes (NIC IRQs view): median CPU ms of one frame made of "
        "each part alone, through the screen refresh after it. The header and the help "
        "strips are Static widgets whose update() asks Textual for a new layout of the whole "
        "screen; a list's refresh() repaints that list only. The NIC and sysctl panels only "
        "change when their state is re-read (every 5th sample).",
        "",
        *parts_table(results),
        "",
        *growth(results),
        "",
        f"Wall time {time.perf_counter() - started:.0f} s.",
    ]
    print("\n".join(out))
    if args.profile:
        for r in results:
            print(f"\n### cProfile, 10 frames: {r.name}, {r.view}\n\n```\n{r.profile}```")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
