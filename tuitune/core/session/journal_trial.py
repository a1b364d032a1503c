"""Trial changes (`apply_trial`, for what may cut the SSH session): recorded like any change
plus a trial record; a detached watchdog (watchdog.py, started by watchdog_process.py) undoes
the step after the deadline unless `confirm` or `revert_trial` ended the trial first. The
watchdog appends to the same file, so every method first replays what the file holds beyond
what this process has seen.
"""

from __future__ import annotations

import os
import time
import uuid

from tuitune.core.session import watchdog_process
from tuitune.core.session.journal_file import JournalWriteError
from tuitune.core.session.journal_records import TrialEnd, TrialHelper, TrialStart
from tuitune.core.session.journal_replay import Trial
from tuitune.core.session.journal_write import JournalBase, root_spec, value_of
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import Key

__all__ = ["DEFAULT_TRIAL_SECONDS", "TRIAL_PENDING", "Trial", "TrialChanges"]

DEFAULT_TRIAL_SECONDS = 30.0
TRIAL_PENDING = "a trial change is waiting: confirm it or put it back first"


class TrialChanges(JournalBase):
    """The trial part of `Journal`."""

    def apply(self, key: Key, text: str) -> Outcome:
        raise NotImplementedError  # Journal.apply: a trial change is first a change

    @property
    def trial(self) -> Trial | None:
        """The trial change waiting for confirmation (None when there is none)."""
        self._sync()
        return self._state.trial

    @property
    def last_trial_end(self) -> TrialEnd | None:
        """How the last trial ended (see TrialEnd: how, by, value)."""
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
            self._record(TrialStart(trial_id, key, out.before, out.after, deadline))
        except JournalWriteError as exc:  # no record, no watchdog: no trial
            self._undo_last(True)
            raise JournalWriteError(f"{exc}; not applied, put back") from None
        spec = {
            "dir": os.path.abspath(self._file.directory),  # the watchdog runs from /
            "host": self.host,
            "id": trial_id,
            "deadline": deadline,
            "root": root_spec(self.access.root),
        }
        try:
            pid = watchdog_process.spawn(spec)
        except OSError as exc:
            # No safety net, no trial: put it back now rather than risk being cut off.
            self.expire_trial(trial_id, by="tuitune")
            reason = f"not applied: the revert watchdog could not start ({exc}); put back"
            return Outcome(key, "failed", out.before, out.before, reason), None
        self._note(TrialHelper(trial_id, pid))
        return out, self.trial

    def confirm(self) -> bool:
        """Keep the trial change. False when there was none (e.g. the watchdog had already
        put it back: see `last_trial_end`)."""
        self._sync()
        t = self._state.trial
        if t is None:
            return False
        self._record(TrialEnd(t.id, "confirmed", "tuitune", time.time()))
        watchdog_process.stop(t.pid)
        return True

    def revert_trial(self) -> list[Outcome]:
        """Put the trial change back now (the countdown ended, or the user said no)."""
        self._sync()
        t = self._state.trial
        if t is None:
            return []
        outs = self.expire_trial(t.id, by="tuitune")
        watchdog_process.stop(t.pid)
        return outs

    def expire_trial(self, trial_id: str, by: str) -> list[Outcome]:
        """Undo the trial's step and record how the trial ended (verified by reading back).
        The watchdog calls this, on a journal it attached without the lock."""
        self._sync()
        t = self._state.trial
        if t is None or t.id != trial_id:
            return []
        key = t.key
        step = self._state.steps[-1] if self._state.steps else []
        outs = self._undo_last(False) if any(e.key == key for e in step) else []
        now = value_of(self.access.read(key))
        if now == t.before:
            how = "reverted"
        elif any(o.status == "drift" for o in outs):
            how = "drift"
        else:
            how = "failed"
        self._note(TrialEnd(trial_id, how, by, time.time(), now))
        return outs
