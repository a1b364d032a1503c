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
from tuitune.core.session.kinds.table import HANDLERS
from tuitune.core.session.outcome import Drift, Effect, Outcome
from tuitune.core.session.risk import is_risky, needs_consent, ssh_interface
from tuitune.core.session.session import DriftNews, Session, read_only_reason
from tuitune.core.session.settings import Key, describe_kinds
from tuitune.core.session.validate import InvalidValue

# A key names itself by its kind's handler; the handlers are built on Key, so the binding is
# made here, where importing any module of the session has run first.
describe_kinds(HANDLERS)

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
