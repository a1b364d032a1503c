"""`R` reverts the whole session only after asking, as `q` does, naming how many changes
(issue 31, item 13): Esc keeps everything, `r` puts back what tuitune found."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.edit_host import EditHost, editing
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen


def sysctl(h: EditHost, key: str) -> str:
    return (h.tree / "proc/sys" / key.replace(".", "/")).read_text().strip()


async def set_sysctl(h: EditHost, key: str, value: str) -> None:
    await h.tui.press("4")
    assert h.app.panels["sysctls"].view.move_cursor_to(f"sysctl:{key}")
    await h.tui.press("e")
    await h.wait(lambda: isinstance(h.app.screen, EditorScreen))
    await h.tui.press("ctrl+u")
    await h.type(value)
    await h.tui.press("enter")
    await h.wait(lambda: sysctl(h, key) == value)


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_R_asks_naming_the_count(tmp_path: Path, size: tuple[int, int]) -> None:
    async with editing(tmp_path, size=size) as h:
        await set_sysctl(h, "net.core.somaxconn", "8192")
        await set_sysctl(h, "net.core.netdev_max_backlog", "5000")
        await h.tui.press("R")
        await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
        shown = " ".join(h.screen().split())
        assert "Revert every change" in shown
        assert "Revert all 2 change(s) of this session" in shown, shown
        assert "r: revert all 2" in shown and "k: keep them" in shown, shown
        await h.tui.press("escape")  # nothing is reverted unasked
        await h.wait(lambda: not isinstance(h.app.screen, ChoiceScreen))
        assert sysctl(h, "net.core.somaxconn") == "8192"
        await h.tui.press("R")
        await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
        await h.tui.press("r")
        await h.wait(lambda: sysctl(h, "net.core.somaxconn") == "4096")
        assert sysctl(h, "net.core.netdev_max_backlog") == "1000"
