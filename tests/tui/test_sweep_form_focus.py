"""The sweep form starts on the spec file, so a path typed at once lands there, and shows
which field has the focus without colour: a marker and the field named in the hint line
(issue 31, item 14)."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.test_bench_form import bench_app
from tuitune.tui.screens.sweep import SweepScreen


def label_lines(text: str) -> list[str]:
    words = ("spec file", "dimension 1", "dimension 2", "repeats")
    return [line for line in text.splitlines() if any(w in line for w in words)]


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_focus_starts_on_the_spec_file_and_shows_without_colour(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    env = {"TERM": "linux", "LANG": "C"}  # the console: no colour to lean on
    async with bench_app(tmp_path, size=size, env=env) as tui:
        await tui.press("W")
        await tui.wait(lambda: isinstance(tui.app.screen, SweepScreen), "the sweep form")
        screen = tui.app.screen
        await tui.pilot.pause()
        lines = label_lines(tui.screen_text())
        assert any("> spec file" in x for x in lines), lines
        assert not any("> dimension 1" in x for x in lines), lines
        assert "spec file: a sweep spec" in tui.screen_text()
        dim1 = screen.query_one("#sweep-dim1", Input).value
        await tui.press(*"my.toml")
        assert screen.query_one("#sweep-spec", Input).value == "my.toml"
        assert screen.query_one("#sweep-dim1", Input).value == dim1
        await tui.press("down")  # the marker follows the focus
        await tui.pilot.pause()
        lines = label_lines(tui.screen_text())
        assert any("> dimension 1" in x for x in lines), lines
        assert not any("> spec file" in x for x in lines), lines
        assert all(len(x) <= size[0] for x in tui.screen_text().splitlines())
