"""`profile apply`'s trial: a change that can cut the link stays only when the user says y
in time; without a terminal to say it on, nothing is changed at all."""

from __future__ import annotations

import io
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tuitune.cli import profile_trial
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Key
from tuitune.core.session.outcome import Outcome

MTU = Key.mtu("eth9")


class FakeJournal:
    def __init__(self) -> None:
        self.calls: list[str] = []

    def apply_trial(self, key: Key, text: str, seconds: float) -> tuple[Outcome, object]:
        self.calls.append(f"trial {key.label}={text}")
        return Outcome(key, "changed", "1500", text), object()

    def confirm(self) -> bool:
        self.calls.append("confirm")
        return True

    def revert_trial(self) -> list[Outcome]:
        self.calls.append("revert")
        return []


class FakeSession:
    def __init__(self) -> None:
        self.journal = FakeJournal()

    def run(self, work: Callable[[FakeJournal], Any]) -> Any:
        return work(self.journal)


@pytest.fixture
def answer() -> Iterator[Callable[[str], io.TextIOWrapper]]:
    opened: list[io.TextIOWrapper] = []

    def make(text: str) -> io.TextIOWrapper:
        r, w = os.pipe()
        os.write(w, text.encode())
        os.close(w)
        stream = os.fdopen(r)
        opened.append(stream)
        return stream

    yield make
    for s in opened:
        s.close()


def test_y_keeps_the_change(answer: Callable[[str], io.TextIOWrapper], capsys: Any) -> None:
    s = FakeSession()
    out = profile_trial._one_trial(s, MTU, "9000", 5.0, answer("y\n"))  # type: ignore[arg-type]
    assert out.status == "changed"
    assert s.journal.calls == ["trial eth9 mtu=9000", "confirm"]
    assert "kept eth9 mtu = 9000" in capsys.readouterr().out


def test_any_other_answer_puts_it_back(
    answer: Callable[[str], io.TextIOWrapper], capsys: Any
) -> None:
    s = FakeSession()
    out = profile_trial._one_trial(s, MTU, "9000", 5.0, answer("yes please\n"))  # type: ignore[arg-type]
    assert not out.ok and out.reason == "not confirmed: put back"
    assert s.journal.calls == ["trial eth9 mtu=9000", "revert"]
    assert "put back eth9 mtu: 1500" in capsys.readouterr().out


def test_no_answer_in_time_puts_it_back(answer: Callable[[str], io.TextIOWrapper]) -> None:
    r, w = os.pipe()  # open and silent: the wait ends at the deadline
    with os.fdopen(r) as silent:
        s = FakeSession()
        out = profile_trial._one_trial(s, MTU, "9000", 0.05, silent)  # type: ignore[arg-type]
    os.close(w)
    assert s.journal.calls[-1] == "revert" and not out.ok


def test_without_a_terminal_a_risky_change_changes_nothing(capsys: Any) -> None:
    s = FakeSession()
    trial = profile_trial.make_trial(HostRoot(), stdin=io.StringIO("y\n"))
    status = trial(s, [(Key.sysctl("net.ipv4.tcp_timestamps"), "0"), (MTU, "9000")])  # type: ignore[arg-type]
    assert status == 1 and s.journal.calls == []
    assert "eth9 mtu can cut the link" in capsys.readouterr().err


def test_nothing_is_on_trial_in_a_namespace_or_a_recorded_tree(tmp_path: Any) -> None:
    (tmp_path / "proc").mkdir()
    assert profile_trial.risky_keys(HostRoot(netns="lab"), [MTU]) == []
    assert profile_trial.risky_keys(HostRoot.fixture(tmp_path), [MTU]) == []
    assert profile_trial.risky_keys(HostRoot(), [MTU]) == [MTU]
