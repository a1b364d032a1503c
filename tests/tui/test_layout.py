"""The wide layout sized by what the panels hold, the zoom key, and the offloads at a glance
near the top of the NIC panel (issue 22 item 7)."""

from __future__ import annotations

import pytest

from tests.support.fixture_hosts import host_4cpu_series
from tests.tui.conftest import Launch
from tuitune.tui.panels.layout import MIN_ROW, split_rows


def test_a_row_that_needs_little_gives_the_rest_to_the_other() -> None:
    assert split_rows(43, 10, 80) == 10  # 4 CPUs, 4 IRQs: the NIC row gets 33
    assert split_rows(43, 3, 80) == MIN_ROW
    assert split_rows(43, 80, 12) == 31  # the other way round
    assert split_rows(43, 40, 80) == 21  # both need more than half: half each
    assert split_rows(12, 3, 3) == 6


@pytest.mark.parametrize("size", [(160, 48), (200, 60)])
async def test_offloads_show_without_scrolling_when_cpus_and_irqs_are_few(
    launch: Launch, size: tuple[int, int]
) -> None:
    async with launch(host_4cpu_series, size=size) as tui:
        cpus, nic = tui.panel("cpus").region, tui.panel("nic").region
        # Every CPU and IRQ row is on screen, and the NIC panel got the rows they left.
        assert [ln.split()[0] for ln in tui.rows_seen("cpus") if ln.strip()] == [
            "all",
            "0",
            "1",
            "2",
            "3",
        ]
        assert len([ln for ln in tui.rows_seen("irqs") if ln.startswith("TxRx")]) == 4
        assert nic.height > 2 * cpus.height
        seen = tui.rows_seen("nic")
        glance = next(i for i, ln in enumerate(seen) if ln.startswith("offloads at a glance"))
        assert glance < 12  # right after the link
        text = " ".join(seen)
        for feature in ("tx-generic-segmentation on", "rx-gro on", "tx-vlan-hw-insert on"):
            assert feature in text
        assert "fixed off: 2 more" in text


async def test_z_zooms_the_focused_panel_and_back(launch: Launch) -> None:
    async with launch(size=(160, 48)) as tui:
        await tui.press("3", "z")
        assert tui.visible_panels() == {"nic"}
        body = tui.app.query_one("#body").region
        assert tui.panel("nic").region.height == body.height
        assert "zoomed" in tui.header()
        await tui.press("tab")  # the next panel, zoomed too
        assert tui.visible_panels() == {"sysctls"}
        await tui.press("z")
        assert tui.visible_panels() == {"cpus", "irqs", "nic", "sysctls"}
        await tui.press("?")
        assert "Zoom" in tui.screen_text()
