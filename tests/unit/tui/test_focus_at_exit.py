"""A focus event still queued when the app's screens are gone (it shuts down) changes nothing
and raises nothing: it once ended a run with Textual's ScreenStackError (seen in CI)."""

from __future__ import annotations

from pathlib import Path

from tests.support.fixture_hosts import host_4cpu_series
from tuitune.tui.app import TuituneApp


def test_a_focus_event_without_screens_is_ignored(tmp_path: Path) -> None:
    reader, name = host_4cpu_series(tmp_path)
    with reader:
        app = TuituneApp(reader, name, save_settings=False)
        assert app.screen_stack == []  # as after the last screen is popped at exit
        active = app.active
        app.on_descendant_focus(object())
        assert app.active == active
