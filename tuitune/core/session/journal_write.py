"""The write mechanics under `Journal` (journal.py): recording a change before it is made,
writing, reading back, putting back what failed, and replaying what other processes (the trial
watchdog) appended. Every record is a typed one (journal_records.py), encoded on append.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from pathlib import Path
from typing import Any

from tuitune.core.host.root import HostRoot
from tuitune.core.session.access import HostAccess, WriteRefused
from tuitune.core.session.journal_file import JournalFile, JournalWriteError
from tuitune.core.session.journal_queues import (
    follows_channels,
    makes_queues,
    respread_by_count,
)
from tuitune.core.session.journal_records import (
    Done,
    Entry,
    Forget,
    Intent,
    JournalRecord,
    Orig,
    Step,
    Undo,
    encode,
)
from tuitune.core.session.journal_replay import JournalState
from tuitune.core.session.outcome import Drift, Effect, Outcome, Status
from tuitune.core.session.pause import partner_note
from tuitune.core.session.proc_affinity import is_gone
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable


def value_of(v: str | Unavailable | None) -> str | None:
    return None if v is None or isinstance(v, Unavailable) else v


def root_spec(root: HostRoot) -> dict[str, Any]:
    """How the journal's head (and the trial watchdog) says where the host is."""
    return {"proc": str(root.proc), "sys": str(root.sys), "netns": root.netns, "live": root.live}


class JournalBase:
    """The state of one host's journal and how a change is written through it."""

    def __init__(self, access: HostAccess, jfile: JournalFile) -> None:
        """Use `Journal.open`. (The trial watchdog builds one on an attached file.)"""
        self.access = access
        self._file = jfile
        self._state = JournalState()
        self._seen = 0  # how far into the file the state has been replayed
        # Why the last append that failed did (a full disk): a change whose intent or undo step
        # cannot be recorded is put back; putting values back goes on without records.
        self.degraded: str | None = None
        self.set_aside: Path | None = None  # where closing kept a journal with unreadable records
        self._sync()
        self.discarded: str | None = None  # set when a stale journal was put aside on open
        self.recovered = bool(self._state.originals)  # an earlier session left values

    @property
    def path(self) -> Path:
        return self._file.path

    @property
    def host(self) -> str:
        return self._file.host

    def _record(self, *records: JournalRecord) -> None:
        """Append records, which must be on disk before what they guard happens. Raises
        JournalWriteError (nothing appended) when the journal cannot be written."""
        try:
            self._file.append(*(encode(r) for r in records))
        except JournalWriteError as exc:
            self.degraded = str(exc)
            raise
        self._sync()

    def _note(self, *records: JournalRecord) -> None:
        """Append records that only keep the journal tidy (what a write left, a value came
        back, a step was undone); with a journal that cannot be written, they hold in memory
        only. The file then holds more originals than needed, which a later restore finds
        already back in place; the originals and intents it needs were on disk first."""
        try:
            self._record(*records)
        except JournalWriteError:
            for rec in records:
                self._state.apply(rec)

    def _sync(self) -> None:
        """Replay what the file holds beyond what was seen: the state is always the replay of
        the file, including records a trial watchdog appended."""
        records, self._seen = self._file.read_from(self._seen)
        for rec in records:
            self._state.feed(rec)

    def _push(self, entries: list[Entry]) -> None:
        self._record(Step(tuple(entries)))

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

    def _write_one(
        self, key: Key, target: str, restoring: bool = False
    ) -> tuple[Outcome, list[Entry]]:
        """Record originals and intent, write, re-read, verify; put back on a mismatch.
        `restoring`: the value is one tuitune had before (undo, revert, restore); a queue that
        write removes had no original tuitune held (journal_queues.py)."""
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
        origs = [Orig(k, before[k]) for k in fresh]
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
            why += partner_note(key, before)
            back = ""
            if got != current:  # the kernel changed something after all: undo it
                back = self._put_back([Entry(key, current, got), *entries])
            self._cleanup(set(fresh))
            status: Status = "refused" if refused is not None and not back else "failed"
            now = current if not back else value_of(self.access.read(key))
            return Outcome(key, status, current, now, why + back, refused), []
        # Putting a channel count back removes the queues tuitune's raise had created: their
        # values, just recorded, are not originals (the queues did not exist then).
        gone = {k for k in fresh if restoring and follows_channels(k) and after.get(k) is None}
        self._cleanup({k for k in fresh if k != key}, gone)
        return Outcome(key, "changed", current, got, also=also), [
            *entries,
            Entry(key, current, got),
        ]

    def _hold_originals(self, keys: list[Key]) -> list[Key]:
        """Record the originals of `keys` and of what writing them may move, all before the
        first write of a change of several settings (a channel count moves the IRQs a later
        target sets; their original is what the host had before the whole change). In the
        order writing them one by one records them (the revert order backwards). Returns the
        keys recorded; raises JournalWriteError (nothing recorded)."""
        found: dict[Key, str | None] = {}
        targets = set(keys)
        for key in keys:  # in the order writing them one by one would record them
            related = self.access.related(key)
            for k in [*(k for k in related if k != key and k not in targets), key]:
                found.setdefault(k, related[k])
        fresh = [k for k, v in found.items() if k not in self._state.originals and v is not None]
        if fresh:
            self._record(*(Orig(k, found[k]) for k in fresh))
        return fresh

    def _kernel_write(
        self, key: Key, value: str, related: Mapping[Key, str | None], origs: list[Orig]
    ) -> tuple[tuple[Effect, ...], Unavailable | None, dict[Key, str | None]]:
        others = tuple(k for k in related if k != key)
        self._record(*origs, Intent(key, value, others))
        effects: tuple[Effect, ...] = ()
        refused: Unavailable | None = None
        try:
            effects = self.access.write(key, value)
        except WriteRefused as exc:
            refused = exc.state
        after = self.access.related(key)
        # Only a note: the original and the intent were on disk before the write, and that is
        # what a restore needs (without it, the settings it touched read as unknown).
        self._note(Done(tuple(after.items())))
        return effects, refused, after

    def _write_back(self, key: Key, value: str) -> Outcome:
        """Write a value tuitune had before (undo, revert, restore): through the journal when
        it can be written, else straight to the kernel, since the journal already holds what
        to restore and a full disk must not stop a restore."""
        try:
            out, _ = self._write_one(key, value, restoring=True)
            return out
        except JournalWriteError:
            pass  # the intent could not be recorded: nothing written yet
        now = value_of(self.access.read(key))
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
        return refused, {key: value_of(self.access.read(key))}

    def _put_back(self, entries: Iterable[Entry]) -> str:
        """Write each entry's `before` (in the order given); "" or a note of what failed."""
        failed = []
        for e in entries:
            if e.before is None:
                continue
            now = value_of(self.access.read(e.key))
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

    def _cleanup(self, keys: Iterable[Key], gone: Collection[Key] = ()) -> None:
        """Drop originals that are back at their value and in no undo step: nothing to restore.
        Those in `gone` are dropped too when absent now (a queue that went with its creator)."""
        held = self._state.originals
        keys = set(keys)
        # A channel count dropped here frees the queue IRQs it held (below) with it.
        counts = {k.ifname for k in keys if makes_queues(k) and k in held}
        keys |= {k for k in held if respread_by_count(k) and k.ifname in counts}
        # A gone queue's step entries are of no use either: undo skips what had no value.
        candidates = [k for k in keys if k in held and (k in gone or not self._state.in_steps(k))]
        if not candidates:
            return
        now = self.access.read_many(candidates)
        back = {
            k
            for k in candidates
            if value_of(now[k]) == self._state.originals[k]
            or (k in gone and value_of(now[k]) is None)
        }
        # A queue IRQ stays held while its device's channel count is, even at its original:
        # putting the count back spreads IRQs the change itself left alone (virtio_net's
        # virtnet_set_affinity moves every queue below the new count), and only a held
        # original lets restore put them back.
        still = {k.ifname for k in held if makes_queues(k) and k not in back}
        back = {k for k in back if k in gone or not respread_by_count(k) or k.ifname not in still}
        if back:
            self._note(Forget(tuple(k for k in held if k in back)))

    def _undo_last(self, force: bool) -> list[Outcome]:
        if not self._state.steps:
            return []
        step = self._state.steps[-1]
        now = self.access.read_many([e.key for e in step])
        gone = {e.key: now[e.key] for e in step if is_gone(now[e.key])}  # a process exited
        if not force:
            drifted = [
                Drift(e.key, e.after, value_of(now[e.key]))
                for e in step
                if e.key not in gone and not self._state.matches(e.key, value_of(now[e.key]))
            ]
            if drifted:
                return [self._drift_outcome(d) for d in drifted]
        # Queue IRQs a channel count of this step may spread anew when put back, although the
        # step did not move them (virtio_net): what they hold now is what undo must leave.
        counts = {e.key.ifname for e in step if makes_queues(e.key)}
        in_step = {e.key for e in step}
        spread = [
            k
            for k in self._state.originals
            if respread_by_count(k) and k.ifname in counts and k not in in_step
        ]
        kept = {k: value_of(v) for k, v in self.access.read_many(spread).items()} if spread else {}
        outs: list[Outcome] = []
        undone: list[Entry] = []
        for e in reversed(step):
            if e.before is None:
                continue  # it did not exist before: it goes away with what created it
            if e.key in gone:
                outs.append(Outcome(e.key, "skipped", e.after, None, str(gone[e.key])))
                continue
            out = self._write_back(e.key, e.before)
            if not out.ok:
                redo = self._put_back([Entry(d.key, d.after, d.before) for d in reversed(undone)])
                reason = f"{out.reason}; undo abandoned, the step is left as it was{redo}"
                return [*outs, Outcome(out.key, out.status, out.before, out.after, reason)]
            outs.append(out)
            undone.append(e)
        for k, value in kept.items():
            if value is not None and value_of(self.access.read(k)) != value:
                outs.append(self._write_back(k, value))
        self._note(Undo())
        self._cleanup({e.key for e in step})
        return outs
