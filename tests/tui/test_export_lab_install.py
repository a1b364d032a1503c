"""In the lab, `E` then `i` asks before installing, and says what it would do: write this
machine's own configuration, which outlives the lab (issue 31 item 20). `n` and Esc write
nothing; outside the lab the question stays the plain one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.screen_text import until
from tests.tui.test_export_preview import flat, open_preview, running, shown, the_app, tune
from tests.tui.test_lab_quit import LAB
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.screens.export import ExportScreen


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_install_in_the_lab_spells_out_the_consequence(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    async with running(tmp_path, size=size, lab=LAB) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        await open_preview(pilot)
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        screen = app.screen
        assert isinstance(screen, ChoiceScreen)
        whole = flat(str(screen.text))  # the box scrolls at 80x24: the whole question
        question = flat(shown(pilot))  # what is on screen at once
        assert "This is the lab: its namespaces go when you quit, these files do not." in question
        assert "install anyway" in question
        assert "this machine's own configuration (not into the lab)" in whole
        assert "stay after the lab is removed and apply to this machine at its next boot" in whole
        await pilot.press("n")
        await until(pilot, lambda: "install cancelled: nothing was written" in shown(pilot))
        assert isinstance(app.screen, ExportScreen)
        assert not (tmp_path / "dest").exists()


async def test_outside_the_lab_the_question_is_the_plain_one(tmp_path: Path) -> None:
    async with running(tmp_path) as pilot:
        app = the_app(pilot)
        await tune(pilot)
        await open_preview(pilot)
        await pilot.press("i")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        assert "This is the lab" not in flat(shown(pilot))
        await pilot.press("escape")
