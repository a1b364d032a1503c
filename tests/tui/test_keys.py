"""Pilot tests for every key the app binds, asserting on what the terminal shows.

Each test drives the real app on a recorded fixture host (tests/support/fixture_hosts.py): keys in,
screen text out. Waits poll with a generous timeout; no timing decides a result. Keys of the
lists (cursor, Enter/i) are in test_rows.py, the mouse in test_mouse.py.
"""

from __future__ import annotations

import pytest
from textual.binding import Binding
from textual.widgets import Input, Static

from tests.support.timers import timers_held
from tests.tui.conftest import PANEL_KEYS, Launch, Tui
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import PickerScreen, TextScreen

# How the key list should spell a binding's key for a person (case is not checked).
KEY_NAMES = {
    "question_mark": "?",
    "slash": "/",
    "escape": "Esc",
    "pageup": "PgUp",
    "pagedown": "PgDn",
    "shift+tab": "Shift+Tab",
    "comma": ",",
    "full_stop": ".",
    "left_square_bracket": "[",
    "right_square_bracket": "]",
    "less_than_sign": "<",
    "greater_than_sign": ">",
}


def highlighted_tab(tui: Tui) -> str:
    bar = tui.app.query_one("#tabbar")
    return "".join(ch for ch, s in tui.styles(bar.region.y) if s is not None and s.reverse).strip()


# -- q, ctrl+c ---------------------------------------------------------------------------------


@pytest.mark.parametrize("key", ["q", "ctrl+c"])
async def test_quit_keys_end_the_app(launch: Launch, key: str) -> None:
    async with launch() as tui:
        assert tui.app.is_running
        await tui.pilot.press(key)
        await tui.wait(lambda: not tui.app.is_running, "the app to exit")
    assert tui.app.return_code == 0


# -- ? / F1: the key list --------------------------------------------------------------------


def every_binding(app: TuituneApp) -> list[Binding]:
    """The bindings of the app and of every tuitune widget on screen, from their classes: a
    new panel with its own keys is found here without the test knowing about it."""
    classes: list[type] = [type(app)]
    for node in app.screen.walk_children():
        classes += [c for c in type(node).__mro__ if c.__module__.startswith("tuitune.")]
    out: list[Binding] = []
    for cls in dict.fromkeys(classes):
        out += [b for b in cls.__dict__.get("BINDINGS", []) if isinstance(b, Binding)]
    return out


async def test_key_list_shows_every_binding_and_closes(launch: Launch) -> None:
    async with launch() as tui:
        bindings = every_binding(tui.app)
        assert len(bindings) >= 20
        for open_key, close_key in (("question_mark", "escape"), ("f1", "q")):
            await tui.press(open_key)
            assert isinstance(tui.app.screen, TextScreen)
            assert "─ Keys ─" in tui.screen_text()
            body = str(tui.app.screen.query_one("#text-body", Static).content)
            lines = [ln.strip().lower() for ln in body.splitlines()]
            for b in bindings:
                keys = [KEY_NAMES.get(k, k).lower() for k in b.key.split(",")]
                assert any(
                    ln.endswith(b.description.lower()) and all(k in ln.split() for k in keys)
                    for ln in lines
                ), f"{b.key} ({b.description}) is not in the key list"
            for group in ("everywhere", "in every list", "cpu grid", "irq panel", "nic panel"):
                assert group in lines
            await tui.press(close_key)
            assert not isinstance(tui.app.screen, TextScreen)
            assert "─ Keys ─" not in tui.screen_text()
            assert tui.app.is_running  # q closed the list, it did not quit


# -- p: pause ----------------------------------------------------------------------------------


async def test_p_pauses_and_resumes_sampling(launch: Launch) -> None:
    async with launch(limit=None, samples=20, interval=0.1, wait=2) as tui:
        app = tui.app
        assert "PAUSED" not in tui.header()
        await tui.press("p")
        assert "PAUSED" in tui.header()
        # A sample read just before the key may still arrive: let every taken one land.
        await tui.pilot.pause(0.1)
        await tui.wait(lambda: app.sample is not None and app.sample.seq == app.sampler.seq)
        drawn, reads = app.samples_drawn, tui.reader.calls
        await tui.pilot.pause(0.5)  # 5 intervals: a running sampler would have drawn more
        assert (app.samples_drawn, tui.reader.calls) == (drawn, reads)
        assert "PAUSED" in tui.header()
        await tui.press("p")
        await tui.wait(lambda: app.samples_drawn >= drawn + 2, "sampling to resume")
        assert "PAUSED" not in tui.header()


# -- b: baseline -------------------------------------------------------------------------------


async def test_b_sets_and_clears_the_baseline(launch: Launch) -> None:
    async with launch(limit=None, samples=40, interval=0.2, wait=3) as tui:
        assert "BASELINE" not in tui.header()
        assert "rate/s" in tui.titles("irqs") and "count" not in tui.titles("irqs")
        with timers_held(tui.app):
            await tui.press("b")
            assert "baseline set" in tui.header()
        await tui.wait(lambda: "BASELINE" in tui.header(), "the header to say BASELINE")
        await tui.wait(lambda: "avg/s" in tui.titles("irqs"), "the IRQ panel to show averages")
        assert "count" in tui.titles("irqs") and "rate/s" not in tui.titles("irqs")
        # The averages are real: the NIC's first queue moved since the baseline.
        first = dict(zip(tui.titles("irqs"), tui.rows_seen("irqs")[0].split()[1:], strict=False))
        assert first["avg/s"] != "0" and first["count"] != "0"

        with timers_held(tui.app):
            await tui.press("b")
            assert "baseline cleared" in tui.header()
        await tui.wait(lambda: "BASELINE" not in tui.header(), "the baseline to clear")
        await tui.wait(lambda: "rate/s" in tui.titles("irqs"), "per-interval rates again")
        assert "count" not in tui.titles("irqs") and "avg/s" not in tui.titles("irqs")


# -- /: filter ---------------------------------------------------------------------------------


async def test_filter_narrows_the_focused_panel_live(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("3")
        nic = tui.view("nic")
        all_rows = len(nic.shown)
        await tui.press("slash")
        box = tui.app.query_one("#filter", Input)
        assert tui.focused() is box and box.region.height == 1  # the box is drawn
        await tui.press("r", "i", "n")
        # Live: before Enter, the panel already shows only what matches "rin".
        assert [ln.split()[0] for ln in tui.rows_seen("nic") if ln] == ["rings", "rx", "tx"]
        assert "filter: rin" in tui.bottom_border("nic")
        await tui.press("g", "enter")
        assert box.region.height == 0 and tui.focused() is nic
        assert [ln.split()[0] for ln in tui.rows_seen("nic") if ln] == ["rings", "rx", "tx"]
        assert "filter: ring" in tui.bottom_border("nic")
        # Only the focused panel is filtered.
        assert "filter" not in tui.bottom_border("sysctls")
        assert len([ln for ln in tui.rows_seen("sysctls") if ln]) > 10

        # / again edits the kept filter; Esc in the box clears it.
        await tui.press("slash")
        assert box.value == "ring"
        await tui.press("escape")
        assert box.region.height == 0 and tui.focused() is nic
        assert len(nic.shown) == all_rows
        assert "filter" not in tui.bottom_border("nic")

        # Esc also clears a kept filter after the box has closed.
        await tui.press("slash", "l", "r", "o", "enter")
        assert [ln.split()[0] for ln in tui.rows_seen("nic") if ln] == ["fixed", "rx-lro"]
        await tui.press("escape")
        assert len(nic.shown) == all_rows
        assert "filter" not in tui.bottom_border("nic")


async def test_letters_typed_into_the_filter_trigger_nothing(launch: Launch) -> None:
    async with launch() as tui:
        app = tui.app
        theme, cpu_title = app.theme, tui.top_border("cpus")
        await tui.press("slash", *"qpbvtnra?2")
        assert app.is_running
        assert app.query_one("#filter", Input).value == "qpbvtnra?2"
        header = tui.header()
        assert "PAUSED" not in header and "baseline" not in header.lower()
        assert app.theme == theme
        assert not isinstance(app.screen, (PickerScreen, TextScreen))
        assert tui.top_border("cpus") == cpu_title  # v did not switch the grid view
        assert "all of the host" not in tui.top_border("irqs")
        assert tui.rows_seen("cpus")[0].startswith("no row matches 'qpbvtnra?2'")
        # Tab ends typing and keeps the filter, on the panel it was typed for.
        await tui.press("tab")
        assert tui.focused() is tui.view("cpus")
        assert "filter: qpbvtnra?2" in tui.bottom_border("cpus")
        assert tui.rows_seen("cpus")[0].startswith("no row matches")


# -- Tab / Shift+Tab, 1-4 ----------------------------------------------------------------------


async def test_tab_and_number_keys_move_between_panels_in_the_grid(launch: Launch) -> None:
    async with launch(size=(160, 48)) as tui:
        assert tui.visible_panels() == {"cpus", "irqs", "nic", "sysctls"}

        def focused() -> list[str]:
            # Only the focused list draws its cursor row highlighted.
            return [n for n in PANEL_KEYS if tui.cursor_line(n) is not None]

        assert focused() == ["cpus"] and "Heat/list" in tui.footer()
        for expected in ("irqs", "nic", "sysctls", "cpus"):
            await tui.press("tab")
            assert focused() == [expected] and tui.focused() is tui.view(expected)
            if expected == "irqs":  # the footer offers the focused panel's own keys
                assert "a All" in tui.footer() and "Heat/list" not in tui.footer()
        await tui.press("shift+tab")
        assert focused() == ["sysctls"]
        await tui.press("shift+tab")
        assert focused() == ["nic"] and "Toggle" in tui.footer()
        for name in ("cpus", "sysctls"):
            await tui.press(PANEL_KEYS[name])
            assert focused() == [name]
        assert tui.visible_panels() == {"cpus", "irqs", "nic", "sysctls"}
        for key in ("Quit", "Keys", "Undo", "Bench", "Runs", "Export", "Baseline"):
            assert key in tui.footer()
        # Pause and Filter are in the ? list only, to leave the footer room at 80 columns.
        assert "Pause" not in tui.footer() and "Filter" not in tui.footer()


async def test_tab_and_number_keys_switch_tabs_at_80x24(launch: Launch) -> None:
    async with launch(size=(80, 24)) as tui:
        assert tui.visible_panels() == {"cpus"} and highlighted_tab(tui) == "1 CPUs"
        for name, tab in (("irqs", "2 IRQs"), ("nic", "3 NIC"), ("sysctls", "4 sysctls")):
            await tui.press("tab")
            assert tui.visible_panels() == {name} and highlighted_tab(tui) == tab
            assert tui.focused() is tui.view(name)
        await tui.press("tab")
        assert tui.visible_panels() == {"cpus"}
        await tui.press("shift+tab")
        assert tui.visible_panels() == {"sysctls"} and highlighted_tab(tui) == "4 sysctls"
        for name, tab in (("nic", "3 NIC"), ("irqs", "2 IRQs"), ("cpus", "1 CPUs")):
            await tui.press(PANEL_KEYS[name])
            assert tui.visible_panels() == {name} and highlighted_tab(tui) == tab
            assert tui.cursor_line(name) is not None
