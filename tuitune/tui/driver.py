"""A terminal driver that sleeps until there is input.

Textual's LinuxDriver reads keys on a thread that wakes every 100 ms to check whether it
should stop and whether a lone Escape has waited long enough: ten wakeups a second, about
1.5 ms of CPU per second here, a sixth of tuitune's whole observer cost (BENCHMARKS.md).
This driver blocks in select() until a key arrives, the parser's own Escape timeout is due,
or the app stops (a byte on a private pipe wakes it). Behaviour is otherwise the stock
driver's: the same parser, the same messages.

Output: Textual hands each synchronized frame to the writer thread in three writes (begin
sync, the frame, end sync), and each write can wake that thread (issue 38: up to three
wake-ups a frame for one write to the terminal). The driver holds a frame's pieces and hands
them over as one; the bytes are the same.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import threading
from codecs import getincrementaldecoder
from typing import Any

from textual._ansi_sequences import SYNC_END, SYNC_START
from textual._time import get_time  # the clock the parser sets its timeout with
from textual._xterm_parser import XTermParser
from textual.drivers.linux_driver import LinuxDriver


def _timeout(parser: XTermParser) -> float | None:
    """Seconds until the parser needs a tick (a pending Escape), None when it needs none."""
    due = getattr(parser, "_timeout_time", 0.0)  # a private field: if it goes, poll at 0.1 s
    if due is None:
        return None
    if not isinstance(due, float | int):
        return 0.1
    return max(0.0, float(due) - get_time())


class _WakingEvent(threading.Event):
    """The input thread's stop flag: setting it also wakes the thread from select(), after
    the flag is set (waking it first would let it check the flag too early and sleep on)."""

    def __init__(self, wake_fd: int) -> None:
        super().__init__()
        self._wake_fd = wake_fd

    def set(self) -> None:
        super().set()
        with contextlib.suppress(OSError):
            os.write(self._wake_fd, b"x")


class QuietLinuxDriver(LinuxDriver):
    _frame: list[str] | None = None  # a synchronized frame's pieces, until its end

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._wake_r, self._wake_w = os.pipe()
        self.exit_event = _WakingEvent(self._wake_w)

    def write(self, data: str) -> None:
        if self._frame is not None:
            self._frame.append(data)
            if data == SYNC_END:
                frame, self._frame = "".join(self._frame), None
                super().write(frame)
            return
        if data == SYNC_START:
            self._frame = [data]
            return
        super().write(data)

    def run_input_thread(self) -> None:
        selector = selectors.SelectSelector()
        selector.register(self.fileno, selectors.EVENT_READ)
        selector.register(self._wake_r, selectors.EVENT_READ)
        parser = XTermParser(self._debug)
        decode = getincrementaldecoder("utf-8")().decode

        def handle(events: list[tuple[selectors.SelectorKey, int]], final: bool = False) -> None:
            for key, mask in events:
                if key.fd == self._wake_r:
                    os.read(self._wake_r, 64)  # consumed, so the next select blocks again
                    continue
                if not mask & selectors.EVENT_READ:
                    continue
                try:
                    raw = os.read(self.fileno, 1024 * 4)
                except OSError:  # EIO: the terminal hung up
                    raw = b""
                if not raw:
                    self._input_gone(selector)
                    return
                data = decode(raw, final=final)
                if not data:  # a character's first bytes: the rest comes with the next read
                    continue
                for event in parser.feed(data):
                    self.process_message(event)
            for event in parser.tick():
                self.process_message(event)

        try:
            while not self.exit_event.is_set():
                handle(selector.select(_timeout(parser)))
            if self.fileno in selector.get_map():
                selector.unregister(self.fileno)
                handle(selector.select(0.1), final=True)
        finally:
            selector.close()
            try:
                for _ in parser.feed(""):
                    pass
            except Exception:  # the stock driver ignores a parse error at the very end too
                pass

    def _input_gone(self, selector: selectors.BaseSelector) -> None:
        """End of input on the terminal: it hung up (a closed SSH session, a killed tmux pane)
        and no SIGHUP reached us (`su` in between, say). select() would report it readable for
        ever: the stock driver's loop spun on it (2000 wakeups a second, a third of a CPU, as
        root, seen after a tmux kill). Stop reading, and deliver the hangup the kernel did not:
        its default ends tuitune as a lost session does (the journal keeps what was changed,
        the trial's watchdog reverts a trial); with SIGHUP ignored, tuitune runs on unread."""
        selector.unregister(self.fileno)
        os.kill(os.getpid(), signal.SIGHUP)
