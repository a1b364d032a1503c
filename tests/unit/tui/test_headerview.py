"""The header at a tick that changes only its rates line: no new Content for the whole text,
a repaint from that row down, and what Textual still asks of the Static (its visual, for a
text selection and `height: auto`) is the text shown (issue 18, goal 4)."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.content import Content

from tuitune.tui.panels.headerview import HeaderView


class _Header(App[None]):
    def compose(self) -> ComposeResult:
        yield HeaderView()


def _screen(app: App[None]) -> list[str]:
    strips = app.screen._compositor.render_strips()
    return ["".join(seg.text for seg in strip).rstrip() for strip in strips]


async def test_a_new_rates_line_is_drawn_without_setting_the_whole_text() -> None:
    app = _Header()
    async with app.run_test(size=(40, 8)) as pilot:
        header = app.query_one(HeaderView)
        updates: list[Any] = []
        update = header.update

        def counting(content: Any = "", **kwargs: Any) -> None:
            updates.append(content)
            update(content, **kwargs)

        header.update = counting  # type: ignore[method-assign]
        header.show(Text("tuitune host1\neth2 ixgbe\nrx 1 Gb/s"))
        await pilot.pause()
        assert len(updates) == 1 and _screen(app)[:3] == [
            "tuitune host1",
            "eth2 ixgbe",
            "rx 1 Gb/s",
        ]
        repaints: list[Any] = []
        refresh = header.refresh

        def watched(*regions: Any, **kwargs: Any) -> Any:
            repaints.append(regions)
            return refresh(*regions, **kwargs)

        header.refresh = watched  # type: ignore[method-assign]
        header.show(Text("tuitune host1\neth2 ixgbe\nrx 2 Gb/s"))
        await pilot.pause()
        assert len(updates) == 1  # no new Content for the whole text
        assert [r.y for regions in repaints for r in regions] == [2]  # from the rates row
        assert _screen(app)[:3] == ["tuitune host1", "eth2 ixgbe", "rx 2 Gb/s"]
        visual = header.visual
        assert isinstance(visual, Content) and visual.plain.endswith("rx 2 Gb/s")
        # Another number of lines: the whole text again, with a new layout.
        header.show(Text("tuitune host1\neth2 ixgbe\nrx 3 Gb/s\n1 finding"))
        await pilot.pause()
        assert len(updates) == 2
        assert _screen(app)[:4] == ["tuitune host1", "eth2 ixgbe", "rx 3 Gb/s", "1 finding"]
