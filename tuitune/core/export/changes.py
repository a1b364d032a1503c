"""Where the changes come from: the change journal (what tuitune changed and has not put back,
against the live values), or any two snapshots of settings (a before and an after).

Both give `Change`s of the settings whose value differs; settings that are back at their
original are not exported, and a setting that cannot be read now is reported, not guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from tuitune.core.export.model import Change
from tuitune.core.session.access import HostAccess
from tuitune.core.session.journal import JournalState
from tuitune.core.session.journal_file import Record, host_id, journal_path, read_records
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.settings import QUEUE_KINDS, Key
from tuitune.core.values import Unavailable


def changes_from(
    pairs: Mapping[Key, tuple[str | None, str]], when: Mapping[Key, float] | None = None
) -> list[Change]:
    """Key -> (original, current), e.g. from `Journal.originals()` and a read of the live
    values, or two snapshots. Pairs whose values are equal are left out."""
    when = when or {}
    return [Change(k, orig, cur, when.get(k)) for k, (orig, cur) in pairs.items() if orig != cur]


def between(before: Mapping[Key, str], after: Mapping[Key, str]) -> list[Change]:
    """What differs from `before` to `after` (a key only in `after` was absent before)."""
    return changes_from({k: (before.get(k), v) for k, v in after.items()})


def _times(records: list[Record]) -> dict[Key, float]:
    """When each original was recorded: the record's own time if it has one, else the start
    of the session that recorded it (the journal's orig records carry no time of their own)."""
    out: dict[Key, float] = {}
    last: float | None = None
    for rec in records:
        t = rec.get("time")
        if isinstance(t, int | float):
            last = float(t)
        if rec.get("t") == "orig" and last is not None:
            try:
                out.setdefault(Key.from_json(rec["k"]), last)
            except (KeyError, ValueError):
                continue
    return out


def belongs(access: HostAccess, key: Key, ifname: str) -> bool:
    """Is this journal key part of an export for `ifname`? Sysctls always are; an IRQ recorded
    without an interface is when its queue is one of the interface's IRQs now. A stopped
    service is too, so that the export can say it leaves it out (build.py)."""
    if not handler(key.kind).of_interface or key.ifname == ifname:
        return True  # a process: the host's, whichever NIC it uses
    if key.kind == "irq_affinity" and key.ifname is None and key.queue:
        return access.irq_key(ifname, key.queue) is not None
    return False


def from_originals(
    access: HostAccess,
    originals: Mapping[Key, str | None],
    ifname: str,
    when: Mapping[Key, float] | None = None,
) -> tuple[list[Change], list[str]]:
    """The changes of `ifname` (and the sysctls) among `originals` (e.g. `Journal.originals()`),
    against the values read now. Returns (changes, one line per setting not readable now)."""
    keys = [k for k in originals if belongs(access, k, ifname)]
    live = access.read_many(keys)
    changes, problems = [], []
    when = when or {}
    for key in keys:
        now = live[key]
        if isinstance(now, Unavailable):
            if key.kind in QUEUE_KINDS and now.kind == "missing":
                continue  # a queue fewer channels removed: nothing left to set
            problems.append(f"{key.label}: not exported, cannot be read now ({now.reason})")
            continue
        if now != originals[key]:
            changes.append(Change(key, originals[key], now, when.get(key)))
    return changes, problems


def from_journal(
    access: HostAccess, directory: Path, ifname: str
) -> tuple[list[Change], list[str]]:
    """The changes the journal of `access`'s host records for `ifname`, without taking the
    journal's lock (a running tuitune may hold it; reading is safe, the file is append-only).
    Raises JournalError when the journal cannot be read (not root)."""
    records = read_records(journal_path(directory, host_id(access.root)))
    state = JournalState.replay(records)
    return from_originals(access, state.originals, ifname, _times(records))
