"""The filter box (/): on the screen's last line while typing, the keys back after it."""

from __future__ import annotations

from tests.tui.conftest import Launch


async def test_what_is_typed_shows_in_the_box_and_the_keys_come_back(launch: Launch) -> None:
    async with launch(size=(120, 30)) as tui:
        await tui.press("slash")
        assert "filter rows (Enter: keep, Esc: clear)" in tui.screen_text().splitlines()[-1]
        await tui.press(*"cpu1")
        assert "cpu1" in tui.screen_text().splitlines()[-1]
        await tui.press("enter")
        last = tui.screen_text().splitlines()[-1]
        assert "cpu1" not in last and "Quit" in last, last
