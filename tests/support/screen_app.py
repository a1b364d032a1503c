"""The App a screen test starts on the reader it made: a plain xterm in UTF-8, no tick-cost
line and no settings file written, unless the test says otherwise."""

from __future__ import annotations

from typing import Any

from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp

TEST_ENV = {"TERM": "xterm-256color", "LANG": "C.UTF-8"}


def screen_app(
    reader: HostReader, ifname: str | None, interval: float, **options: Any
) -> TuituneApp:
    """TuituneApp(reader, ifname, interval=interval, **options) with the tests' defaults."""
    options.setdefault("env", dict(TEST_ENV))
    options.setdefault("show_cost", False)
    options.setdefault("save_settings", False)
    return TuituneApp(reader, ifname, interval=interval, **options)
