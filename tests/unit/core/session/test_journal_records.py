"""The journal's typed records and their codec: the wire format stays the one earlier releases
wrote (a journal they left must still restore, and they must be able to read ours), and a
record that does not fit is counted, never replayed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tuitune.core.session.journal_file import parse
from tuitune.core.session.journal_records import (
    Clear,
    Entry,
    Head,
    Orig,
    Step,
    TrialEnd,
    TrialStart,
    decode,
    encode,
)
from tuitune.core.session.journal_replay import JournalState
from tuitune.core.session.settings import Key

FIXTURES = Path(__file__).parents[3] / "fixtures" / "journals"
BACKLOG = Key.sysctl("net.core.netdev_max_backlog")
IRQ = Key.irq(101, "eno49-TxRx-0", "eno49")


def _line(rec: dict[str, object]) -> str:
    """How journal_file writes a record."""
    return json.dumps(rec, separators=(",", ":"), ensure_ascii=False)


@pytest.mark.parametrize("name", ["main-v1.journal", "main-v1-all-records.journal"])
def test_every_record_an_earlier_release_wrote_comes_back_byte_for_byte(name: str) -> None:
    lines = (FIXTURES / name).read_text().splitlines()
    for line in lines:
        assert _line(encode(decode(json.loads(line)))) == line


def test_the_fixture_holds_every_record_type() -> None:
    lines = (FIXTURES / "main-v1-all-records.journal").read_text().splitlines()
    kinds = {type(decode(json.loads(line))).__name__ for line in lines}
    assert kinds == {
        "Head",
        "SessionStart",
        "Orig",
        "Intent",
        "Done",
        "Seen",
        "Step",
        "Undo",
        "Forget",
        "Clear",
        "TrialStart",
        "TrialHelper",
        "TrialEnd",
    }


def test_replaying_an_earlier_release_journal_gives_its_state() -> None:
    data = (FIXTURES / "main-v1-all-records.journal").read_bytes()
    state = JournalState.replay(parse(data))
    assert state.unreadable == []
    assert state.head is not None and state.head.boot == "boot-1"
    # The sequence ended with a revert of everything and one more IRQ change.
    assert state.originals == {IRQ: "0-3"}
    assert state.expected == {IRQ: ("1",)}
    assert state.steps == [[Entry(IRQ, "0-3", "1")]]
    assert state.trial is None
    assert state.trial_end is not None
    assert (state.trial_end.how, state.trial_end.by) == ("confirmed", "tuitune")


def test_a_confirmed_trial_end_has_no_value_field() -> None:
    """As every release wrote it: only a trial put back records what the setting held."""
    assert "value" not in encode(TrialEnd("a", "confirmed", "tuitune", 1.0))
    assert encode(TrialEnd("a", "reverted", "watchdog", 1.0, "5"))["value"] == "5"


def test_records_are_typed_values() -> None:
    rec = decode({"t": "step", "e": [[BACKLOG.to_json(), "1000", "5000"]]})
    assert rec == Step((Entry(BACKLOG, "1000", "5000"),))
    assert decode({"t": "clear"}) == Clear()
    assert decode({"t": "orig", "k": IRQ.to_json(), "v": None}) == Orig(IRQ, None)
    trial = {"t": "trial", "id": "x", "k": IRQ.to_json(), "before": "1", "after": "2"}
    assert decode({**trial, "deadline": 5}) == TrialStart("x", IRQ, "1", "2", 5)
    assert isinstance(decode({"t": "head"}), Head)  # a head says only what it has


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ({"t": "nope"}, "unknown record type 'nope'"),
        ({"t": "orig", "v": "1"}, "no 'k'"),
        ({"t": "orig", "k": ["bogus"], "v": "1"}, "not a setting key"),
        ({"t": "intent", "k": BACKLOG.to_json(), "v": None}, "the value is NoneType"),
        ({"t": "done", "vals": [[BACKLOG.to_json()]]}, "a row of 2 expected"),
        ({"t": "trial-helper", "id": "x", "pid": "7"}, "the watchdog pid is not a number"),
        ({"t": "head", "time": "noon"}, "the start time is not a time"),
        ({"t": "unreadable", "why": "not a journal record: {{"}, "not a journal record: {{"),
    ],
)
def test_a_record_that_does_not_fit_is_counted_not_replayed(
    raw: dict[str, object], why: str
) -> None:
    orig = {"t": "orig", "k": BACKLOG.to_json(), "v": "1000"}
    state = JournalState.replay([orig, raw])
    assert state.originals == {BACKLOG: "1000"}
    [line] = state.unreadable
    assert line.startswith(why), line
