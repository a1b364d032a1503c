"""The journal's records: one frozen class per record type, and ONE codec (`encode`, `decode`)
between them and the JSON objects of the file. The wire format (one-letter keys, FORMAT_VERSION
1) is the one every earlier release wrote: a journal left by one must still restore.

A record that does not fit is not replayed but counted (JournalState.unreadable) and shown by
`tuitune restore`: silently skipping it would hide an original that is never put back. An
original that does not fit its setting ("abc" as an MTU) is reported on its own and the rest
is still restored: one bad value must not leave every later setting changed.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from tuitune.core.session.journal_file import UNREADABLE, Record
from tuitune.core.session.kinds.base import well_formed
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.settings import Key

FORMAT_VERSION = 1


@dataclass(frozen=True, slots=True)
class Entry:
    """One setting within an undo step."""

    key: Key
    before: str | None
    after: str | None


@dataclass(frozen=True, slots=True)
class Head:
    """The first record: which host, boot and namespace the journal belongs to."""

    host: Any = None
    boot: Any = None  # /proc/sys/kernel/random/boot_id when written: another boot is stale
    ns: Any = None  # [st_dev, st_ino] of the named namespace: another one of that name is stale
    root: dict[str, Any] = field(default_factory=dict)  # how to reach the host (HostRoot)
    pid: Any = None
    time: float | None = None
    version: Any = FORMAT_VERSION


@dataclass(frozen=True, slots=True)
class SessionStart:
    """A later tuitune opened the journal (only a note)."""

    pid: Any
    time: Any


@dataclass(frozen=True, slots=True)
class Orig:
    """The original value of a setting (None: it did not exist), on disk before any write."""

    key: Key
    value: str | None


@dataclass(frozen=True, slots=True)
class Intent:
    """A write about to be made; `also` may change with it (unknown if it never completes)."""

    key: Key
    value: str
    also: tuple[Key, ...] = ()


@dataclass(frozen=True, slots=True)
class Done:
    """What a write left, read back."""

    values: tuple[tuple[Key, str | None], ...]


@dataclass(frozen=True, slots=True)
class Seen:
    """Values the user accepted as they are (a drift adopted)."""

    values: tuple[tuple[Key, str | None], ...]


@dataclass(frozen=True, slots=True)
class Step:
    """One undo step: every setting it changed, before and after."""

    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class Undo:
    """The last step was undone."""


@dataclass(frozen=True, slots=True)
class Forget:
    """Settings given up (back at their original, or left as they are by the user)."""

    keys: tuple[Key, ...]


@dataclass(frozen=True, slots=True)
class Clear:
    """Every undo step is gone (after a revert all)."""


@dataclass(frozen=True, slots=True)
class TrialStart:
    """A change on trial, put back at `deadline` (time.time()) unless confirmed."""

    id: str
    key: Key
    before: str | None
    after: str | None
    deadline: float


@dataclass(frozen=True, slots=True)
class TrialHelper:
    """The pid of the watchdog that puts the trial change back if tuitune cannot."""

    id: str
    pid: int


@dataclass(frozen=True, slots=True)
class TrialEnd:
    """How a trial ended: how is confirmed|reverted|drift|failed, by is tuitune|watchdog,
    value is what the setting held after (not recorded for a confirmed one)."""

    id: str
    how: str
    by: str
    time: float
    value: str | None = None


JournalRecord = (
    Head
    | SessionStart
    | Orig
    | Intent
    | Done
    | Seen
    | Step
    | Undo
    | Forget
    | Clear
    | TrialStart
    | TrialHelper
    | TrialEnd
)


# ---- encoding: the exact objects (and key order) every release wrote --------------------------
def _rows(values: tuple[tuple[Key, str | None], ...]) -> list[list[Any]]:
    return [[k.to_json(), v] for k, v in values]


def encode(rec: JournalRecord) -> Record:
    """The JSON object of `rec`, as written to the file."""
    match rec:
        case Head():
            return {
                "t": "head",
                "v": rec.version,
                "host": rec.host,
                "boot": rec.boot,
                "ns": rec.ns,
                "root": rec.root,
                "pid": rec.pid,
                "time": rec.time,
            }
        case SessionStart():
            return {"t": "session", "pid": rec.pid, "time": rec.time}
        case Orig():
            return {"t": "orig", "k": rec.key.to_json(), "v": rec.value}
        case Intent():
            also = [k.to_json() for k in rec.also]
            return {"t": "intent", "k": rec.key.to_json(), "v": rec.value, "with": also}
        case Done():
            return {"t": "done", "vals": _rows(rec.values)}
        case Seen():
            return {"t": "seen", "vals": _rows(rec.values)}
        case Step():
            return {"t": "step", "e": [[e.key.to_json(), e.before, e.after] for e in rec.entries]}
        case Undo():
            return {"t": "undo"}
        case Forget():
            return {"t": "forget", "k": [k.to_json() for k in rec.keys]}
        case Clear():
            return {"t": "clear"}
        case TrialStart():
            return {
                "t": "trial",
                "id": rec.id,
                "k": rec.key.to_json(),
                "before": rec.before,
                "after": rec.after,
                "deadline": rec.deadline,
            }
        case TrialHelper():
            return {"t": "trial-helper", "id": rec.id, "pid": rec.pid}
        case TrialEnd():
            out: Record = {"t": "trial-end", "id": rec.id, "how": rec.how, "by": rec.by}
            if rec.how != "confirmed":  # a confirmed change was not read back
                out["value"] = rec.value
            out["time"] = rec.time
            return out
    raise TypeError(f"not a journal record: {rec!r}")


# ---- decoding: what does not fit raises ValueError, KeyError, TypeError or IndexError ---------
def _text(v: object, what: str, optional: bool = True) -> str | None:
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise ValueError(f"{what} is {type(v).__name__}, not text")
    return v


def _keys(v: object) -> tuple[Key, ...]:
    if not isinstance(v, list):
        raise ValueError("a list of settings expected")
    return tuple(Key.from_json(k) for k in v)


def _table(v: object, width: int) -> list[tuple[Key, list[str | None]]]:
    if not isinstance(v, list):
        raise ValueError("a list of values expected")
    out = []
    for row in v:
        if not (isinstance(row, list) and len(row) == width):
            raise ValueError(f"a row of {width} expected: {row!r}")
        out.append((Key.from_json(row[0]), [_text(x, "a value") for x in row[1:]]))
    return out


def _pairs(v: object) -> tuple[tuple[Key, str | None], ...]:
    return tuple((k, vals[0]) for k, vals in _table(v, 2))


def _number(v: object) -> float | None:
    return float(v) if isinstance(v, int | float) else None


def _head(rec: Record) -> Head:
    root = rec.get("root", {})
    if not isinstance(root, dict):
        raise ValueError("the host of the journal is not a record")
    started = rec.get("time")
    if "time" in rec and not isinstance(started, int | float):
        raise ValueError("the start time is not a time")
    return Head(
        rec.get("host"),
        rec.get("boot"),
        rec.get("ns"),
        root,
        rec.get("pid"),
        started,
        rec.get("v", FORMAT_VERSION),
    )


def _trial(rec: Record) -> TrialStart:
    key = Key.from_json(rec["k"])
    trial_id = _text(rec["id"], "the trial id", optional=False)
    before = _text(rec["before"], "the value before")
    after = _text(rec["after"], "the value after")
    deadline = rec["deadline"]
    if not isinstance(deadline, int | float) or not math.isfinite(deadline):
        raise ValueError(f"the deadline {deadline!r} is not a time")
    return TrialStart(str(trial_id), key, before, after, deadline)


def _orig(rec: Record) -> Orig:
    key = Key.from_json(rec["k"])
    value = _text(rec["v"], "the value")
    _keys(rec.get("with", []))
    return Orig(key, value)


def _intent(rec: Record) -> Intent:
    key = Key.from_json(rec["k"])
    value = str(_text(rec["v"], "the value", optional=False))
    return Intent(key, value, _keys(rec.get("with", [])))


def _helper(rec: Record) -> TrialHelper:
    trial_id = str(_text(rec["id"], "the trial id", optional=False))
    if not isinstance(rec["pid"], int):
        raise ValueError("the watchdog pid is not a number")
    return TrialHelper(trial_id, rec["pid"])


def _end(rec: Record) -> TrialEnd:
    # Only the id decides anything; the rest is shown, so it is taken as it comes.
    trial_id = str(_text(rec["id"], "the trial id", optional=False))
    how, by, value = rec.get("how"), rec.get("by"), rec.get("value")
    return TrialEnd(
        trial_id,
        how if isinstance(how, str) else "?",
        by if isinstance(by, str) else "?",
        _number(rec.get("time")) or 0.0,
        value if isinstance(value, str) else None,
    )


def decode(rec: Record) -> JournalRecord:
    """The record a JSON object of the file holds. Raises ValueError (or KeyError, TypeError,
    IndexError) when it is not one this version can replay."""
    t = rec.get("t")
    if t == UNREADABLE:  # journal_file's stand-in for a line that is not a JSON object
        raise ValueError(str(rec.get("why")))
    if t == "head":
        return _head(rec)
    if t == "session":
        return SessionStart(rec.get("pid"), rec.get("time"))
    if t == "orig":
        return _orig(rec)
    if t == "intent":
        return _intent(rec)
    if t == "done":
        return Done(_pairs(rec["vals"]))
    if t == "seen":
        return Seen(_pairs(rec["vals"]))
    if t == "step":
        rows = _table(rec["e"], 3)
        return Step(tuple(Entry(k, b, a) for k, (b, a) in rows))
    if t == "undo":
        return Undo()
    if t == "forget":
        return Forget(_keys(rec["k"]))
    if t == "clear":
        return Clear()
    if t == "trial":
        return _trial(rec)
    if t == "trial-helper":
        return _helper(rec)
    if t == "trial-end":
        return _end(rec)
    raise ValueError(f"unknown record type {t!r}")


def why_unreadable(rec: Record, exc: Exception) -> str:
    """One line for a record `decode` refused: why, and what it held."""
    if rec.get("t") == UNREADABLE:
        return str(rec.get("why"))
    why = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
    text = json.dumps(rec, ensure_ascii=False)
    return f"{why}: {text if len(text) <= 100 else text[:100] + '...'}"


def bad_original(key: Key, value: str | None) -> str | None:
    """Why `value` cannot be the original of `key` (None: it can). Only the shape is checked
    (a kernel value read back is always of it); the kernel has the last word on the rest."""
    if value is None:
        return None
    if well_formed(handler(key.kind).form(key), value):  # the kind table knows each shape
        return None
    shown = value if len(value) <= 40 else value[:40] + "..."
    return f"the journal's original {shown!r} is not a value it can take; left as it is"
