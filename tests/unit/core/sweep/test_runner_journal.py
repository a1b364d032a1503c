"""The sweep's own setting changes reach a recording as journal steps (issue 34): a cell's
apply and its putting back, each step as the journal returned it, through the sweep's own
recorder or, without one, the live screen's --record (`on_journal`). The session is a fake
whose steps return fixed outcomes (the kernel tier holds the real ones:
tests/kernel/test_sweep_kernel.py)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from tests.support.fixture_hosts import host_32cpu
from tests.unit.core.sweep.test_sweep_cpus import _spec
from tuitune.core.bench.notebook import Notebook
from tuitune.core.session import Key, Session
from tuitune.core.session.outcome import Outcome
from tuitune.core.sweep.runner import Cell, SweepRunner, Target

KEY = Key.sysctl("net.core.somaxconn")


class _Access:
    def read_many(self, keys: list[Key]) -> dict[Key, str]:
        return dict.fromkeys(keys, "4096")


class _Session:
    journal: object = object()
    pending = True

    def access(self) -> _Access:
        return _Access()

    def run(self, fn: Callable[[Any], list[Outcome]]) -> list[Outcome]:
        if getattr(fn, "func", fn).__name__ == "apply_all":
            return [Outcome(KEY, "changed", before="4096", after="1024")]
        return [Outcome(KEY, "changed", before="1024", after="4096")]


def test_a_cells_steps_go_to_the_screens_recording(tmp_path: Path) -> None:
    reader, ifname = host_32cpu(tmp_path, samples=1)
    spec = _spec('[[dimension]]\nsetting = "net.core.somaxconn"\nvalues = [1024]')
    session = Session(
        reader.root, journal_dir=tmp_path / "j", call=reader.call, handles=reader.handles
    )
    target = Target(ifname, "192.0.2.1", 5201)
    runner = SweepRunner(
        spec, session, reader, target, Notebook(tmp_path / "n.jsonl"), lambda _: None
    )  # type: ignore[arg-type]
    runner.ends[0] = replace(runner.ends[0], session=_Session())  # type: ignore[arg-type]
    got: list[tuple[str, dict[str, object]]] = []
    runner.on_journal = lambda kind, value: got.append((kind, value))
    runner.measure = lambda spec: ([], [], [])  # type: ignore[assignment,method-assign,return-value]
    runner.settings = lambda changes: {}  # type: ignore[method-assign]
    runner._cell("s1", Cell(0, runner.combos[0]), [[(KEY, "1024")]])
    steps = [(kind, v["key"], v["before"], v["after"], v["status"]) for kind, v in got]
    label = KEY.label
    assert steps == [
        ("journal", label, "4096", "1024", "changed"),
        ("journal", label, "1024", "4096", "changed"),
    ]
