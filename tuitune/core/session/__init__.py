"""The change session: setting addresses, validated writes, the on-disk change journal (apply,
verify, undo, revert all, restore after a crash) and `Session`, which ties them together for
one host. No UI imports."""

from tuitune.core.session.access import HostAccess, WriteRefused
from tuitune.core.session.journal import (
    DEFAULT_TRIAL_SECONDS,
    Journal,
    JournalState,
    JournalSummary,
    Trial,
    list_journals,
)
from tuitune.core.session.journal_file import DEFAULT_DIR, JournalBusy, JournalError, host_id
from tuitune.core.session.outcome import Drift, Effect, Outcome
from tuitune.core.session.risk import is_risky, needs_consent, ssh_interface
from tuitune.core.session.session import DriftNews, Session, read_only_reason
from tuitune.core.session.settings import Key
from tuitune.core.session.validate import InvalidValue

__all__ = [
    "DEFAULT_DIR",
    "DEFAULT_TRIAL_SECONDS",
    "Drift",
    "DriftNews",
    "Effect",
    "HostAccess",
    "InvalidValue",
    "Journal",
    "JournalBusy",
    "JournalError",
    "JournalState",
    "JournalSummary",
    "Key",
    "Outcome",
    "Session",
    "Trial",
    "WriteRefused",
    "host_id",
    "is_risky",
    "list_journals",
    "needs_consent",
    "read_only_reason",
    "ssh_interface",
]
