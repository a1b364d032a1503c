"""The Ansible playbook written from the live screen's export preview (`a`): the same files
`tuitune export IFACE --ansible --out DIR` writes, from the same journal.

The screen cannot ask which match to use the way the CLI's `--match` does, so it takes the
fleet default (ID_PATH) when the NIC has one and otherwise the match the preview's own files
use (the permanent MAC, else the name), and says which and why.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, replace
from pathlib import Path

from tuitune.core.export.ansible import role_files
from tuitune.core.export.build import build_plan
from tuitune.core.export.changes import from_journal
from tuitune.core.export.context import gather_context
from tuitune.core.export.fleet import WHY_DEFAULT, NoMatch, choose_match, write_tree
from tuitune.core.session import HostAccess


@dataclass(frozen=True, slots=True)
class PlaybookWritten:
    """What `write_playbook` did: the files written (none when DIR held them already), the
    directory, and how the files match the NIC (a sentence)."""

    out: Path
    written: tuple[Path, ...]
    match: str


class NothingToWrite(ValueError):
    """No playbook: nothing recorded, or values that cannot go into a file (one line)."""


def write_playbook(
    access: HostAccess, journal_dir: Path, ifname: str, out: Path
) -> PlaybookWritten:
    changes, _unreadable = from_journal(access, journal_dir, ifname)  # the preview says them
    if not changes:
        raise NothingToWrite(f"nothing to export: no change of {ifname} is recorded")
    ctx = gather_context(access, ifname)
    try:
        match = choose_match(access.root, ifname, "path")
        said = f"The files match the NIC by {match.describe}. Why: {WHY_DEFAULT}."
    except NoMatch as exc:
        match = ctx.match
        said = f"{exc}: the files match the NIC by {match.describe} instead."
    ctx = replace(ctx, match=match)
    plan = build_plan(changes, ctx)
    if not plan.files:
        raise NothingToWrite("nothing to write: no format carries these changes")
    files = role_files(plan, ctx, textwrap.wrap(said, 90))
    return PlaybookWritten(out, tuple(write_tree(files, out)), said)
