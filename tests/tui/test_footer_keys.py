"""The footer's keys are made again only when the keys it shows change (issue 38: Textual's
Footer mounted a widget per key again at every change), and it always shows the focused
panel's keys, on the screen's last line."""

from __future__ import annotations

from pathlib import Path

from tests.support.edit_host import EditHost, editing
from tuitune.tui.panels.footer import KeysFooter, shown_bindings


def footer_keys(h: EditHost) -> set[str]:
    """The actions of the footer's keys (Footer shows one key per action)."""
    return {action for action, _, _ in h.app.query_one(KeysFooter).shown_keys()}


def shown_keys(h: EditHost) -> set[str]:
    return {b.action for b, _, _ in shown_bindings(h.app.screen)}


async def test_same_keys_no_rebuild_and_a_panels_own_keys_shown(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        footer = h.app.query_one(KeysFooter)
        await h.tui.press("1")
        await h.wait(lambda: footer_keys(h) == shown_keys(h))
        before = footer.rebuilds
        footer.bindings_changed(h.app.screen)  # what every focus change and refresh does
        footer.bindings_changed(h.app.screen)
        assert footer.rebuilds == before
        await h.tui.press("2")  # the IRQ panel: its keys (a: all IRQs) are not the CPU list's
        await h.wait(lambda: footer_keys(h) == shown_keys(h))
        assert footer.rebuilds == before + 1
        assert "app.all_irqs" in footer_keys(h)
        # What it lists is what the screen's last line shows, each key with its description.
        await h.wait(lambda: "a All" in h.tui.footer())
        labels = [label for _, label, _ in footer.shown_keys()]
        assert all(label in h.tui.footer() for label in labels[:4]), (labels, h.tui.footer())
        assert not footer.children  # one widget, no widget per key


async def test_a_click_on_a_key_presses_it(tmp_path: Path) -> None:
    """As Textual's Footer: a click on a key of the line runs it (here `?`, the keys list)."""
    async with editing(tmp_path) as h:
        footer = h.app.query_one(KeysFooter)
        await h.wait(lambda: "? Keys" in h.tui.footer())
        x = h.tui.footer().index("? Keys") - footer.region.x
        await h.tui.pilot.click(KeysFooter, offset=(x + 1, 0))
        await h.wait(lambda: h.app.screen is not h.app.screen_stack[0])
