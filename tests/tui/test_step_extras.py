"""The step message names what the kernel changed beside the setting written, as ethtool says
it ("tx-tcp-segmentation off [requested on]"), and every row a change moved keeps its "was"
note until the baseline changes, not only the last change's rows (issue 31 item 17). At 80x24
and 200x60."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.edit_host import editing
from tests.support.session_fakes import CSUM, TSO
from tests.tui.test_edit_refusals import edit


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_kernel_extras_are_said_and_was_notes_stay(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    async with editing(tmp_path, size=size) as h:
        await h.tui.press("3")
        assert h.app.panels["nic"].view.move_cursor_to(f"feature:{CSUM}")
        await h.tui.press("space")
        await h.wait(lambda: "the kernel also changed" in h.tui.header())
        said = " ".join(h.tui.header().split())
        assert f"the kernel also changed {TSO} off [requested on]" in said, said
        await h.wait(lambda: "was on" in h.row("nic", f"feature:{TSO}"))
        # A second change elsewhere: the first one's rows still say what they were.
        await edit(h, "nic", "link:txqueuelen", "5000")
        await h.wait(lambda: "was 1000" in h.row("nic", "link:txqueuelen"))
        assert "was on" in h.row("nic", f"feature:{TSO}")
        assert "was on" in h.row("nic", f"feature:{CSUM}")
        # A new baseline: the notes count from it.
        await h.tui.press("b")
        await h.wait(lambda: "was on" not in h.row("nic", f"feature:{TSO}"))
