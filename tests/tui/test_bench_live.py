"""The run in the strip under the live screen, fed by recorded real iperf3 outputs through the
real runner (`cat FILE`). For the live part, `cat` reads the recording from a FIFO that the
test fills line by line, so every interval's arrival is a step the test controls: the screen
is read after each one, no timing decides anything.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import TextIO

import psutil

from tests.tui.conftest import Tui
from tests.tui.test_bench_form import (
    FIXTURES,
    bench_app,
    open_form,
    replay,
    strip_text,
    type_into,
)
from tuitune.core.bench.iperf import IperfParser, parse_output
from tuitune.core.bench.model import BenchSpec, Interval
from tuitune.core.bench.notebook import Notebook
from tuitune.core.units import bitrate
from tuitune.tui.controllers.advisor import COUNT_FROM
from tuitune.tui.look import glyphs
from tuitune.tui.look.palette import DEFAULT_PALETTE
from tuitune.tui.screens import bench_view
from tuitune.tui.screens.bench_view import BenchStrip, LiveRun


def gbps(bits: float | None) -> str:
    assert bits is not None
    return bitrate(bits / 8)


async def start(tui: Tui, duration: int = 3, repeats: int = 1) -> None:
    await open_form(tui)
    await type_into(tui, "peer", "10.254.77.2")
    await type_into(tui, "duration", str(duration))
    await type_into(tui, "repeats", str(repeats))
    await tui.press("enter")
    await tui.wait(lambda: tui.app.query_one(BenchStrip).display, "the strip")


@asynccontextmanager
async def fifo(tmp_path: Path) -> AsyncIterator[tuple[list[str], Path]]:
    """A FIFO for `cat` to read; yields (the command, its path). Opened for writing by
    `feeder`; always closed, so cat ends even when the test fails."""
    path = tmp_path / "iperf3.fifo"
    os.mkfifo(path)
    try:
        yield ["cat", str(path)], path
    finally:
        # Unblock a cat still waiting for a writer, then let it see the end.
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
        os.close(fd)


async def feeder(path: Path) -> TextIO:
    # open() blocks until cat opens the other end: off the event loop.
    return await asyncio.to_thread(open, path, "w", encoding="utf-8")


async def play_run(
    tui: Tui, path: Path, lines: list[str], ready: Callable[[], bool] | None = None
) -> None:
    """A recorded run's output into the FIFO at `path`: its first lines a sample each, so the
    run lasts COUNT_FROM samples at least (the fewest the advisor judges it on) whatever the
    machine's speed, the rest at once (a shell loop pacing the lines at 0.05 s once decided
    that). `ready` is waited for once `cat` has the FIFO open."""
    out = await feeder(path)
    try:
        if ready is not None:
            await tui.wait(ready, "the run started")
        for i, line in enumerate(lines):
            drawn = tui.app.samples_drawn
            out.write(line)
            out.flush()
            if i <= COUNT_FROM:
                await tui.wait(lambda n=drawn: tui.app.samples_drawn > n, "a run sample")
    finally:
        out.close()


def shows(tui: Tui, text: str) -> bool:
    return text in strip_text(tui)


def bar_cells(tui: Tui) -> int:
    """How many cells of the progress bar are filled, as drawn."""
    line = strip_text(tui).splitlines()[1]
    inside = line[line.index("[") + 1 : line.index("]")]
    return sum(1 for ch in inside if ch == tui.app.glyphs.bar_full)


async def test_intervals_arrive_progress_moves_and_the_end_shows_the_recording(
    tmp_path: Path,
) -> None:
    recording = (FIXTURES / "normal-p1.txt").read_text().splitlines(keepends=True)
    spec = BenchSpec("10.254.77.2", duration=3)
    parser = IperfParser(spec)
    # Samples keep coming during the run (200 recorded ticks), so the CPU grid stays live and
    # the run's per-CPU peaks are tuitune's own.
    async with (
        fifo(tmp_path) as (command, path),
        bench_app(tmp_path, command=command, limit=None, samples=200, interval=0.2) as tui,
    ):
        await start(tui)
        out = await feeder(path)
        try:
            progress = []
            for line in recording:
                out.write(line)
                out.flush()
                for iv in parser.feed(line):  # the line completes an interval: see it
                    text = f"{bitrate(iv.bits_per_second / 8):>10}  retr {iv.retransmits}/s"
                    await tui.wait(partial(shows, tui, text), text)
                    assert f"{iv.end:.0f}/3 s" in strip_text(tui)
                    assert "X: stop" in strip_text(tui)
                    # The CPU grid stays on screen above the strip: the pegged CPU 0 too.
                    assert any(r.lstrip().startswith("0") for r in tui.rows_seen("cpus"))
                    progress.append(bar_cells(tui))
        finally:
            out.close()
        assert len(progress) == 3
        assert progress == sorted(progress) and progress[0] < progress[-1]
        await tui.wait(lambda: "recorded (N: runs)" in strip_text(tui), "recorded")
        shown = strip_text(tui)
        end = parse_output(spec, "".join(recording))
        assert "Bench r1 done" in shown
        assert f"sent {gbps(end.sent_bps)}  received {gbps(end.received_bps)}" in shown
        assert f"retr {end.retransmits}" in shown
        assert f"CPU local {end.local_cpu:.1f}% remote {end.remote_cpu:.1f}%" in shown
        # CPU 0 of the fixture host is pegged: 50% sys, 50% soft, backlog drops.
        assert "peak sys 50% on cpu0, soft 50% on cpu0, softnet drops" in shown
        assert "(cpu0 " in shown
        runs = Notebook(tmp_path / "runs.jsonl").runs()
        assert len(runs) == 1
        run = runs[0]
        assert run.result.received_bps == end.received_bps
        assert run.result.retransmits == end.retransmits
        assert run.load.samples > 0 and run.load.peak_soft[0] == 50.0
        assert run.settings["mtu"] == "1500"  # the settings it ran with, from the tree


async def test_x_stops_a_run_and_then_closes_the_strip(tmp_path: Path) -> None:
    recording = (FIXTURES / "normal-p1.txt").read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(recording) if "0.00-1.00" in line)
    async with fifo(tmp_path) as (command, path), bench_app(tmp_path, command=command) as tui:
        await start(tui)
        out = await feeder(path)
        try:
            out.writelines(recording[: first + 1])
            out.flush()
            await tui.wait(lambda: "1/3 s" in strip_text(tui), "the first interval")
            await tui.press("X")
            await tui.wait(lambda: tui.app.app_bench.runner is None, "the runner to end")
        finally:
            out.close()
        shown = strip_text(tui)
        assert "Bench stopped" in shown
        assert "stopped by you" in shown
        assert "X: close" in shown
        assert not (tmp_path / "runs.jsonl").exists()  # half a run is not a result
        await tui.press("X")
        assert not tui.app.query_one(BenchStrip).display


async def test_a_refused_peer_says_how_to_start_the_server(tmp_path: Path) -> None:
    command = replay("refused.txt")
    async with bench_app(tmp_path, command=command, size=(80, 24)) as tui:
        await start(tui)
        await tui.wait(lambda: "failed" in strip_text(tui), "the failure")
        shown = strip_text(tui)
        assert "Bench failed" in shown
        # The whole message, wrapped at 80 columns: it ends with the command that fixes it.
        words = " ".join(line.strip() for line in shown.splitlines())
        assert "refused the connection" in words
        assert "Start one on the peer: iperf3 -s" in words
        assert "no result from iperf3" in shown
        assert not (tmp_path / "runs.jsonl").exists()


async def test_a_run_that_dies_midway_keeps_what_was_measured(tmp_path: Path) -> None:
    async with bench_app(tmp_path, command=replay("killed-midway.txt")) as tui:
        await start(tui, duration=5)
        await tui.wait(lambda: "failed" in strip_text(tui), "the failure")
        shown = strip_text(tui)
        result = parse_output(
            BenchSpec("10.254.77.2", duration=5),
            (FIXTURES / "killed-midway.txt").read_text(),
            1,
        )
        assert result.error and result.error.split(":")[0] in shown
        assert f"sent {gbps(result.sent_bps)}" in shown  # what was measured up to then
        assert "not recorded (incomplete)" in shown.splitlines()[0]  # half a run skews medians


async def test_repeats_share_a_group_and_show_the_median(tmp_path: Path) -> None:
    async with bench_app(tmp_path, command=replay("normal-p1.txt")) as tui:
        await start(tui, repeats=2)
        await tui.wait(lambda: "recorded r1..r2" in strip_text(tui), "both recorded")
        assert "median of 2 repeats" in strip_text(tui)
        runs = Notebook(tmp_path / "runs.jsonl").runs()
        assert [(r.id, r.group) for r in runs] == [("r1", "r1"), ("r2", "r1")]
        # A second request is a new group, and B refuses nothing once the first has ended.
        await start(tui)
        await tui.wait(lambda: "Bench r3 done" in strip_text(tui), "the second request")
        assert Notebook(tmp_path / "runs.jsonl").runs()[-1].group == "r3"


async def test_the_strip_at_80x24_in_ascii(tmp_path: Path) -> None:
    env = {"TERM": "linux", "LANG": "C.UTF-8"}
    async with bench_app(tmp_path, command=replay("normal-p1.txt"), size=(80, 24), env=env) as tui:
        await start(tui)
        await tui.wait(lambda: "recorded" in strip_text(tui), "recorded")
        lines = strip_text(tui).splitlines()
        assert lines[0].startswith("Bench r1 done, recorded (N: runs)   X: close")
        assert lines[1].startswith("sent ")
        assert all(line.isascii() for line in lines)
        assert tui.footer().strip()  # the footer still shows below the strip
        assert "Bench" not in tui.footer() or "B Bench" in tui.footer()


def cat_of(path: Path) -> list[int]:
    """Pids of the `cat FIFO` the runner started (the stand-in for iperf3)."""
    return [
        p.pid for p in psutil.process_iter(["cmdline"]) if p.info["cmdline"] == ["cat", str(path)]
    ]


async def test_leaving_the_app_stops_the_run(tmp_path: Path) -> None:
    recording = (FIXTURES / "normal-p1.txt").read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(recording) if "0.00-1.00" in line)
    async with fifo(tmp_path) as (command, path):
        out: TextIO | None = None
        try:
            async with bench_app(tmp_path, command=command) as tui:
                await start(tui)
                out = await feeder(path)
                out.writelines(recording[: first + 1])
                out.flush()
                await tui.wait(lambda: "1/3 s" in strip_text(tui), "the first interval")
                assert cat_of(path)  # iperf3's stand-in runs, its input still open
            # The app has ended with the FIFO still open for writing: only the app can have
            # stopped the process.
            for _ in range(500):
                if not cat_of(path):
                    break
                await asyncio.sleep(0.02)
            assert not cat_of(path)
        finally:
            if out is not None:
                out.close()


def test_the_live_line_in_ascii_and_unicode() -> None:
    """The progress bar and the sparkline have ASCII glyphs for the Linux console."""
    run = LiveRun(BenchSpec("10.0.0.2", duration=4, direction="bidir"), state="running")
    for n, (tx, rx) in enumerate(((9e9, 8e9), (4e9, 3e9), (9e9, 9e9))):
        run.add(Interval(n, n + 1, tx, 10, "sender"))
        run.add(Interval(n, n + 1, rx, None, "receiver"))
    assert run.history == [17e9, 7e9, 18e9]  # both directions of a bidir second
    ascii_line = strip_text_of(run, glyphs.ASCII).splitlines()[1]
    assert ascii_line.isascii()
    assert ascii_line.startswith("[" + "#" * 22 + "-" + "." * 7 + "] 3/4 s")  # 22.5 of 30
    assert "tx 9.00 Gb/s retr 10/s rx 9.00 Gb/s" in " ".join(ascii_line.split())
    assert ascii_line.rstrip().endswith("@=@")  # the sparkline: 17, 7, 18 Gb/s
    uni_line = strip_text_of(run, glyphs.UNICODE).splitlines()[1]
    assert uni_line.rstrip().endswith("█▄█")


def strip_text_of(run: LiveRun, g: glyphs.Glyphs) -> str:
    return bench_view.strip_text(run, 150, g, DEFAULT_PALETTE).plain
