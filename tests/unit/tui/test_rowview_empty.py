"""A table with no rows says why in its empty text, and a new empty text reaches the screen
even when the rows stay empty: the IRQ panel of a veth once said "reading..." for ever (CI)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from tuitune.tui.panels.rowview import Column, RowView


class _OneTable(App[None]):
    def compose(self) -> ComposeResult:
        yield RowView([Column("queue", 10), Column("IRQ", 6)], id="t")


def _screen(app: App[None]) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(seg.text for seg in strip) for strip in strips)


async def test_a_new_empty_text_is_drawn_although_the_rows_stay_empty() -> None:
    app = _OneTable()
    async with app.run_test(size=(60, 6)) as pilot:
        view = app.query_one(RowView)
        view.empty_text = "reading..."
        view.set_rows([])
        await pilot.pause()
        assert "reading..." in _screen(app)
        view.set_rows([])  # the next sample: still no rows, so set_rows asks for no repaint
        view.empty_text = "eth9 has no IRQs of its own"
        await pilot.pause()
        screen = _screen(app)
        assert "eth9 has no IRQs of its own" in screen
        assert "reading..." not in screen
