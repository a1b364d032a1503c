"""One host's change session, the same object for the live screen and the headless commands.

A `Session` owns what every front end needs to change a host safely: the way to the host (a
`HostAccess`, made on first use), the change journal (opened at the first change, so watching a
host never takes its lock or creates the journal directory), a lock that keeps journal calls
one at a time, and what the screen notes beside a setting: drift (someone else changed a value
tuitune set) and refusals that are a lasting state (locked, not supported, needs root).

No UI here: the TUI runs the blocking calls (`run`, `check_drift`, `release`...) on worker
threads, the headless commands call them directly.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from tuitune.core.closing import Closing
from tuitune.core.host.root import HostRoot
from tuitune.core.session.journal_dir import names_in
from tuitune.core.session.journal_file import DEFAULT_DIR, SUFFIX, JournalError, host_id
from tuitune.core.session.outcome import Drift, Outcome
from tuitune.core.session.settings import Key, setting_count

# The host's access and the journal load on the first change (or a journal of this host
# found at start), not with the session: watching a host needs neither (issue 38).
if TYPE_CHECKING:
    from tuitune.core.host.ethtool_device import EthtoolLike
    from tuitune.core.host.handles import KernelHandles
    from tuitune.core.session.access import HostAccess
    from tuitune.core.session.journal import Journal
    from tuitune.core.session.journal_replay import JournalSummary

T = TypeVar("T")

# Refusals that stay true of a setting until something else changes (a kernel-managed IRQ, a
# driver without the feature, a read-only file): worth a note on the setting's row. A bad
# value or a busy device is news for one message, not a state.
LASTING = frozenset({"permission", "unsupported"})


def read_only_reason(root: HostRoot, editable: bool) -> str | None:
    """Why nothing can be changed on this host from here, or None when changes are allowed."""
    if not editable:
        return "read-only (a recorded host tree)"
    if root.live and os.geteuid() != 0:
        return "not root: read-only (changes need root: run it with sudo)"
    return None


@dataclass(frozen=True)
class DriftNews:
    """What one drift check found: `new` are drifts not seen (or different) last time; `moved`
    is whether the set of drifts changed at all (a value came back counts too)."""

    new: list[Drift]
    moved: bool


class Session(Closing):
    """Access, journal, lock and row notes of one host. Thread-safe.

    `access` makes the HostAccess (tests inject fakes); by default it is built on `root` with
    `call` (share a reader's kernel thread) and `host_writes`. `read_only` says why changes
    are refused (the screen greys its keys and says so); the session itself does not enforce
    it: the headless commands change recorded trees on purpose.
    """

    def __init__(
        self,
        root: HostRoot,
        *,
        journal_dir: Path | None = None,
        access: Callable[[], HostAccess] | None = None,
        call: Callable[..., Any] | None = None,
        handles: KernelHandles[EthtoolLike] | None = None,
        host_writes: bool = False,
        read_only: str | None = None,
    ) -> None:
        """`call` and `handles`: a reader's kernel thread and its kernel handles, so the
        screen's reads and writes share one netlink socket and one ethtool handle a device."""
        self.root = root
        self.journal_dir = journal_dir or DEFAULT_DIR
        self.read_only = read_only
        self._make_access = access or (lambda: _host_access(root, call, handles, host_writes))
        self._access: HostAccess | None = None
        self._access_lock = threading.Lock()  # two workers may ask for it at the same time
        self._journal: Journal | None = None
        # One journal call at a time: a drift check must not replay the journal file while a
        # change is being recorded, and two changes must not interleave their records.
        self._lock = threading.Lock()
        # Changes asked for on the UI thread whose worker has not finished: what must show
        # them (the export preview) waits for none to be left (settled).
        self._asked = 0
        self._asked_done = threading.Condition()
        self.drift: dict[Key, Drift] = {}  # held settings someone else changed
        self.refusals: dict[Key, Outcome] = {}  # the last lasting refusal of each setting

    # -- the host --------------------------------------------------------------------------
    def access(self) -> HostAccess:
        """The host's settings (shared with the journal); made on first use. May raise what
        making it raises (NetnsError: the namespace is gone)."""
        with self._access_lock:
            if self._access is None:
                self._access = self._make_access()
            return self._access

    # -- the journal -----------------------------------------------------------------------
    @property
    def journal(self) -> Journal | None:
        """The open journal, None until the first change (or after it was let go)."""
        return self._journal

    def _open(self) -> Journal:
        if self._journal is None:
            from tuitune.core.session.journal import Journal

            self._journal = Journal.open(self.access(), self.journal_dir)
        return self._journal

    def open_journal(self) -> Journal:
        """Open (or create) the host's journal now. Raises JournalError (JournalBusy)."""
        with self._lock:
            return self._open()

    def asked(self) -> None:
        """A change was asked for and its worker will call run(); finished() when it has."""
        with self._asked_done:
            self._asked += 1

    def finished(self) -> None:
        with self._asked_done:
            self._asked -= 1
            self._asked_done.notify_all()

    def settled(self, timeout: float) -> bool:
        """Wait (off the UI thread) until every change asked for has been made or refused;
        False when `timeout` seconds pass first."""
        with self._asked_done:
            return self._asked_done.wait_for(lambda: self._asked <= 0, timeout)

    def run(self, work: Callable[[Journal], T]) -> T:
        """`work(journal)` with the journal opened if need be, one call at a time. Blocks:
        call it off a UI's event loop. Raises JournalError when the journal cannot be used."""
        with self._lock:
            return work(self._open())

    def originals(self) -> dict[Key, str | None]:
        """What tuitune changed and still holds: setting -> the value it found."""
        journal = self._journal
        return journal.originals() if journal is not None else {}

    def change_count(self) -> int:
        """How many settings the header and the quit question call changed (setting_count)."""
        return setting_count(self.originals())

    @property
    def pending(self) -> bool:
        """Something changed here is still recorded: leaving should ask keep or revert."""
        return bool(self.originals())

    def leftover(self) -> int:
        """How many originals an earlier tuitune on this host left recorded (a crash, a lost
        terminal, kept changes) in a journal no running tuitune holds; 0 for none."""
        return len(self.leftovers())

    def watchdog_news(self) -> str | None:
        """What a trial watchdog put back after an earlier tuitune was gone (one line), from
        a journal no running tuitune holds; None when it did not."""
        try:
            found = self._mine()
        except JournalError:
            return None
        return found[0].watchdog if found and found[0].holder is None else None

    def leftovers(self) -> dict[Key, str | None]:
        """Those originals themselves (setting -> the value it had), {} for none."""
        try:
            journals = self._mine()
        except JournalError:
            return {}  # unreadable here: the first change says why
        found = [j for j in journals if j.originals]
        if not found or found[0].holder is not None:
            return {}
        return dict(found[0].originals)

    def _mine(self) -> list[JournalSummary]:
        """This host's journal in the journal directory, as `list_journals` summarises it
        ([]: none). Raises JournalError as that does. The directory is listed first: without
        a file of this host, the journal's code is not loaded (issue 38)."""
        me = host_id(self.root)
        if me + SUFFIX not in (names_in(self.journal_dir, SUFFIX) or []):
            return []
        from tuitune.core.session.journal_replay import list_journals

        return [j for j in list_journals(self.journal_dir) if j.host == me]

    def release(self) -> None:
        """Let go of the journal without deciding: it stays on disk, so `tuitune restore` can
        put the originals back later."""
        with self._lock:
            journal, self._journal = self._journal, None
            if journal is not None:
                journal.detach()

    def forget(self) -> list[Outcome]:
        """Delete the journal: the changes stay as they are and nothing is left to restore
        (leaving with nothing changed, or a lab whose namespace is about to go). A trial
        change nobody confirmed is put back first."""
        with self._lock:
            journal, self._journal = self._journal, None
            return journal.close_keeping_changes() if journal is not None else []

    def restore(self, force: bool = False) -> list[Outcome]:
        """Put every original back and let go of the journal: deleted when all came back,
        kept for `tuitune restore` otherwise. `force` also overwrites what others changed."""
        with self._lock:
            journal = self._open()
            try:
                return journal.close_restoring(force)
            finally:
                self._journal = None

    def agree(self, key: Key) -> None:
        """The user agreed to change another user's process (risk.needs_consent asked)."""
        self.access().procs.agree(key)

    # -- what the rows say -----------------------------------------------------------------
    def check_drift(self) -> DriftNews | None:
        """Read every setting tuitune holds and compare with what it set. None when there is
        no journal yet, a change is under way (the next check will do), or the journal could
        not be read. Updates `drift`."""
        journal = self._journal
        if journal is None or not self._lock.acquire(blocking=False):
            return None
        try:
            found = journal.check_drift()
        except (JournalError, OSError):
            return None
        finally:
            self._lock.release()
        drift = {d.key: d for d in found}
        old = self.drift
        self.drift = drift
        return DriftNews([d for k, d in drift.items() if old.get(k) != d], drift != old)

    def note(self, outcomes: Iterable[Outcome]) -> None:
        """Keep each lasting refusal beside its setting; a setting that changed clears it."""
        for out in outcomes:
            if out.status == "refused" and out.state is not None and out.state.kind in LASTING:
                self.refusals[out.key] = out
            elif out.status == "changed":
                self.refusals.pop(out.key, None)

    # -- lifetime --------------------------------------------------------------------------
    def close(self) -> None:
        """Let go of the journal (kept for restore) and close the host access."""
        self.release()
        with self._access_lock:
            access, self._access = self._access, None
        if access is not None:
            access.close()


def _host_access(
    root: HostRoot,
    call: Callable[..., Any] | None,
    handles: KernelHandles[EthtoolLike] | None,
    host_writes: bool,
) -> HostAccess:
    """The default HostAccess, loaded on the session's first use of the host."""
    from tuitune.core.session.access import HostAccess

    return HostAccess(root, call=call, handles=handles, host_writes=host_writes)
