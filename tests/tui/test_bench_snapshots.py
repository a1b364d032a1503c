"""SVG snapshot of the runs table (N) at 120x30, on a notebook built from fixed Run objects
(tests/tui/test_runs_screen.py): the baseline, a two-repeat run with tso and gso off and its
spread, a jumbo-MTU run, with signed, coloured deltas.

Update with `pytest tests/tui/test_bench_snapshots.py --snapshot-update` and look at the SVG.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support.fixture_hosts import host_32cpu
from tests.tui.test_runs_screen import notebook
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.runs import RunsScreen


async def runs_open(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, TuituneApp)
    for _ in range(400):
        if app.samples_drawn >= 3:
            break
        await pilot.pause(0.02)
    assert app.samples_drawn >= 3, "the fixture host never delivered its samples"
    await pilot.press("N")
    for _ in range(100):
        if isinstance(app.screen, RunsScreen):
            break
        await pilot.pause(0.02)
    await pilot.press("down")  # the detail line of the two-repeat run
    await pilot.pause()


def test_runs_table_120x30(
    snap_compare: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A relative notebook path: the title shows it, and it must be the same on every machine.
    monkeypatch.chdir(tmp_path)
    notebook(Path("runs.jsonl"))
    reader, ifname = host_32cpu(tmp_path / "host", samples=5)
    app = TuituneApp(
        reader,
        ifname,
        interval=0.02,
        env={"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)},
        limit=3,
        show_cost=False,
        save_settings=False,
        notebook_path=Path("runs.jsonl"),
    )
    try:
        assert snap_compare(app, terminal_size=(120, 30), run_before=runs_open)
    finally:
        reader.close()
