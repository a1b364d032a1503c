"""The quiet terminal driver: the input thread sleeps until a key, and still delivers a lone
Escape when the key parser's timeout is due (the end-to-end check is in
tests/kernel/test_tui_tmux.py, which presses Escape in a real terminal)."""

from __future__ import annotations

import _signal
import asyncio
import os
import signal
import threading
from collections.abc import Iterator

import pytest
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


@pytest.fixture
def signals_kept() -> Iterator[None]:
    """Textual's Linux driver installs SIGTSTP and SIGCONT handlers for the whole process when
    it is made: put back what was there, so no later test runs with a dead driver's."""
    saved = {s: signal.getsignal(s) for s in (signal.SIGTSTP, signal.SIGCONT)}
    yield
    for sig, handler in saved.items():
        # The C module's own: signal.signal turns the handler it replaces into an enum if it
        # can, and that repr()s this test's half-made app, which raises. None: not set from
        # Python, the default.
        _signal.signal(
            sig,
            _signal.SIG_DFL
            if handler is None
            else int(handler)
            if isinstance(handler, signal.Handlers)
            else handler,
        )


@pytest.mark.usefixtures("signals_kept")
async def test_a_hung_up_terminal_stops_the_reads_and_delivers_the_hangup(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A killed tmux pane under `su`: no SIGHUP reached tuitune, its terminal read EOF/EIO
    for ever, and the input thread spun at a third of a CPU. Now one read sees the hangup,
    the terminal is read no more, and the hangup is delivered (os.kill is caught here)."""
    master, slave = os.openpty()
    driver = QuietLinuxDriver(TuituneApp.__new__(TuituneApp))  # it only keeps the reference
    driver.fileno = slave
    reads: list[int] = []
    real_read = os.read

    def read(fd: int, n: int) -> bytes:
        if fd == slave:
            reads.append(fd)
        return real_read(fd, n)

    hangups: list[tuple[int, int]] = []
    delivered = threading.Event()

    def kill(pid: int, sig: int) -> None:
        hangups.append((pid, sig))
        delivered.set()

    monkeypatch.setattr(os, "read", read)
    monkeypatch.setattr(os, "kill", kill)
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        os.close(master)  # the terminal hangs up
        assert await asyncio.to_thread(delivered.wait, 30), "no hangup delivered"
        assert hangups == [(os.getpid(), signal.SIGHUP)]
    finally:
        driver.exit_event.set()
        thread.join(30)
        os.close(slave)
    assert not thread.is_alive()
    assert len(reads) == 1, len(reads)  # the read that saw the hangup, none after it


async def test_a_synchronized_frame_reaches_the_writer_thread_in_one_piece() -> None:
    """Textual writes a frame as begin-sync, the frame, end-sync: three hand-offs to the
    writer thread, each of which can wake it (issue 38). The driver hands over one, the
    same bytes; writes outside a frame go at once."""
    from textual._ansi_sequences import SYNC_END, SYNC_START

    # Not constructed: only its write path is under test.
    driver = QuietLinuxDriver.__new__(QuietLinuxDriver)
    handed: list[str] = []

    class Writer:
        def write(self, text: str) -> None:
            handed.append(text)

    driver._writer_thread = Writer()  # type: ignore[assignment]
    driver.write("\x1b[?25l")  # not in a frame: at once
    assert handed == ["\x1b[?25l"]
    driver.write(SYNC_START)
    driver.write("\x1b[1;1Hframe")
    assert len(handed) == 1  # held until the frame ends
    driver.write(SYNC_END)
    assert handed == ["\x1b[?25l", SYNC_START + "\x1b[1;1Hframe" + SYNC_END]
