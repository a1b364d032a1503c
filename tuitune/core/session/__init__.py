"""The change session: setting addresses, validated writes, the on-disk change journal (apply,
verify, undo, revert all, restore after a crash) and `Session`, which ties them together for
one host. No UI imports.

The names below load with the module that defines them, on their first use (PEP 562): the live
screen's first frame needs only `Session` and `read_only_reason`, not the writers, the journal
or the kinds' handlers, about 2 MB of a small host's memory (issue 38)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tuitune.core.session.settings import describe_kinds_on_use

if TYPE_CHECKING:
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
    from tuitune.core.session.settings import Describes, Key, Kind
    from tuitune.core.session.validate import InvalidValue

# name -> the module of this package that defines it
_WHERE = {
    "HostAccess": "access",
    "WriteRefused": "access",
    "DEFAULT_TRIAL_SECONDS": "journal",
    "Journal": "journal",
    "JournalState": "journal",
    "JournalSummary": "journal",
    "Trial": "journal",
    "list_journals": "journal",
    "DEFAULT_DIR": "journal_file",
    "JournalBusy": "journal_file",
    "JournalError": "journal_file",
    "host_id": "journal_file",
    "Drift": "outcome",
    "Effect": "outcome",
    "Outcome": "outcome",
    "is_risky": "risk",
    "needs_consent": "risk",
    "ssh_interface": "risk",
    "DriftNews": "session",
    "Session": "session",
    "read_only_reason": "session",
    "Key": "settings",
    "InvalidValue": "validate",
}


def __getattr__(name: str) -> object:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{where}"), name)
    globals()[name] = value  # once: the next use is a plain lookup
    return value


def _kind_handlers() -> Mapping[Kind, Describes]:
    from tuitune.core.session.kinds.table import HANDLERS

    return HANDLERS


# A key names itself by its kind's handler; the handlers are built on Key, so the binding is
# given here, where importing any module of the session has run first.
describe_kinds_on_use(_kind_handlers)

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
