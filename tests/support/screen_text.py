"""The screen of a running test app as plain text lines, as tmux capture-pane would show it,
and waiting for it to show something."""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App
from textual.pilot import Pilot


def settled(app: App[object]) -> bool:
    """The current screen composed and laid out: a screen is `app.screen` from the moment it is
    pushed, before its widgets are mounted or placed, and its text read then is blank (CI
    stop 43: three tests read an editor or a choice screen that early, under load)."""
    if not app.is_running or not app.screen_stack:
        return True  # nothing more will be drawn
    screen = app.screen
    return (
        screen.is_mounted
        and screen._compositor.root is not None
        and not screen._layout_required
        and all(widget.is_mounted for widget in screen.walk_children())
    )


def screen_text(app: App[object]) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join(strip.text.rstrip() for strip in strips)


async def until(pilot: Pilot[int], ok: Callable[[], object], timeout: float = 10.0) -> None:
    """Let the app run until `ok()` holds; fail with the screen as it was, never on time alone
    (the timeout is generous)."""
    for _ in range(int(timeout / 0.02)):
        if ok() and settled(pilot.app):
            return
        await pilot.pause(0.02)
    raise AssertionError("the screen never got there:\n" + screen_text(pilot.app))


async def until_text(pilot: Pilot[int], ok: Callable[[str], object], timeout: float = 10.0) -> str:
    """Like `until`, on the screen's text, and that very text back: asserting on a second
    read races with the next frame (a hint replacing the line just waited for)."""
    for _ in range(int(timeout / 0.02)):
        text = screen_text(pilot.app)
        if settled(pilot.app) and ok(text):
            return text
        await pilot.pause(0.02)
    raise AssertionError("the screen never got there:\n" + screen_text(pilot.app))
