"""A change shows on its row from the value the journal read back, before the next sample
(issue 18, goal 3), and the first rates come long before one --interval (goal 2).

The refresh is 60 s and the re-read a change asks for never comes (the sampler's
refresh_state is held), so the row can only show the new value from the journal's own
read-back: ordering, not time.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.edit_host import editing


async def test_a_toggle_is_on_its_row_before_any_new_sample(tmp_path: Path) -> None:
    # editing() waits for two samples drawn: with --interval 60 only the short first gap
    # brings the second one (goal 2).
    async with editing(tmp_path, interval=60) as h:
        asked: list[bool] = []
        h.app.sampler.refresh_state = lambda: asked.append(True)  # type: ignore[method-assign]
        drawn = h.app.samples_drawn
        await h.tui.press("3")
        assert h.row("nic", "feature:rx-gro").split()[1] == "on"
        await h.tui.press("space")
        await h.wait(lambda: "rx-gro: on -> off" in h.tui.header())
        await h.wait(lambda: h.row("nic", "feature:rx-gro").split()[1] == "off")
        assert h.app.samples_drawn == drawn  # no sample came in between
        assert asked  # the full re-read is still asked for


async def test_tso_off_shows_what_moved_with_it(tmp_path: Path) -> None:
    # tx checksumming off takes TSO with it (the fake device, like Linux 6.x): the journal's
    # side effect shows on TSO's row at once too.
    async with editing(tmp_path, interval=60) as h:
        h.app.sampler.refresh_state = lambda: None  # type: ignore[method-assign]
        await h.tui.press("3")
        assert h.row("nic", "feature:tx-tcp-segmentation").split()[1] == "on"
        h.row("nic", "feature:tx-checksum-ip-generic")
        await h.tui.press("space")
        await h.wait(lambda: h.row("nic", "feature:tx-checksum-ip-generic").split()[1] == "off")
        assert h.row("nic", "feature:tx-tcp-segmentation").split()[1] == "off"


async def test_a_sysctl_edit_is_on_its_row_before_any_new_sample(tmp_path: Path) -> None:
    async with editing(tmp_path, interval=60) as h:
        h.app.sampler.refresh_state = lambda: None  # type: ignore[method-assign]
        drawn = h.app.samples_drawn
        await h.tui.press("4")
        row = "sysctl:net.core.somaxconn"
        assert h.row("sysctls", row).split()[1] == "4096"
        await h.tui.press("e")
        await h.type("8192")
        await h.tui.press("enter")
        await h.wait(lambda: h.row("sysctls", row).split()[1] == "8192")
        assert h.app.samples_drawn == drawn
