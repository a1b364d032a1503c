"""The runs screen's chart (g): one bar a request, its length its median on one scale, the
whisker its min..max, the change against the baseline, none for a run of another test; at
80x24 on the Linux console's glyphs."""

from __future__ import annotations

from pathlib import Path

from tests.tui.test_bench_form import bench_app
from tests.tui.test_runs_screen import notebook, open_runs, run
from tuitune.core.bench.model import BenchSpec
from tuitune.tui.screens.runs_chart import RunsChartScreen


async def test_g_draws_the_runs_as_bars_against_the_baseline(tmp_path: Path) -> None:
    nb = notebook(tmp_path / "runs.jsonl")
    nb.add(run("r5", "r5", 30e9, 400, 70.0, spec=BenchSpec("198.18.0.2", streams=4)))
    console = {"TERM": "linux", "LANG": "C"}
    async with bench_app(tmp_path, notebook=nb.path, size=(80, 24), env=console) as tui:
        await open_runs(tui)
        await tui.press("g")
        await tui.wait(lambda: isinstance(tui.app.screen, RunsChartScreen), "the chart")
        lines = tui.screen_text().splitlines()
        inside = [ln.strip("|").strip() for ln in lines]
        bar = {
            ln.split()[0]: ln for ln in inside if ln.split()[:1] in (["r1"], ["r2"], ["r4"], ["r5"])
        }
        assert set(bar) == {"r1", "r2", "r4", "r5"}, lines
        assert "24500 Mb/s" in bar["r1"] and "%" not in bar["r1"]  # the baseline
        # r2: tso and gso off, two repeats 6.8 and 7.2 Gb/s: median 7000, -71 %, a whisker.
        assert "7000 Mb/s (6800..7200) -71%" in bar["r2"]
        assert "test differs" in bar["r5"] and "%" not in bar["r5"]
        # One scale: the 30 Gb/s run's bar is the longest, the 7 Gb/s one far shorter.
        assert bar["r5"].count("#") > bar["r1"].count("#") > 3 * bar["r2"].count("#")
        assert all(len(ln) <= 80 for ln in lines)
        await tui.press("escape")
        await tui.wait(lambda: not isinstance(tui.app.screen, RunsChartScreen), "back")
