"""A risky change (MTU) on the screen is a trial: the header counts down, and unless y is
pressed in time the screen puts the original back itself, also while sampling is paused.
The detached watchdog is replaced here by a stand-in that does nothing, so the revert seen
is the screen's own."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from tests.support.edit_host import DEV, EditHost, editing
from tests.tui.test_edit_refusals import edit
from tuitune.core.session import watchdog_process


def mtu(h: EditHost) -> str:
    return (h.tree / f"sys/class/net/{DEV}/mtu").read_text().strip()


async def test_an_unconfirmed_trial_is_put_back_by_the_screen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        watchdog_process, "spawn", lambda spec: 0
    )  # no helper process: the screen's
    async with editing(tmp_path) as h:
        # Long enough to be seen at any load (a 2 s trial ended unseen at load 10, cc22);
        # then its clock is run out, as if the seconds had passed.
        h.app.editor.trial_seconds = 60.0
        before = mtu(h)
        await edit(h, "nic", "link:mtu", "9000")
        await h.wait(lambda: mtu(h) == "9000")
        await h.wait(lambda: f"TRIAL {DEV} mtu: reverts in" in h.tui.header())
        h.app.editor.trial_deadline = time.monotonic()
        await h.tui.press("p")  # paused: no sample redraws, the countdown still runs
        await h.wait(lambda: mtu(h) == before)
        await h.wait(lambda: "trial ended, put back" in h.tui.header())
        assert "TRIAL" not in h.tui.header()
