"""Pause rx the link partner keeps on (issue 22, item 6), from the live screen: the message
says the partner decides, and the screen offers pause autoneg off with the change."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.support.edit_host import DEV, ScreenDevice, editing
from tuitune.core.host.ethtool import Pause
from tuitune.tui.screens.dialogs import ChoiceScreen


class Negotiated(ScreenDevice):
    def set_pause(
        self, autoneg: bool | None = None, rx: bool | None = None, tx: bool | None = None
    ) -> None:
        super().set_pause(autoneg, rx, tx)
        if self.pause_.autoneg:  # the partner wants pause both ways
            self.pause_ = Pause(True, True, True)


async def test_the_screen_offers_autoneg_off_with_the_change(tmp_path: Path) -> None:
    device = Negotiated(DEV)
    async with editing(tmp_path, device=device) as h:
        await h.tui.press("3")
        assert h.app.panels["nic"].view.move_cursor_to("pause:rx")
        await h.tui.press("space")
        await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
        text = " ".join(h.shown(s) for s in h.app.screen.query(Static))
        assert "with pause autoneg on, the link partner decides rx/tx pause" in text
        assert "a: turn pause autoneg off and set rx off" in text
        # The header's message is drawn on its own refresh, which may come after the
        # question's (cc21, at load 10): wait for it rather than read it at once.
        await h.wait(lambda: "the link partner decides" in h.tui.header())
        await h.tui.press("a")
        await h.wait(lambda: "pause rx: on -> off" in h.tui.header())
        assert "changed eth0 pause autoneg: on -> off" in h.tui.header()
        assert device.pause_ == Pause(False, False, True)
