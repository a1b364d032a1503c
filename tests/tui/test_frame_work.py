"""A tick that changes nothing on a part of the screen does not redraw that part (issue 18,
goal 4: the frame, Textual's drawing in the main thread, was 3.6x the tick's reads)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from rich.text import Text
from textual.widgets import Static

from tests.tui.conftest import Launch


async def test_an_unchanged_header_is_not_updated_again(launch: Launch) -> None:
    # Two samples, then the replay holds: later ticks have the same (zero) link rates, and the
    # launch hides the read cost, so the header's text stays the same from tick to tick
    # (the findings' count may still change once).
    async with launch(samples=2, limit=None, interval=0.1, wait=3) as tui:
        header = tui.app.query_one("#header", Static)
        texts: list[Text] = []
        original = header.update

        def counting(content: Any = "", **kwargs: Any) -> None:
            texts.append(content)
            original(content, **kwargs)

        header.update = counting  # type: ignore[method-assign]
        seen = tui.app.samples_drawn
        await tui.drawn(seen + 5)
        # Each update brings a new text: five ticks of the same text cost no new Content.
        assert len(texts) < 5
        assert all(a != b for a, b in pairwise(texts))
        assert tui.header().startswith("tuitune 2xE5-2640-i350")
