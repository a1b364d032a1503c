"""Runs can be told apart (issue 31, item 3): each row says first what differs from the run
before it (r4 and r5 differ only in the server's CPU, which the baseline comparison hid past
the column's end), and every sweep cell names its dimensions' values, on the screen at 80x24
and 200x60 and in `tuitune runs`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.tui.test_bench_form import bench_app
from tests.tui.test_runs_screen import SPEC, open_runs, row_of, run, table
from tuitune.core.bench.notebook import Notebook
from tuitune.core.bench.runformat import to_text
from tuitune.core.bench.runtable import build_rows


def notebook(path: Path) -> Notebook:
    nb = Notebook(path)
    nb.add(run("r1", "r1", 24.5e9, 120, 60.0))
    nb.add(run("r2", "r2", 6.8e9, 30, 90.0, tso="off", gso="off", sg="off"))
    # r3 is a sweep cell (3 s): its row names the cell's values.
    cell = run("r3", "r3", 7.0e9, 30, 90.0, replace(SPEC, duration=3), tso="off")
    nb.add(replace(cell, tags={"sweep": "lab-1-1", "cell": "off", "combination": "tso off"}))
    pinned = replace(SPEC, client_cpu=0, server_cpu=1)
    nb.add(run("r4", "r4", 20.0e9, 40, 70.0, pinned, tso="off", gso="off", sg="off"))
    nb.add(run("r5", "r5", 23.0e9, 40, 70.0, replace(pinned, server_cpu=2), tso="off",
               gso="off", sg="off"))  # fmt: skip
    return nb


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_rows_say_first_what_differs_from_the_run_before(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    nb = notebook(tmp_path / "runs.jsonl")
    async with bench_app(tmp_path, notebook=nb.path, size=size) as tui:
        screen = await open_runs(tui)
        lines = table(tui, screen)
        r4, r5 = row_of(lines, "r4"), row_of(lines, "r5")
        assert r4 != r5
        # The column is cut at 80 columns: what tells r5 from r4 is where it starts.
        assert "vs r4: server CPU" in r5, r5
        if size[0] >= 200:
            assert "vs r4: server CPU 2, not 1" in r5, r5
        assert "[tso off]" in row_of(lines, "r3")
        assert all(len(x) <= size[0] for x in tui.screen_text().splitlines())


def test_runs_command_names_sweep_cells(tmp_path: Path) -> None:
    nb = notebook(tmp_path / "runs.jsonl")
    text = to_text(build_rows(nb.runs(), nb.baseline()))
    line = next(x for x in text.splitlines() if x.startswith("r3"))
    assert line.startswith("r3 [tso off]"), line
