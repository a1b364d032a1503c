"""The sweep runner's own journal steps (a cell applied, a cell put back) are signal-deferred,
as autotune's are: a Ctrl+C or SIGTERM that arrives while the journal records and writes is
taken when the step has ended, so the journal file and the session agree when the runner's
restore starts. The step here is a fake session that signals itself from inside the step."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixture_hosts import host_32cpu
from tests.unit.core.sweep.test_sweep_cpus import _spec
from tuitune.core.bench.notebook import Notebook
from tuitune.core.session import Key, Session
from tuitune.core.session.outcome import Outcome
from tuitune.core.sweep.plan import Combination
from tuitune.core.sweep.runner import Cell, SweepRunner, Target

KEY = Key.sysctl("net.core.somaxconn")


class _Access:
    def read_many(self, keys: list[Key]) -> dict[Key, str]:
        return dict.fromkeys(keys, "4096")


class _SignallingSession:
    """Sends itself SIGINT in the middle of each journal step, then finishes the step."""

    def __init__(self) -> None:
        self.steps: list[str] = []
        self.journal: object = object()
        self.pending = True

    def access(self) -> _Access:
        return _Access()

    def run(self, fn: Callable[[Any], list[Outcome]]) -> list[Outcome]:
        name = getattr(fn, "func", fn).__name__
        self.steps.append(f"{name} started")
        os.kill(os.getpid(), signal.SIGINT)
        for _ in range(10000):  # Python runs a handler between bytecodes: give it many
            pass
        self.steps.append(f"{name} finished")
        return []


@pytest.fixture
def python_ctrl_c() -> Iterator[None]:
    """Python's own Ctrl+C handler, whatever the test runner inherited."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, old)


def _runner(tmp: Path) -> tuple[SweepRunner, _SignallingSession]:
    reader, ifname = host_32cpu(tmp, samples=1)
    spec = _spec('[[dimension]]\nsetting = "net.core.somaxconn"\nvalues = [1024]')
    session = Session(reader.root, journal_dir=tmp / "j", call=reader.call, handles=reader.handles)
    target = Target(ifname, "192.0.2.1", 5201)
    runner = SweepRunner(spec, session, reader, target, Notebook(tmp / "n.jsonl"), lambda _: None)  # type: ignore[arg-type]
    fake = _SignallingSession()
    runner.ends[0] = replace(runner.ends[0], session=fake)  # type: ignore[arg-type]
    return runner, fake


def test_ctrl_c_inside_a_cells_apply_lands_after_the_step(
    tmp_path: Path, python_ctrl_c: None
) -> None:
    runner, fake = _runner(tmp_path)
    measured: list[object] = []
    runner.measure = lambda spec: measured.append(spec)  # type: ignore[assignment,method-assign,return-value]
    cell = Cell(0, Combination(()))
    with pytest.raises(KeyboardInterrupt):
        runner._cell("s1", cell, [[(KEY, "1024")]])
    # The step ran to its end; the interruption came after it, before any run.
    assert fake.steps == ["apply_all started", "apply_all finished"]
    assert measured == []


def test_ctrl_c_inside_the_put_back_lands_after_the_step(
    tmp_path: Path, python_ctrl_c: None
) -> None:
    runner, fake = _runner(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        runner._put_back()
    assert fake.steps == ["<lambda> started", "<lambda> finished"]
