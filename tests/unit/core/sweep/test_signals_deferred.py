"""`signals_deferred`: a signal inside a journal step reaches its handler after the step, so an
interruption never cuts the step between the file and the session (found by the kernel test
that interrupts autotune at random points: a SIGHUP while the journal was being opened left a
journal file the session did not know about)."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator

import pytest

from tuitune.core.sweep.runner import signals_deferred


@pytest.fixture
def caught() -> Iterator[list[int]]:
    got: list[int] = []
    old = signal.signal(signal.SIGTERM, lambda signum, frame: got.append(signum))
    yield got
    signal.signal(signal.SIGTERM, old)


def test_a_signal_inside_reaches_its_handler_after(caught: list[int]) -> None:
    with signals_deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # Python runs handlers between bytecodes: give it many
            pass
        assert caught == []
    assert caught == [signal.SIGTERM]


def test_a_keyboard_interrupt_comes_out_of_the_block_not_from_inside() -> None:
    # Python's own Ctrl+C handler, whatever the runner inherited (a background job ignores it)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    steps: list[str] = []
    try:
        with pytest.raises(KeyboardInterrupt), signals_deferred():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):
                pass
            steps.append("the step finished")
    finally:
        signal.signal(signal.SIGINT, old)
    assert steps == ["the step finished"]
