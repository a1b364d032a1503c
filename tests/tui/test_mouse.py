"""Pilot tests for the mouse: every click lands where the user sees the thing on screen (the
position is found in the screen text), and the test checks what the screen shows after."""

from __future__ import annotations

from tests.support.fixture_hosts import host_256cpu
from tests.tui.conftest import Launch, Tui


def find(tui: Tui, text: str, region_y: range | None = None) -> tuple[int, int]:
    """Screen position of the first occurrence of `text` (within lines `region_y`)."""
    for y, line in enumerate(tui.lines()):
        if region_y is not None and y not in region_y:
            continue
        x = line.find(text)
        if x >= 0:
            return x, y
    raise AssertionError(f"{text!r} is not on screen")


async def test_clicking_a_tab_shows_its_panel_at_80x24(launch: Launch) -> None:
    async with launch(size=(80, 24)) as tui:
        bar = tui.app.query_one("#tabbar").region
        for label, name in (("3 NIC", "nic"), ("4 sysctls", "sysctls"), ("1 CPUs", "cpus")):
            x, y = find(tui, label, range(bar.y, bar.bottom))
            await tui.pilot.click(offset=(x + 1, y))
            await tui.pilot.pause()
            assert tui.visible_panels() == {name}
            assert tui.focused() is tui.view(name)
        # A click on the hint after the tabs changes nothing.
        x, y = find(tui, "Tab: next panel", range(bar.y, bar.bottom))
        await tui.pilot.click(offset=(x + 2, y))
        await tui.pilot.pause()
        assert tui.visible_panels() == {"cpus"}


async def test_clicking_a_panel_focuses_it_at_160x48(launch: Launch) -> None:
    async with launch(size=(160, 48)) as tui:
        for name in ("sysctls", "irqs", "nic"):
            strip = tui.panel(name).help_strip.region  # not a row: the panel itself
            await tui.pilot.click(offset=(strip.x + 2, strip.y))
            await tui.pilot.pause()
            assert tui.focused() is tui.view(name)
            assert [n for n in ("cpus", "irqs", "nic", "sysctls") if tui.cursor_line(n)] == [name]
        # The border works too (the top-left corner of the CPU panel).
        cpus = tui.panel("cpus").region
        await tui.pilot.click(offset=(cpus.x + 4, cpus.y))
        await tui.pilot.pause()
        assert tui.focused() is tui.view("cpus")


async def test_clicking_a_row_moves_the_cursor_there(launch: Launch) -> None:
    async with launch(size=(160, 48)) as tui:
        nic = tui.view("nic").scrollable_content_region
        rows = range(nic.y, nic.bottom)
        x, y = find(tui, "txqueuelen", rows)
        await tui.pilot.click(offset=(x, y))
        await tui.pilot.pause()
        line = tui.cursor_line("nic")
        assert line is not None and line.split()[:2] == ["txqueuelen", "1000"]
        assert tui.view("nic").cursor_key == "link:txqueuelen"
        # A section heading is not a row to stand on.
        x, y = find(tui, "rings ", rows)
        await tui.pilot.click(offset=(x, y))
        await tui.pilot.pause()
        line = tui.cursor_line("nic")
        assert line is not None and line.split()[0] == "txqueuelen"
        # Another row, then the help strip follows.
        x, y = find(tui, "mtu ", rows)
        await tui.pilot.click(offset=(x, y))
        await tui.pilot.pause()
        assert tui.view("nic").cursor_key == "link:mtu"
        assert "Interface MTU" in tui.help_strip("nic")


async def test_clicking_a_heat_map_cell_finds_that_cpu_in_the_list(launch: Launch) -> None:
    async with launch(host_256cpu, size=(160, 48)) as tui:
        heat = tui.app.query_one("#heatmap").region
        # Node 0 holds cores 0-63 with their siblings 128-191, in topology order 0, 128, 1,
        # 129...: its second line starts at the 65th CPU (core 32); 16 cells on (two groups
        # of 8, each followed by a space) sits core 40's first thread: CPU 40.
        x, y = heat.x + 4 + 16 + 2, heat.y + 1
        await tui.pilot.click(offset=(x, y))
        await tui.pilot.pause()
        assert tui.view("cpus").cursor_key == "cpu:40"
        line = tui.cursor_line("cpus")  # scrolled into sight, far down the busiest-first list
        assert line is not None and line.split()[0] == "40◆"
        assert tui.help_strip("cpus").startswith("cpu40 node 0 NIC-local")
        selected = tui.styles(y)[x][1]
        assert selected is not None and selected.reverse  # the clicked cell is marked
        # The label column is not a CPU: clicking it moves nothing.
        await tui.pilot.click(offset=(heat.x + 1, heat.y))
        await tui.pilot.pause()
        assert tui.view("cpus").cursor_key == "cpu:40"
