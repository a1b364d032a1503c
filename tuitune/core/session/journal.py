"""The change journal: every write tuitune makes, recorded so that it can be undone, reverted,
and restored after a crash.

The order of a write (`Journal.apply`):
  1. validate the typed value (nothing is written for bad input);
  2. read the setting and what a write to it may also change (`HostAccess.related`);
     an unchanged value is skipped;
  3. record, on disk and fsync'd, the original value of every one of them not yet recorded,
     and the intent to write;
  4. write; re-read; record the values read back;
  5. verify: the value read back must be the one asked for; if not, or if the kernel refused
     after changing something, put the old value back.
Nothing is left half-applied: `apply_all` (a profile) is one step, rolled back as a whole if
any part fails, and an `undo` that fails midway re-applies what it had undone.

State is rebuilt from the records alone (`JournalState`), so `tuitune restore` after a crash,
a `kill -9` or a lost SSH session sees exactly what the dead process had recorded. A write that
was recorded as intended but never confirmed makes the settings it touches "unknown", so they
are restored without a drift complaint.

Drift: tuitune remembers what it last wrote (or saw, after its own writes) for every setting it
holds an original of. A different value found later means someone else changed it; undo and
revert then refuse to overwrite it unless asked to (`force=True`).

Trial changes (`apply_trial`, for what may cut the SSH session): recorded like any change plus
a trial record; a detached watchdog (watchdog.py) undoes the step after the deadline unless
`confirm` or `revert_trial` ended the trial first. The watchdog appends to the same file, so
every method first replays what the file holds beyond what this process has seen.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuitune.core.host.root import HostRoot
from tuitune.core.session import watchdog
from tuitune.core.session.access import HostAccess, WriteRefused
from tuitune.core.session.journal_dir import names_in
from tuitune.core.session.journal_file import (
    DEFAULT_DIR,
    SUFFIX,
    UNREADABLE,
    JournalError,
    JournalFile,
    JournalWriteError,
    Record,
    host_id,
    identity,
    lock_holder,
    read_records,
)
from tuitune.core.session.journal_records import bad_original, check
from tuitune.core.session.outcome import Drift, Effect, Outcome, Status
from tuitune.core.session.settings import Key
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

FORMAT_VERSION = 1
DEFAULT_TRIAL_SECONDS = 30.0
TRIAL_PENDING = "a trial change is waiting: confirm it or put it back first"
Expected = tuple[str | None, ...] | None  # values tuitune may have left (latest last); None: any


@dataclass(frozen=True, slots=True)
class Entry:
    """One setting within an undo step."""

    key: Key
    before: str | None
    after: str | None


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


def _trial_of(rec: Record | None) -> Trial | None:
    if rec is None:
        return None
    return Trial(
        rec["id"],
        Key.from_json(rec["k"]),
        rec["before"],
        rec["after"],
        rec["deadline"],
        rec.get("pid"),
    )


@dataclass
class JournalState:
    """What a journal's records say: originals (in capture order), expected values, undo steps."""

    head: Record | None = None
    originals: dict[Key, str | None] = field(default_factory=dict)
    expected: dict[Key, Expected] = field(default_factory=dict)
    steps: list[list[Entry]] = field(default_factory=list)
    trial: Record | None = None  # the trial change waiting for confirmation, if any
    trial_end: Record | None = None  # how the last trial ended
    unreadable: list[str] = field(default_factory=list)  # records that could not be replayed

    def feed(self, rec: Record) -> None:
        """Replay one record, or count it as unreadable (never dropped silently: what it
        held may be an original that then stays changed)."""
        try:
            if rec.get("t") == UNREADABLE:
                raise ValueError(str(rec.get("why")))
            check(rec)
            self.apply(rec)
        except (KeyError, ValueError, TypeError, IndexError) as exc:
            self.unreadable.append(_unreadable(rec, exc))

    def apply(self, rec: Record) -> None:
        t = rec.get("t")
        if t == "head":
            self.head = rec
        elif t == "trial":
            self.trial = rec
        elif t == "trial-helper":
            if self.trial is not None and self.trial["id"] == rec["id"]:
                self.trial = {**self.trial, "pid": rec["pid"]}
        elif t == "trial-end":
            if self.trial is not None and self.trial["id"] == rec["id"]:
                self.trial = None
                self.trial_end = rec
        elif t == "orig":
            key = Key.from_json(rec["k"])
            if key not in self.originals:
                self.originals[key] = rec["v"]
                self.expected[key] = (rec["v"],)
        elif t == "intent":
            key = Key.from_json(rec["k"])
            if key in self.expected:
                known = self.expected[key]
                self.expected[key] = None if known is None else (*known, rec["v"])
            for other in rec.get("with", ()):
                k = Key.from_json(other)
                if k in self.expected and k != key:
                    self.expected[k] = None  # a crash here leaves them unknown
        elif t in ("done", "seen"):
            for raw, value in rec["vals"]:
                k = Key.from_json(raw)
                if k in self.originals:
                    self.expected[k] = (value,)
        elif t == "step":
            self.steps.append([Entry(Key.from_json(k), b, a) for k, b, a in rec["e"]])
        elif t == "undo":
            if self.steps:
                self.steps.pop()
        elif t == "forget":
            gone = {Key.from_json(k) for k in rec["k"]}
            for k in gone:
                self.originals.pop(k, None)
                self.expected.pop(k, None)
            self.steps = [s for s in ([e for e in s if e.key not in gone] for s in self.steps) if s]
        elif t == "clear":
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


def _value(v: str | Unavailable | None) -> str | None:
    return None if v is None or isinstance(v, Unavailable) else v


def _unreadable(rec: Record, exc: Exception) -> str:
    if rec.get("t") == UNREADABLE:
        return str(rec.get("why"))
    why = f"no {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
    text = json.dumps(rec, ensure_ascii=False)
    return f"{why}: {text if len(text) <= 100 else text[:100] + '...'}"


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
        head = state.head or {}
        root = head.get("root") or {}
        out.append(
            JournalSummary(
                host=host,
                path=path,
                netns=root.get("netns"),
                holder=lock_holder(directory, host),
                originals=dict(state.originals),
                expected={k: (e[-1] if e else None) for k, e in state.expected.items()},
                started=head.get("time"),
                unreadable=tuple(state.unreadable),
                problem=problem,
            )
        )
    return out


class Journal:
    """The change journal of one host. Open it with `Journal.open`; one per host at a time.

    Methods block while they write (kernel writes run on the host's kernel thread); call them
    from a worker thread in a UI.
    """

    def __init__(self, access: HostAccess, jfile: JournalFile) -> None:
        """Use `Journal.open`. (The trial watchdog builds one on an attached file.)"""
        self.access = access
        self._file = jfile
        self._state = JournalState()
        self._seen = 0  # how far into the file the state has been replayed
        # Why the last append that failed did (a full disk): a change whose intent or undo step
        # cannot be recorded is put back; putting values back goes on without records.
        self.degraded: str | None = None
        self.set_aside: Path | None = None  # where `close` kept a journal with unreadable records
        self._sync()
        self.discarded: str | None = None  # set when a stale journal was put aside on open
        self.recovered = bool(self._state.originals)  # an earlier session left values

    # ---- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, access: HostAccess, directory: Path = DEFAULT_DIR) -> Journal:
        """Open (or create) the journal of `access.root`'s host in `directory`.

        Raises JournalBusy when another live tuitune holds it, JournalError when the directory
        cannot be used (e.g. not root). A journal from another boot, or from an earlier network
        namespace of the same name, is put aside as NAME.journal.stale (see `discarded`).
        """
        root = access.root
        jfile = JournalFile(directory, host_id(root))
        try:
            records = jfile.records()
            ident = identity(root)
            discarded = None
            head = JournalState.replay(records).head
            if records and _stale(head, ident):
                dest = jfile.set_aside(".stale")
                discarded = f"a journal from an earlier boot or namespace was set aside: {dest}"
                head = None
            now = {"pid": os.getpid(), "time": time.time()}
            first = {
                "t": "head",
                "v": FORMAT_VERSION,
                "host": jfile.host,
                **ident,
                "root": _root_spec(root),
                **now,
            }
            if head is None and (discarded or not records):  # a new journal starts with it
                try:
                    jfile.append(first)
                except JournalWriteError as exc:
                    jfile.remove()  # an empty journal would only stand in a restore's way
                    also = f"; {discarded}" if discarded else ""
                    raise JournalWriteError(f"{exc}{also}") from None
            else:
                # Only a note of who opened it: a full disk must not stop a restore.
                with contextlib.suppress(JournalWriteError):
                    jfile.append(first if head is None else {"t": "session", **now})
            journal = cls(access, jfile)
        except BaseException:
            jfile.release()
            raise
        journal.discarded = discarded
        return journal

    @property
    def path(self) -> Path:
        return self._file.path

    @property
    def host(self) -> str:
        return self._file.host

    # ---- what is held ----------------------------------------------------------------------
    def originals(self) -> dict[Key, str | None]:
        """Every setting tuitune changed and has not put back, with its original value, in the
        order they were first changed."""
        self._sync()
        return dict(self._state.originals)

    def expected(self) -> dict[Key, str | None]:
        """What tuitune last left in each setting it holds (None: unknown)."""
        self._sync()
        return {k: (e[-1] if e else None) for k, e in self._state.expected.items()}

    def unreadable(self) -> list[str]:
        """Records of the file that could not be replayed (what each held, in a line)."""
        self._sync()
        return list(self._state.unreadable)

    @property
    def can_undo(self) -> bool:
        self._sync()
        return bool(self._state.steps)

    def steps(self) -> list[list[Entry]]:
        self._sync()
        return [list(s) for s in self._state.steps]

    # ---- changing --------------------------------------------------------------------------
    def apply(self, key: Key, text: str) -> Outcome:
        """Validate, record, write, verify. One undo step when something changed."""
        self._sync()
        if self._state.trial is not None:
            return Outcome(key, "refused", reason=TRIAL_PENDING)
        try:
            target = self.access.validate(key, text)
        except InvalidValue as exc:
            return Outcome(key, "invalid", reason=exc.message)
        except WriteRefused as exc:
            return Outcome(key, "refused", reason=exc.state.reason, state=exc.state)
        out, entries = self._write_one(key, target)  # JournalWriteError: nothing written
        self._commit([(out, entries)] if out.status == "changed" else [])
        return out

    def apply_all(self, changes: Sequence[tuple[Key, str]]) -> list[Outcome]:
        """Apply several settings as one step: every value is validated before the first
        write, and if any write fails the ones already made are put back."""
        self._sync()
        if self._state.trial is not None:
            return [Outcome(k, "refused", reason=TRIAL_PENDING) for k, _ in changes]
        targets: list[tuple[Key, str]] = []
        bad: dict[int, Outcome] = {}
        for i, (key, text) in enumerate(changes):
            try:
                targets.append((key, self.access.validate(key, text)))
            except InvalidValue as exc:
                bad[i] = Outcome(key, "invalid", reason=exc.message)
            except WriteRefused as exc:
                bad[i] = Outcome(key, "refused", reason=exc.state.reason, state=exc.state)
        if bad:
            why = "not applied: another setting of this change is not valid here"
            return [
                bad.get(i) or Outcome(k, "refused", reason=why) for i, (k, _) in enumerate(changes)
            ]
        outcomes: list[Outcome] = []
        done: list[tuple[Outcome, list[Entry]]] = []
        for i, (key, target) in enumerate(targets):
            try:
                out, entries = self._write_one(key, target)
            except JournalWriteError as exc:  # nothing written for this one
                raise self._abandon(done, str(exc)) from None
            if out.ok:
                outcomes.append(out)
                done.append((out, entries))
                continue
            # Put back what this change already did, newest first.
            undone = self._put_back([e for _, es in reversed(done) for e in reversed(es)])
            note = f"put back because {key.label} failed"
            rolled = [
                Outcome(o.key, "failed", o.before, o.before, f"{note}{undone}")
                if o.status == "changed"
                else o
                for o in outcomes
            ]
            rest = [
                Outcome(k, "refused", reason=f"not applied because {key.label} failed")
                for k, _ in targets[i + 1 :]
            ]
            self._cleanup({e.key for _, es in done for e in es} | {key})
            return [*rolled, out, *rest]
        self._commit(done)
        return outcomes

    def _commit(self, done: list[tuple[Outcome, list[Entry]]]) -> None:
        """Record what was written as one undo step; if the journal cannot, put it all back
        and raise JournalWriteError: a change that cannot be undone as one is not made."""
        entries = [e for _, es in done for e in es]
        if not entries:
            return
        try:
            self._push(entries)
        except JournalWriteError as exc:
            raise self._abandon(done, str(exc)) from None

    def _abandon(self, done: list[tuple[Outcome, list[Entry]]], why: str) -> JournalWriteError:
        """Put back what `done` wrote, newest first; the error saying so."""
        undone = self._put_back([e for _, es in reversed(done) for e in reversed(es)])
        n = sum(o.status == "changed" for o, _ in done)
        if not undone:
            back = f" ({n} setting(s) written and put back)" if n else ""
            return JournalWriteError(f"{why}; nothing was changed{back}")
        return JournalWriteError(
            f"{why}; not applied{undone} (`tuitune restore` puts back what the journal holds)"
        )

    def undo(self, force: bool = False) -> list[Outcome]:
        """Undo the last step (one edit, or one applied profile). Empty when nothing to undo.
        A setting someone else changed since is not overwritten unless `force`. With a trial
        change waiting, undo reverts it (and ends the trial)."""
        self._sync()
        if self._state.trial is not None:
            return self.revert_trial()
        return self._undo_last(force)

    def _undo_last(self, force: bool) -> list[Outcome]:
        if not self._state.steps:
            return []
        step = self._state.steps[-1]
        if not force:
            now = self.access.read_many([e.key for e in step])
            drifted = [
                Drift(e.key, e.after, _value(now[e.key]))
                for e in step
                if not self._state.matches(e.key, _value(now[e.key]))
            ]
            if drifted:
                return [self._drift_outcome(d) for d in drifted]
        outs: list[Outcome] = []
        undone: list[Entry] = []
        for e in reversed(step):
            if e.before is None:
                continue  # it did not exist before: it goes away with what created it
            out = self._write_back(e.key, e.before)
            if not out.ok:
                redo = self._put_back([Entry(d.key, d.after, d.before) for d in reversed(undone)])
                reason = f"{out.reason}; undo abandoned, the step is left as it was{redo}"
                return [*outs, Outcome(out.key, out.status, out.before, out.after, reason)]
            outs.append(out)
            undone.append(e)
        self._note({"t": "undo"})
        self._cleanup({e.key for e in step})
        return outs

    def revert_all(self, force: bool = False) -> list[Outcome]:
        """Put every original value back, newest first. Best effort: each setting on its own,
        in up to four passes, so that a setting that needs another restored first (a queue's
        RPS that comes back with the channel count) gets its turn. What cannot be restored stays
        recorded (for `tuitune restore`); drifted settings are left alone unless `force`."""
        self._sync()
        if self._state.trial is not None:
            self.revert_trial()
        order = list(reversed(self._state.originals))
        results: dict[Key, Outcome] = {}
        drifted: set[Key] = set()
        for key in order:
            bad = bad_original(key, self._state.originals[key])
            if bad is not None:  # reported, and the rest is still restored
                now = _value(self.access.read(key))
                results[key] = Outcome(key, "failed", None, now, bad)
                drifted.add(key)
        for _ in range(4):
            wrote = False
            for key in order:
                if key in drifted:
                    continue
                orig = self._state.originals[key]
                now = _value(self.access.read(key))
                if now == orig:
                    continue
                if orig is None or now is None:
                    results[key] = self._absent_outcome(key, orig, now)
                    continue
                if not force and not self._state.matches(key, now):
                    results[key] = self._drift_outcome(Drift(key, self._last(key), now))
                    drifted.add(key)
                    continue
                try:
                    out = self._write_back(key, orig)
                except (ValueError, TypeError, OverflowError) as exc:  # not a value it takes
                    why = f"the journal's original {orig!r} cannot be written: {exc}"
                    out = Outcome(key, "failed", now, now, why)
                    drifted.add(key)
                if key not in results or out.status != "skipped":
                    results[key] = out
                wrote = wrote or out.status == "changed"
            if not wrote:
                break
        # The last word is what the kernel holds now: a later revert may have moved an earlier
        # one (a channel count resets queue masks), or brought a setting back by itself.
        final = self.access.read_many(order)
        settled = []
        for key in order:
            orig, now = self._state.originals[key], _value(final[key])
            got = results.get(key)
            if now == orig:
                settled.append(key)
                if got is None or not got.ok:
                    results[key] = Outcome(key, "skipped", orig, orig, "already the original")
            elif got is not None and got.ok:
                why = f"moved again by another revert: now {now}, original {orig}"
                results[key] = Outcome(key, "failed", got.before, now, why)
        if settled:
            self._note({"t": "forget", "k": [k.to_json() for k in settled]})
        self._note({"t": "clear"})
        return [results[k] for k in order]

    def adopt(self, key: Key) -> None:
        """Accept a drifted value: revert will put the original back over it without asking."""
        self._sync()
        now = _value(self.access.read(key))
        self._record({"t": "seen", "vals": [[key.to_json(), now]]})

    def forget(self, key: Key) -> None:
        """Give up a setting: its current value stays, and revert/restore leave it alone."""
        self._sync()
        self._record({"t": "forget", "k": [key.to_json()]})

    # ---- trial changes ---------------------------------------------------------------------
    @property
    def trial(self) -> Trial | None:
        """The trial change waiting for confirmation (None when there is none)."""
        self._sync()
        return _trial_of(self._state.trial)

    @property
    def last_trial_end(self) -> Record | None:
        """How the last trial ended: {"how": confirmed|reverted|drift|failed, "by":
        tuitune|watchdog, "value": what the setting held after}."""
        self._sync()
        return self._state.trial_end

    def apply_trial(
        self, key: Key, text: str, seconds: float = DEFAULT_TRIAL_SECONDS
    ) -> tuple[Outcome, Trial | None]:
        """Apply a change that may cut the user off (see `is_risky`): it is put back after
        `seconds` unless `confirm` is called, by this process (call `revert_trial` when the
        countdown ends) or, if this process or its terminal dies, by a detached watchdog.
        Until it ends, other changes are refused. Returns the outcome and the trial (None
        when nothing changed)."""
        self._sync()
        if self._state.trial is not None:
            return Outcome(key, "refused", reason=TRIAL_PENDING), None
        if not 0 < seconds <= 3600:
            raise ValueError(f"trial time must be between 0 and 3600 s, not {seconds}")
        out = self.apply(key, text)
        if out.status != "changed":
            return out, None
        trial_id = uuid.uuid4().hex[:12]
        deadline = time.time() + seconds
        try:
            self._record(
                {
                    "t": "trial",
                    "id": trial_id,
                    "k": key.to_json(),
                    "before": out.before,
                    "after": out.after,
                    "deadline": deadline,
                }
            )
        except JournalWriteError as exc:  # no record, no watchdog: no trial
            self._undo_last(True)
            raise JournalWriteError(f"{exc}; not applied, put back") from None
        spec = {
            "dir": os.path.abspath(self._file.directory),  # the watchdog runs from /
            "host": self.host,
            "id": trial_id,
            "deadline": deadline,
            "root": _root_spec(self.access.root),
        }
        try:
            pid = watchdog.spawn(spec)
        except OSError as exc:
            # No safety net, no trial: put it back now rather than risk being cut off.
            self.expire_trial(trial_id, by="tuitune")
            reason = f"not applied: the revert watchdog could not start ({exc}); put back"
            return Outcome(key, "failed", out.before, out.before, reason), None
        self._note({"t": "trial-helper", "id": trial_id, "pid": pid})
        return out, self.trial

    def confirm(self) -> bool:
        """Keep the trial change. False when there was none (e.g. the watchdog had already
        put it back: see `last_trial_end`)."""
        self._sync()
        t = self._state.trial
        if t is None:
            return False
        self._record(
            {
                "t": "trial-end",
                "id": t["id"],
                "how": "confirmed",
                "by": "tuitune",
                "time": time.time(),
            }
        )
        watchdog.stop(t.get("pid"))
        return True

    def revert_trial(self) -> list[Outcome]:
        """Put the trial change back now (the countdown ended, or the user said no)."""
        self._sync()
        t = self._state.trial
        if t is None:
            return []
        outs = self.expire_trial(t["id"], by="tuitune")
        watchdog.stop(t.get("pid"))
        return outs

    def expire_trial(self, trial_id: str, by: str) -> list[Outcome]:
        """Undo the trial's step and record how the trial ended (verified by reading back).
        The watchdog calls this, on a journal it attached without the lock."""
        self._sync()
        t = self._state.trial
        if t is None or t["id"] != trial_id:
            return []
        key = Key.from_json(t["k"])
        step = self._state.steps[-1] if self._state.steps else []
        outs = self._undo_last(False) if any(e.key == key for e in step) else []
        now = _value(self.access.read(key))
        if now == t["before"]:
            how = "reverted"
        elif any(o.status == "drift" for o in outs):
            how = "drift"
        else:
            how = "failed"
        self._note(
            {
                "t": "trial-end",
                "id": trial_id,
                "how": how,
                "by": by,
                "value": now,
                "time": time.time(),
            }
        )
        return outs

    # ---- drift -----------------------------------------------------------------------------
    def drift(self, current: Mapping[Key, str | Unavailable | None]) -> list[Drift]:
        """Settings whose value in `current` is not what tuitune left there."""
        self._sync()
        out = []
        for key, exp in self._state.expected.items():
            if key not in current or exp is None:
                continue
            raw = current[key]
            if isinstance(raw, Unavailable) and raw.kind != "missing":
                continue  # cannot tell (no permission, error): not evidence of a change
            now = _value(raw)
            if now not in exp:
                out.append(Drift(key, exp[-1], now))
        return out

    def check_drift(self) -> list[Drift]:
        """Read every held setting now and compare."""
        self._sync()
        keys = list(self._state.expected)
        return self.drift(self.access.read_many(keys)) if keys else []

    # ---- closing ---------------------------------------------------------------------------
    def close(self, keep: bool, force: bool = False) -> list[Outcome]:
        """keep=True: the changes stay and the journal is deleted. keep=False: revert all; the
        journal is deleted when nothing is left to restore, else kept for `tuitune restore`.
        A trial change not yet confirmed is put back either way."""
        self._sync()
        outs: list[Outcome] = self.revert_trial() if self._state.trial is not None else []
        if not keep and self._state.originals:
            outs += self.revert_all(force)
        if keep or not self._state.originals:
            if self._state.unreadable:  # kept for a human: what they held is still unknown
                self.set_aside = self._file.set_aside(".unreadable", reopen=False)
            self._file.remove()
        else:
            self._file.release()
        return outs

    def detach(self) -> None:
        """Release the journal without deciding: it stays on disk for `tuitune restore`."""
        self._file.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.detach()

    # ---- internals -------------------------------------------------------------------------
    def _record(self, *records: Record) -> None:
        """Append records, which must be on disk before what they guard happens. Raises
        JournalWriteError (nothing appended) when the journal cannot be written."""
        try:
            self._file.append(*records)
        except JournalWriteError as exc:
            self.degraded = str(exc)
            raise
        self._sync()

    def _note(self, *records: Record) -> None:
        """Append records that only keep the journal tidy (what a write left, a value came
        back, a step was undone); with a journal that cannot be written, they hold in memory
        only. The file then holds more originals than needed, which a later restore finds
        already back in place; the originals and intents it needs were on disk first."""
        try:
            self._record(*records)
        except JournalWriteError:
            for rec in records:
                self._state.feed(rec)

    def _sync(self) -> None:
        """Replay what the file holds beyond what was seen: the state is always the replay of
        the file, including records a trial watchdog appended."""
        records, self._seen = self._file.read_from(self._seen)
        for rec in records:
            self._state.feed(rec)

    def _push(self, entries: list[Entry]) -> None:
        rows = [[e.key.to_json(), e.before, e.after] for e in entries]
        self._record({"t": "step", "e": rows})

    def _last(self, key: Key) -> str | None:
        exp = self._state.expected.get(key)
        return exp[-1] if exp else None

    def _drift_outcome(self, d: Drift) -> Outcome:
        reason = (
            f"changed outside tuitune: now {d.found or 'absent'}, tuitune had set "
            f"{d.expected or 'nothing'}; left alone"
        )
        return Outcome(d.key, "drift", d.expected, d.found, reason)

    def _absent_outcome(self, key: Key, orig: str | None, now: str | None) -> Outcome:
        if now is None:
            return Outcome(key, "refused", orig, None, f"{key.label}: not present now")
        return Outcome(key, "failed", None, now, f"{key.label}: present now, absent before")

    def _write_one(self, key: Key, target: str) -> tuple[Outcome, list[Entry]]:
        """Record originals and intent, write, re-read, verify; put back on a mismatch."""
        before = self.access.related(key)
        current = before[key]
        if current is None:
            state = self.access.read(key)
            reason = state.reason if isinstance(state, Unavailable) else f"{key.label}: unreadable"
            st = state if isinstance(state, Unavailable) else None
            return Outcome(key, "refused", reason=reason, state=st), []
        if current == target:
            return Outcome(key, "skipped", current, current), []
        fresh = [
            k for k, val in before.items() if k not in self._state.originals and val is not None
        ]
        fresh.sort(key=lambda k: k == key)  # the key itself last: it is reverted first
        origs = [{"t": "orig", "k": k.to_json(), "v": before[k]} for k in fresh]
        effects, refused, after = self._kernel_write(key, target, before, origs)
        entries = [
            Entry(k, before.get(k), after.get(k))
            for k in (*[k for k in before if k != key], *[k for k in after if k not in before])
            if before.get(k) != after.get(k)
        ]
        also = tuple(Effect(e.key, e.before, e.after) for e in entries) + effects
        got = after.get(key)
        if refused is not None or got != target:
            why = refused.reason if refused is not None else f"the kernel kept {got}, not {target}"
            back = ""
            if got != current:  # the kernel changed something after all: undo it
                back = self._put_back([Entry(key, current, got), *entries])
            self._cleanup(set(fresh))
            status: Status = "refused" if refused is not None and not back else "failed"
            now = current if not back else _value(self.access.read(key))
            return Outcome(key, status, current, now, why + back, refused), []
        self._cleanup({k for k in fresh if k != key})
        return Outcome(key, "changed", current, got, also=also), [
            *entries,
            Entry(key, current, got),
        ]

    def _kernel_write(
        self, key: Key, value: str, related: Mapping[Key, str | None], origs: list[Record]
    ) -> tuple[tuple[Effect, ...], Unavailable | None, dict[Key, str | None]]:
        others = [k.to_json() for k in related if k != key]
        self._record(*origs, {"t": "intent", "k": key.to_json(), "v": value, "with": others})
        effects: tuple[Effect, ...] = ()
        refused: Unavailable | None = None
        try:
            effects = self.access.write(key, value)
        except WriteRefused as exc:
            refused = exc.state
        after = self.access.related(key)
        # Only a note: the original and the intent were on disk before the write, and that is
        # what a restore needs (without it, the settings it touched read as unknown).
        self._note({"t": "done", "vals": [[k.to_json(), val] for k, val in after.items()]})
        return effects, refused, after

    def _write_back(self, key: Key, value: str) -> Outcome:
        """Write a value tuitune had before (undo, revert, restore): through the journal when
        it can be written, else straight to the kernel, since the journal already holds what
        to restore and a full disk must not stop a restore."""
        try:
            out, _ = self._write_one(key, value)
            return out
        except JournalWriteError:
            pass  # the intent could not be recorded: nothing written yet
        now = _value(self.access.read(key))
        if now == value:
            return Outcome(key, "skipped", now, now)
        refused, after = self._direct(key, value)
        got = after[key]
        if refused is not None:
            status: Status = "refused" if got == now else "failed"
            return Outcome(key, status, now, got, refused.reason, refused)
        if got != value:
            return Outcome(key, "failed", now, got, f"the kernel kept {got}, not {value}")
        return Outcome(key, "changed", now, got)

    def _direct(self, key: Key, value: str) -> tuple[Unavailable | None, dict[Key, str | None]]:
        """Write without a journal record (only ever a value tuitune had before)."""
        refused: Unavailable | None = None
        try:
            self.access.write(key, value)
        except WriteRefused as exc:
            refused = exc.state
        return refused, {key: _value(self.access.read(key))}

    def _put_back(self, entries: Iterable[Entry]) -> str:
        """Write each entry's `before` (in the order given); "" or a note of what failed."""
        failed = []
        for e in entries:
            if e.before is None:
                continue
            now = _value(self.access.read(e.key))
            if now == e.before:
                continue
            if now is None:
                failed.append(f"{e.key.label} is gone")
                continue
            try:
                _, refused, after = self._kernel_write(e.key, e.before, {e.key: now}, [])
            except JournalWriteError:  # a value put back needs no record: write it anyway
                refused, after = self._direct(e.key, e.before)
            except OSError as exc:  # the journal itself failed: say so, keep going
                failed.append(f"{e.key.label}: {exc}")
                continue
            if refused is not None or after.get(e.key) != e.before:
                failed.append(f"{e.key.label} is still {after.get(e.key)}")
        if not failed:
            return ""
        return "; could not put back: " + ", ".join(failed)

    def _cleanup(self, keys: Iterable[Key]) -> None:
        """Drop originals that are back at their value and in no undo step: nothing to restore."""
        candidates = [k for k in keys if k in self._state.originals and not self._state.in_steps(k)]
        if not candidates:
            return
        now = self.access.read_many(candidates)
        gone = [k for k in candidates if _value(now[k]) == self._state.originals[k]]
        if gone:
            self._note({"t": "forget", "k": [k.to_json() for k in gone]})


def _root_spec(root: HostRoot) -> dict[str, Any]:
    return {"proc": str(root.proc), "sys": str(root.sys), "netns": root.netns, "live": root.live}


def _stale(head: Record | None, ident: Mapping[str, Any]) -> bool:
    if head is None:
        return False
    for field_name in ("boot", "ns"):
        then, now = head.get(field_name), ident.get(field_name)
        if then is not None and now is not None and then != now:
            return True
    return False
