"""The quiet terminal driver: the input thread sleeps until a key, and still delivers a lone
Escape when the key parser's timeout is due (the end-to-end check is in
tests/kernel/test_tui_tmux.py, which presses Escape in a real terminal)."""

from __future__ import annotations

from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver

from tuitune.tui.app import TuituneApp
from tuitune.tui.driver import QuietLinuxDriver, _timeout


def test_an_idle_parser_lets_the_input_thread_sleep() -> None:
    assert _timeout(XTermParser()) is None


def test_a_lone_escape_sets_a_short_wakeup() -> None:
    parser = XTermParser()
    assert list(parser.feed("\x1b")) == []  # not yet a key: it may start a sequence
    due = _timeout(parser)
    assert due is not None and 0.0 <= due <= 1.0


def test_the_app_uses_the_quiet_driver_where_textual_would_use_linux() -> None:
    stock = super(TuituneApp, TuituneApp).get_driver_class
    app = TuituneApp.__new__(TuituneApp)
    assert stock(app) is LinuxDriver  # this suite runs on Linux
    assert TuituneApp.get_driver_class(app) is QuietLinuxDriver
