"""Nothing below the header moves while you read (issue 31 item 15): the message line is
always there, blank between messages, and the header never takes fewer rows at a width than
it took before, so a line that wraps at one tick and not the next does not move the panels.
At 80x24 (where the header wraps) and 200x60."""

from __future__ import annotations

import pytest
from rich.text import Text

from tests.tui.conftest import Launch, Tui


def _body_top(tui: Tui) -> int:
    return tui.app.query_one("#body").region.y


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_a_message_and_a_wrapping_line_move_nothing(
    launch: Launch, size: tuple[int, int]
) -> None:
    async with launch(size=size, limit=None, interval=0.2) as tui:
        top = _body_top(tui)
        tui.app.notify_line("a message that comes and goes")
        await tui.wait(lambda: "a message that comes and goes" in tui.header(), "the message")
        assert _body_top(tui) == top
        # A header whose lines wrap more (a long warning at this width), then less again.
        header = tui.app.header
        long = Text("x " * size[0] * 2 + "\nlink\nrates\n")
        header.show(long)
        await tui.pilot.pause()
        grown = _body_top(tui)
        await tui.wait(lambda: "a message that comes and goes" not in tui.header(), "gone")
        await tui.drawn(tui.app.samples_drawn + 2)  # ticks with the short header again
        assert _body_top(tui) == grown >= top
