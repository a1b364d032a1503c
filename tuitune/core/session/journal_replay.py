"""Replay: the state a journal's records describe (`JournalState`), rebuilt from the records
alone, so `tuitune restore` after a crash sees exactly what the dead process had recorded; and
the journals found on disk (`list_journals`)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from tuitune.core.session.journal_dir import names_in
from tuitune.core.session.journal_file import (
    DEFAULT_DIR,
    SUFFIX,
    JournalError,
    Record,
    lock_holder,
    read_records,
)
from tuitune.core.session.journal_records import (
    Clear,
    Done,
    Entry,
    Forget,
    Head,
    Intent,
    JournalRecord,
    Orig,
    Seen,
    Step,
    TrialEnd,
    TrialHelper,
    TrialStart,
    Undo,
    decode,
    why_unreadable,
)
from tuitune.core.session.settings import Key

Expected = tuple[str | None, ...] | None  # values tuitune may have left (latest last); None: any


@dataclass(frozen=True, slots=True)
class Trial:
    """A change applied on trial: put back at `deadline` unless confirmed (see watchdog.py)."""

    id: str
    key: Key
    before: str | None
    after: str | None
    deadline: float  # time.time() at which it is put back
    pid: int | None  # the detached watchdog that puts it back if tuitune cannot

    def remaining(self, now: float | None = None) -> float:
        return max(0.0, self.deadline - (time.time() if now is None else now))


@dataclass
class JournalState:
    """What a journal's records say: originals (in capture order), expected values, undo steps."""

    head: Head | None = None
    originals: dict[Key, str | None] = field(default_factory=dict)
    expected: dict[Key, Expected] = field(default_factory=dict)
    steps: list[list[Entry]] = field(default_factory=list)
    trial: Trial | None = None  # the trial change waiting for confirmation, if any
    trial_end: TrialEnd | None = None  # how the last trial ended
    ended: Trial | None = None  # the trial that ended so
    unreadable: list[str] = field(default_factory=list)  # records that could not be replayed

    def feed(self, raw: Record) -> None:
        """Replay one record of the file, or count it as unreadable (never dropped silently:
        what it held may be an original that then stays changed)."""
        try:
            rec = decode(raw)
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            self.unreadable.append(why_unreadable(raw, exc))
            return
        self.apply(rec)

    def apply(self, rec: JournalRecord) -> None:
        """Replay one decoded record."""
        match rec:
            case Head():
                self.head = rec
            case TrialStart():
                self.trial = Trial(rec.id, rec.key, rec.before, rec.after, rec.deadline, None)
            case TrialHelper():
                if self.trial is not None and self.trial.id == rec.id:
                    self.trial = replace(self.trial, pid=rec.pid)
            case TrialEnd():
                if self.trial is not None and self.trial.id == rec.id:
                    self.ended, self.trial = self.trial, None
                    self.trial_end = rec
            case Orig():
                if rec.key not in self.originals:
                    self.originals[rec.key] = rec.value
                    self.expected[rec.key] = (rec.value,)
            case Intent():
                if rec.key in self.expected:
                    known = self.expected[rec.key]
                    self.expected[rec.key] = None if known is None else (*known, rec.value)
                for k in rec.also:
                    if k in self.expected and k != rec.key:
                        self.expected[k] = None  # a crash here leaves them unknown
            case Done() | Seen():
                for k, value in rec.values:
                    if k in self.originals:
                        self.expected[k] = (value,)
            case Step():
                self.steps.append(list(rec.entries))
            case Undo():
                if self.steps:
                    self.steps.pop()
            case Forget():
                gone = set(rec.keys)
                for k in gone:
                    self.originals.pop(k, None)
                    self.expected.pop(k, None)
                kept = ([e for e in s if e.key not in gone] for s in self.steps)
                self.steps = [s for s in kept if s]
            case Clear():
                self.steps.clear()

    @classmethod
    def replay(cls, records: Iterable[Record]) -> JournalState:
        state = cls()
        for rec in records:
            state.feed(rec)
        return state

    def matches(self, key: Key, value: str | None) -> bool:
        exp = self.expected.get(key)
        return exp is None or value in exp

    def in_steps(self, key: Key) -> bool:
        return any(e.key == key for s in self.steps for e in s)


@dataclass(frozen=True, slots=True)
class JournalSummary:
    """A journal found on disk (for `tuitune restore --list` and the start-up offer)."""

    host: str
    path: Path
    netns: str | None
    holder: int | None  # pid of the tuitune holding it, None when nobody is
    originals: dict[Key, str | None]
    expected: dict[Key, str | None]  # what tuitune last wrote (None: unknown or absent)
    started: float | None
    unreadable: tuple[str, ...] = ()  # records that could not be replayed
    problem: str | None = None  # why the file itself could not be read (nothing else is set)
    watchdog: str | None = None  # what the trial watchdog put back last, when it did (a line)


def list_journals(directory: Path = DEFAULT_DIR) -> list[JournalSummary]:
    """The journals in `directory` ([] when it does not exist). Raises JournalError when the
    directory cannot be read or trusted (not root, another user's); a journal file that cannot
    be is listed with its `problem`."""
    out = []
    for name in names_in(directory, SUFFIX) or []:
        path = directory / name
        host = name[: -len(SUFFIX)]
        try:
            records, problem = read_records(path), None
        except JournalError as exc:
            records, problem = [], str(exc)
        state = JournalState.replay(records)
        head = state.head or Head()
        out.append(
            JournalSummary(
                host=host,
                path=path,
                netns=head.root.get("netns"),
                holder=lock_holder(directory, host),
                originals=dict(state.originals),
                expected={k: (e[-1] if e else None) for k, e in state.expected.items()},
                started=head.time,
                unreadable=tuple(state.unreadable),
                problem=problem,
                watchdog=watchdog_line(state),
            )
        )
    return out


def watchdog_line(state: JournalState) -> str | None:
    """What the trial watchdog did, when the last trial ended by it (nobody was there to see
    it: the screen says so at the next start), else None."""
    end, trial = state.trial_end, state.ended
    if end is None or trial is None or end.by != "watchdog":
        return None
    when = time.strftime("%H:%M:%S UTC", time.gmtime(end.time))
    change = f"{trial.key.label} ({trial.after} -> {trial.before})"
    if end.how == "reverted":
        return f"the trial watchdog put back {change} at {when}: it was not confirmed"
    return f"the trial watchdog could not put back {change} at {when} ({end.how}): now {end.value}"
