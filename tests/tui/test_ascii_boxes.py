"""Every box the screen draws takes its border type from one CSS variable ($tt-border): ASCII
on the Linux console (whose font has no rounded corners), round elsewhere. Checked on what the
terminal shows for boxes that used to get their ASCII border three different ways (the App's
CSS naming them, a class set by the screen, a constructor argument)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.containers import Vertical
from textual.screen import Screen

from tests.support.fixture_hosts import host_32cpu
from tests.tui.conftest import Tui
from tuitune.tui.app import TuituneApp
from tuitune.tui.controllers.advisor import AdvisorScreen
from tuitune.tui.screens.dialogs import PickerScreen, TextScreen
from tuitune.tui.screens.runs import RunsScreen


@asynccontextmanager
async def on_terminal(tmp_path: Path, term: str) -> AsyncIterator[Tui]:
    reader, ifname = host_32cpu(tmp_path / "host", samples=3)
    app = TuituneApp(
        reader,
        ifname,
        interval=0.05,
        env={"TERM": term, "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)},
        limit=2,
        show_cost=False,
        save_settings=False,
        journal_dir=tmp_path / "journal",
        notebook_path=tmp_path / "runs.jsonl",
    )
    with reader:
        async with app.run_test(size=(100, 30)) as pilot:
            tui = Tui(app, pilot, reader)
            await tui.drawn(2)
            yield tui


async def box_top(tui: Tui, key: str, kind: type[Screen[object]]) -> str:
    """Open a screen with `key`; the top border line of its box, as drawn."""
    await tui.press(key)
    await tui.wait(lambda: isinstance(tui.app.screen, kind), kind.__name__)
    box = tui.app.screen.query_one(Vertical)
    top = tui.region_lines(box.region)[0]
    await tui.press("escape")
    await tui.wait(lambda: not isinstance(tui.app.screen, kind), f"{kind.__name__} to close")
    return top


SCREENS: list[tuple[str, type[Screen[object]]]] = [
    ("question_mark", TextScreen),
    ("n", PickerScreen),
    ("N", RunsScreen),
    ("A", AdvisorScreen),
]


@pytest.mark.parametrize(("term", "corner"), [("linux", "+"), ("xterm-256color", "╭")])
async def test_each_box_has_the_terminals_border(tmp_path: Path, term: str, corner: str) -> None:
    async with on_terminal(tmp_path, term) as tui:
        panel = tui.top_border("cpus")
        assert panel.startswith(corner), panel
        for key, kind in SCREENS:
            top = await box_top(tui, key, kind)
            assert top.startswith(corner), (kind.__name__, top)
            assert top.isascii() == (term == "linux"), (kind.__name__, top)
