"""The small terminal (80x24) and the start without an interface.

At 80x24 the panels are tabs: each must be reachable by keys, every row by scrolling, and a
value the width cuts ("~") must still be readable somewhere: in the help strip under the list
when the cursor is on it, or in the row's help (Enter).
"""

from __future__ import annotations

import pytest
from textual.widgets import Static

from tests.tui.conftest import PANEL_KEYS, Launch, Tui
from tests.tui.test_panels import all_rendered_rows
from tuitune.tui.panels.rowview import CellValue
from tuitune.tui.screens.dialogs import PickerScreen, TextScreen


def plain(cell: CellValue) -> str:
    if callable(cell):  # bars: drawn to fit, never text to read
        return ""
    return cell if isinstance(cell, str) else "".join(text for text, _ in cell)


async def unreadable(tui: Tui, name: str) -> list[str]:
    """Cells of a panel that the screen cuts and that cannot be read in full anywhere else."""
    view = tui.view(name)
    lost = []
    for row, line in zip(view.shown, await all_rendered_rows(tui, name), strict=True):
        cut = [t for t in map(plain, row.values) if t and t not in line]
        if not cut or row.section:
            lost += [f"{row.key}: {t}" for t in cut]
            continue
        view.move_cursor_to(row.key)
        await tui.pilot.pause()
        strip = tui.help_strip(name)
        cut = [t for t in cut if t not in strip]
        if cut:
            # What Enter does (test_rows.py presses it); called directly, as a key press costs
            # Pilot's idle wait and this runs for every cut row.
            tui.app.action_info()
            await tui.pilot.pause()
            text = ""
            if isinstance(tui.app.screen, TextScreen):
                body = tui.app.screen.query_one("#text-body", Static).content
                text = f"{tui.app.screen.title_text}\n{body}"
                tui.app.pop_screen()
                await tui.pilot.pause()
            lost += [f"{row.key}: {t}" for t in cut if t not in text]
    return lost


@pytest.mark.parametrize(
    "name",
    [
        "cpus",
        "irqs",
        "nic",
        "sysctls",
    ],
)
async def test_80x24_every_row_and_value_can_be_read(launch: Launch, name: str) -> None:
    async with launch(size=(80, 24)) as tui:
        await tui.press(PANEL_KEYS[name])
        assert tui.visible_panels() == {name}
        view = tui.view(name)
        assert len(view.shown) > view.scrollable_content_region.height - 1 or name == "irqs"
        await tui.press("end")
        line = tui.cursor_line(name)
        last = next(r for r in reversed(view.shown) if not r.section)
        assert line is not None and view.cursor_key == last.key
        await tui.press("home")
        assert await unreadable(tui, name) == []


async def test_80x24_header_tabs_and_footer_fit(launch: Launch) -> None:
    async with launch(size=(80, 24)) as tui:
        header = tui.header()
        assert "2xE5-2640-i350" in header and "eth0" in header and "rx " in header
        bar = tui.lines()[tui.app.query_one("#tabbar").region.y]
        for tab in ("1 CPUs", "2 IRQs", "3 NIC", "4 sysctls"):
            assert tab in bar
        assert "? Keys" in tui.footer()  # the way to every other key stays visible
        # The CPU list keeps at least a few rows under the header and heat map.
        assert len([ln for ln in tui.rows_seen("cpus") if ln]) >= 5
        for panel in "1234":  # each panel's keys still end in a whole last key
            await tui.press(panel)
            assert tui.footer().rstrip().endswith("b Baseline"), (panel, tui.footer())


# -- start without an interface ---------------------------------------------------------------


async def test_start_without_interface_opens_the_picker(launch: Launch) -> None:
    async with launch(ifname=None, limit=None, samples=20, interval=0.3, wait=0) as tui:
        await tui.wait(lambda: isinstance(tui.app.screen, PickerScreen), "the picker")
        text = tui.screen_text()
        assert "Which interface?" in text
        assert " eth0 " in text and "UP" in text
        await tui.press("enter")
        assert not isinstance(tui.app.screen, PickerScreen)
        await tui.wait(lambda: "─ NIC eth0 ─" in tui.screen_text(), "the NIC panel on eth0")
        await tui.wait(lambda: "─ IRQs of eth0 ─" in tui.screen_text(), "eth0's IRQs")
        await tui.wait(lambda: len(tui.view("irqs").shown) == 9, "eth0's queues listed")
        assert tui.header().splitlines()[1].split()[:2] == ["eth0", "igb"]


async def test_start_without_interface_esc_watches_cpus_only(launch: Launch) -> None:
    async with launch(ifname=None, wait=0) as tui:
        await tui.wait(lambda: isinstance(tui.app.screen, PickerScreen), "the picker")
        await tui.press("escape")
        assert not isinstance(tui.app.screen, PickerScreen)
        await tui.drawn(3)
        assert "no interface: press n to pick one" in tui.header()  # n is the picker's key
        assert tui.rows_seen("irqs")[0].startswith("no interface picked")
        assert tui.rows_seen("cpus")[0].split()[0] == "all"  # the CPUs are still watched
