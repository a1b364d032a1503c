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

The parts: journal_records.py (the typed records and their codec), journal_replay.py (the state
they describe), journal_write.py (the write mechanics), journal_trial.py (trial changes, undone
by a detached watchdog unless confirmed), journal_file.py (the file and its lock).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from tuitune.core.session.access import HostAccess, WriteRefused
from tuitune.core.session.journal_file import (
    DEFAULT_DIR,
    JournalError,
    JournalFile,
    JournalWriteError,
    host_id,
    identity,
)
from tuitune.core.session.journal_queues import (
    GONE_WITH_QUEUE,
    NO_WAY_BACK,
    channels_held,
    follows_channels,
    makes_queues,
    removed_by,
)
from tuitune.core.session.journal_records import (
    FORMAT_VERSION,
    Clear,
    Entry,
    Forget,
    Head,
    Seen,
    SessionStart,
    bad_original,
    encode,
)
from tuitune.core.session.journal_replay import (
    Expected,
    JournalState,
    JournalSummary,
    Trial,
    list_journals,
)
from tuitune.core.session.journal_trial import DEFAULT_TRIAL_SECONDS, TRIAL_PENDING, TrialChanges
from tuitune.core.session.journal_write import root_spec, value_of
from tuitune.core.session.outcome import Drift, Outcome
from tuitune.core.session.proc_affinity import is_gone
from tuitune.core.session.settings import QUEUE_KINDS, Key
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

__all__ = [
    "DEFAULT_TRIAL_SECONDS",
    "FORMAT_VERSION",
    "TRIAL_PENDING",
    "Entry",
    "Expected",
    "Journal",
    "JournalError",
    "JournalState",
    "JournalSummary",
    "Trial",
    "list_journals",
]


class Journal(TrialChanges):
    """The change journal of one host. Open it with `Journal.open`; one per host at a time.

    Methods block while they write (kernel writes run on the host's kernel thread); call them
    from a worker thread in a UI.
    """

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
            pid, now = os.getpid(), time.time()
            first = Head(jfile.host, ident["boot"], ident["ns"], root_spec(root), pid, now)
            if head is None and (discarded or not records):  # a new journal starts with it
                try:
                    jfile.append(encode(first))
                except JournalWriteError as exc:
                    jfile.remove()  # an empty journal would only stand in a restore's way
                    also = f"; {discarded}" if discarded else ""
                    raise JournalWriteError(f"{exc}{also}") from None
            else:
                # Only a note of who opened it: a full disk must not stop a restore.
                with contextlib.suppress(JournalWriteError):
                    jfile.append(encode(first if head is None else SessionStart(pid, now)))
            journal = cls(access, jfile)
        except BaseException:
            jfile.release()
            raise
        journal.discarded = discarded
        return journal

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
        try:  # every original before the first write: one write may move a later target
            held = self._hold_originals([k for k, _ in targets])
        except JournalWriteError as exc:
            raise self._abandon([], str(exc)) from None
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
            # What this change held and is absent now went mid-apply (a NIC removed): no
            # value is left there to put back, and held it would fail every `restore`.
            self._cleanup({e.key for _, es in done for e in es} | {key} | set(held), gone=held)
            return [*rolled, out, *rest]
        self._commit(done)
        self._cleanup(held)  # the ones no write moved in the end
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

    def revert_all(self, force: bool = False) -> list[Outcome]:
        """Put every original value back, newest first. Best effort: each setting on its own,
        in up to four passes, so that a setting that needs another restored first (a queue's
        RPS that comes back with the channel count) gets its turn. What cannot be restored stays
        recorded (for `tuitune restore`); drifted settings are left alone unless `force`."""
        self._sync()
        if self._state.trial is not None:
            self.revert_trial()
        # Newest first, but channel counts before all else: putting a count back re-creates
        # or re-spreads the queues and IRQs of its device, so their originals go back after it.
        order = sorted(reversed(self._state.originals), key=lambda k: not makes_queues(k))
        results: dict[Key, Outcome] = {}
        drifted: set[Key] = set()
        removed: set[Key] = set()  # queue settings a channel count put back took away
        for key in order:
            bad = bad_original(key, self._state.originals[key])
            if bad is not None:  # reported, and the rest is still restored
                now = value_of(self.access.read(key))
                results[key] = Outcome(key, "failed", None, now, bad)
                drifted.add(key)
        for _ in range(4):
            wrote = False
            for key in order:
                if key in drifted:
                    continue
                orig = self._state.originals[key]
                now = value_of(self.access.read(key))
                if now == orig or (now is None and key in removed):
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
                removed |= removed_by(out)
                wrote = wrote or out.status == "changed"
            if not wrote:
                break
        # The last word is what the kernel holds now: a later revert may have moved an earlier
        # one (a channel count resets queue masks), or brought a setting back by itself.
        final = self.access.read_many(order)
        settled = []
        for key in order:
            orig, now = self._state.originals[key], value_of(final[key])
            got = results.get(key)
            gone = self._gone_with_queue(key, now, removed)
            if gone is not None:
                settled.append(key)
                results[key] = Outcome(key, "skipped", orig, None, gone)
            elif now == orig:
                settled.append(key)
                if got is None or not got.ok:
                    results[key] = Outcome(key, "skipped", orig, orig, "already the original")
            elif got is not None and got.ok:
                why = f"moved again by another revert: now {now}, original {orig}"
                results[key] = Outcome(key, "failed", got.before, now, why)
        if settled:
            self._note(Forget(tuple(settled)))
        self._note(Clear())
        return [results[k] for k in order]

    def _gone_with_queue(self, key: Key, now: str | None, removed: set[Key]) -> str | None:
        """Why a queue setting that is absent now needs no restoring (None: it does): its
        queue went when the channel count was put back, or it cannot come back at all."""
        if key.kind == "proc_affinity" and now is None:  # exited: it never comes back
            state = self.access.read(key)
            return state.reason if is_gone(state) else None
        if now is not None or not follows_channels(key) or self._state.originals[key] is None:
            return None
        if key in removed:
            return GONE_WITH_QUEUE
        # An older journal, or a count changed by someone else: with the device still there
        # and no channel change held, nothing tuitune can do brings the queue back.
        if key.kind not in QUEUE_KINDS or channels_held(self._state.originals, key):
            return None
        if value_of(self.access.read(Key.mtu(key.ifname or ""))) is None:
            return None  # the whole device is gone (unplugged?): not a queue question
        return NO_WAY_BACK

    def adopt(self, key: Key) -> None:
        """Accept a drifted value: revert will put the original back over it without asking."""
        self._sync()
        now = value_of(self.access.read(key))
        self._record(Seen(((key, now),)))

    def forget(self, key: Key) -> None:
        """Give up a setting: its current value stays, and revert/restore leave it alone."""
        self._sync()
        self._record(Forget((key,)))

    # ---- drift -----------------------------------------------------------------------------
    def drift(self, current: Mapping[Key, str | Unavailable | None]) -> list[Drift]:
        """Settings whose value in `current` is not what tuitune left there."""
        self._sync()
        out = []
        for key, exp in self._state.expected.items():
            if key not in current or exp is None:
                continue
            raw = current[key]
            if isinstance(raw, Unavailable) and (raw.kind != "missing" or is_gone(raw)):
                # cannot tell (no permission, error): not evidence of a change; a process
                # that exited was not changed by anyone (revert reports it gone)
                continue
            now = value_of(raw)
            if now not in exp:
                out.append(Drift(key, exp[-1], now))
        return out

    def check_drift(self) -> list[Drift]:
        """Read every held setting now and compare."""
        self._sync()
        keys = list(self._state.expected)
        return self.drift(self.access.read_many(keys)) if keys else []

    # ---- closing ---------------------------------------------------------------------------
    def close_keeping_changes(self) -> list[Outcome]:
        """Leave the changes as they are and delete the journal: nothing is left to restore.
        A trial change not yet confirmed is put back first (keeping means the confirmed ones)."""
        outs = self._end_trial()
        self._remove()
        return outs

    def close_restoring(self, force: bool = False) -> list[Outcome]:
        """Put every original back (see `revert_all`, and `force` there), then let go of the
        journal: deleted when nothing is left to restore, else kept for `tuitune restore`."""
        outs = self._end_trial()
        if self._state.originals:
            outs += self.revert_all(force)
        if self._state.originals:
            self._file.release()
        else:
            self._remove()
        return outs

    def _end_trial(self) -> list[Outcome]:
        self._sync()
        return self.revert_trial() if self._state.trial is not None else []

    def _remove(self) -> None:
        if self._state.unreadable:  # kept for a human: what they held is still unknown
            self.set_aside = self._file.set_aside(".unreadable", reopen=False)
        self._file.remove()

    def detach(self) -> None:
        """Release the journal without deciding: it stays on disk for `tuitune restore`."""
        self._file.release()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.detach()


def _stale(head: Head | None, ident: Mapping[str, object]) -> bool:
    if head is None:
        return False
    for then, now in ((head.boot, ident.get("boot")), (head.ns, ident.get("ns"))):
        if then is not None and now is not None and then != now:
            return True
    return False
