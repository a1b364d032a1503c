"""The footer is rebuilt only when the keys it shows change (issue 38 goal 2: Textual's Footer
rebuilt some 30 widgets at every focus change), and always shows the focused panel's keys."""

from __future__ import annotations

from pathlib import Path

from textual.widgets._footer import FooterKey

from tests.support.edit_host import EditHost, editing
from tuitune.tui.panels.footer import KeysFooter, shown_bindings


def footer_keys(h: EditHost) -> set[str]:
    """The actions of the footer's keys (Footer shows one key per action)."""
    return {k.action for k in h.app.query_one(KeysFooter).query(FooterKey)}


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
