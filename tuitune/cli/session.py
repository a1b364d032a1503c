"""Headless `tuitune apply FILE` and `tuitune restore`: the change journal without a terminal UI.

Both print every value they changed, one line each, and what they could not change and why.
Exit status: 0 done (or nothing to do), 1 something could not be changed or restored (or was
not valid), 2 a usage error (unreadable file, unknown interface or namespace).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err, host_args, host_root

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import HostAccess, InvalidValue, Session
    from tuitune.core.session.outcome import Outcome
    from tuitune.core.session.profile_model import Profile
    from tuitune.core.session.settings import Key
    from tuitune.core.values import Unavailable


def register(subparsers: _common.Subparsers) -> None:
    restore = _common.command(subparsers, "restore", cmd_restore)
    host_args(restore, journal=True)
    restore.add_argument(
        "--list", action="store_true", help="list the journals and what they hold; change nothing"
    )
    restore.add_argument(
        "--force",
        action="store_true",
        help="also put back settings someone else changed after tuitune did",
    )

    apply = _common.command(subparsers, "apply", cmd_apply)
    apply.add_argument("file", type=Path, help="show --json output or a TOML profile")
    _common.iface_arg(apply, "interface (default: the one the file names)")
    host_args(apply, journal=True)
    apply.add_argument(
        "--dry-run", action="store_true", help="print what would change; change nothing"
    )
    apply.add_argument(
        "--host-wide",
        action="store_true",
        help="with --netns: also change the file's host-wide settings, which are one value for "
        "the whole machine: sysctls such as net.core.*, CPU governor, EPP, C-states, boost, "
        "SMT, module parameters (refused without it; a show --json document's are left out)",
    )
    apply.add_argument(
        "--other-users",
        action="store_true",
        help="also change the affinity of processes ([processes] of a profile) that belong to "
        "other users (refused without it; root only)",
    )


def ns_flag(root: HostRoot) -> str:
    if not root.live:
        return f" --root {root.proc.parent}"
    return f" --netns {root.netns}" if root.netns else ""


def apply_step(session: Session, changes: list[tuple[Key, str]]) -> list[Outcome] | None:
    """`changes` as one journaled step (all or none), for `apply` and `advise --apply`; None
    (after one line on stderr) when the journal could not be opened or written."""
    from tuitune.core.session import JournalError

    try:
        journal = session.open_journal()
    except JournalError as exc:
        err(f"{exc}; nothing was changed")
        return None
    if journal.discarded:
        print(journal.discarded)
    try:
        return session.run(lambda j: j.apply_all(changes))
    except JournalError as exc:  # the journal could not be written: all put back
        err(str(exc))
        return None
    finally:
        session.release()  # the originals stay recorded for `tuitune restore`


def open_session(args: argparse.Namespace, root: HostRoot) -> tuple[Session, HostAccess] | None:
    """The session `apply` and `advise --apply` change the host through (--journal-dir,
    --host-wide), or None after one line saying why the namespace cannot be entered."""
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.session import Session

    session = Session(root, journal_dir=args.journal_dir, host_writes=args.host_wide)
    try:
        return session, session.access()
    except NetnsError as exc:
        err(str(exc))
        return None


def apply_or_preview(
    session: Session,
    changes: list[tuple[Key, str]],
    current: Mapping[Key, str | Unavailable],
    dry_run: bool,
) -> list[Outcome] | int:
    """`apply` and `advise --apply` once every value is checked: `changes` (key, value) and
    what each key holds now. With `dry_run` one line per change and exit status 0; else one
    journaled step with each outcome printed, or exit status 1 when the journal failed."""
    if dry_run:
        for key, value in changes:
            print(f"would change {key.label}: {current[key]} -> {value}")
        return EXIT_OK
    outcomes = apply_step(session, changes)
    if outcomes is None:
        return EXIT_FAILED
    for out in outcomes:
        _print_outcome(out, "changed")
    return outcomes


def _print_outcome(out: Outcome, verb: str) -> None:
    from tuitune.core.session.kinds.table import handler

    kind = handler(out.key.kind)
    if out.status == "changed":
        print(f"{verb} {out.key.label}: {out.before} -> {out.after}")
        # A process's threads: told as a count (a process may have hundreds).
        members = [e for e in out.also if e.key.kind == out.key.kind] if kind.members else []
        if members:
            print(f"    also its {len(members)} {kind.members}, each one's own original recorded")
        for e in out.also:
            if e not in members:
                print(f"    also {e.key.label}: {e.before or 'absent'} -> {e.after or 'absent'}")
    elif out.status == "skipped" and kind.may_vanish and out.after is None:
        print(f"unchanged {out.describe()}")  # gone: a process that exited, its reason says
    elif out.status == "skipped":
        why = f" ({out.reason})" if out.after is None and out.reason else ""
        print(f"unchanged {out.key.label}: {out.after or 'absent'}{why}")
    else:
        print(f"NOT {verb} {out.key.label}: {out.reason}")


def _list(directory: Path, only: str | None = None) -> int:
    """The journals in `directory`; with `only` (a host id: --netns or --root named one), that
    host's alone, as `restore` with the same options would read it."""
    from tuitune.core.session import JournalError, list_journals

    try:
        found = list_journals(directory)
    except JournalError as exc:
        err(str(exc))
        return EXIT_FAILED
    if only is not None:
        found = [j for j in found if j.host == only]
        if not found:
            print(f"no change journal for {only} in {directory}")
    elif not found:
        print(f"no change journals in {directory}")
    for j in found:
        if j.problem is not None:
            print(f"{j.host}: cannot be read: {j.problem}")
            continue
        who = f"held by tuitune pid {j.holder}" if j.holder else "no tuitune running"
        print(f"{j.host}: {len(j.originals)} setting(s) to restore, {who} ({j.path})")
        for key, orig in j.originals.items():
            left = j.expected.get(key)
            print(f"    {key.label}: original {orig}, tuitune left {left or 'unknown'}")
        for why in j.unreadable:
            print(f"    unreadable record: {why}")
    return EXIT_FAILED if any(j.problem or j.unreadable for j in found) else EXIT_OK


def cmd_restore(args: argparse.Namespace) -> int:
    """put back every original value a change journal holds (after a crash, a kill or a lost
    SSH session)

    Put back every original value recorded by tuitune for this host (or --netns NAME). Prints
    each value put back and what could not be, and why.
    """
    from tuitune.core.host.netns import NetnsError
    from tuitune.core.session import JournalError, Session
    from tuitune.core.session.journal_file import host_id, journal_exists, journal_path, lock_holder

    directory: Path = args.journal_dir
    root = host_root(args)
    if root is None:
        return EXIT_USAGE
    if args.list:
        named = args.netns is not None or args.root is not None
        return _list(directory, host_id(root) if named else None)
    host = host_id(root)
    path = journal_path(directory, host)
    try:
        exists = journal_exists(directory, host)
    except JournalError as exc:
        err(f"{exc}; nothing was restored")
        return EXIT_FAILED
    if not exists:
        print(f"nothing to restore: no journal for {host} in {directory}")
        return EXIT_OK
    holder = lock_holder(directory, host)
    if holder:
        err(
            f"tuitune (pid {holder}) is still running on {host}: quit it, it asks to keep or revert"
        )
        return EXIT_FAILED
    # An original recorded from a namespace may be host-wide (the user agreed then).
    session = Session(root, journal_dir=directory, host_writes=True)
    try:
        session.access()
    except NetnsError as exc:
        err(f"{exc}; the journal is kept: {path}")
        return EXIT_FAILED
    with session:
        try:
            journal = session.open_journal()
        except JournalError as exc:
            err(str(exc))
            return EXIT_FAILED
        if journal.discarded:
            print(journal.discarded)
        unreadable = journal.unreadable()
        if not session.pending:
            session.forget()
            if not unreadable:
                print(f"nothing to restore for {host}")
                return EXIT_OK
            outcomes = []
        else:
            outcomes = session.restore(force=args.force)
    from tuitune.core.session.kinds.table import handler

    for out in outcomes:
        if handler(out.key.kind).members and out.status == "skipped" and out.after is not None:
            continue  # a thread its process's put-back already gave its original
        _print_outcome(out, "put back")
    if journal.degraded is not None:
        print(f"note: {journal.degraded}; restored without recording it")
    for why in unreadable:
        print(f"NOT put back: an unreadable journal record: {why}")
    bad = [o for o in outcomes if not o.ok]
    if unreadable and journal.set_aside is not None:
        print(f"{len(unreadable)} unreadable record(s): the journal is kept as {journal.set_aside}")
    if not bad and not unreadable:
        print(f"restored {host}: every recorded original is back")
        return EXIT_OK
    if bad:
        hint = "" if args.force else " (--force also overwrites what others changed)"
        print(f"{len(bad)} setting(s) not restored; still recorded in {path}{hint}")
    return EXIT_FAILED


def _host_wide_refused(root: HostRoot, key: Key) -> bool:
    from tuitune.core.session.kinds.table import handler

    return root.netns is not None and handler(key.kind).host_wide(key) is not None


def refusal_hint(root: HostRoot, key: Key, state: Unavailable) -> str:
    if _host_wide_refused(root, key):
        return " (--host-wide allows it)"
    from tuitune.core.session.kinds.table import handler

    option = handler(key.kind).permission_option
    if option and state.kind == "permission" and os.geteuid() == 0:
        return f" ({option} allows it)"
    return ""


def _not_here(key: Key, state: Unavailable) -> bool:
    """A queue or queue IRQ this device does not have (now): a document saved on a device
    with more queues, or a queue a channel change of the same file creates; a process that
    exited since the profile's names were looked up."""
    from tuitune.core.session.settings import QUEUE_KINDS

    return state.kind == "missing" and key.kind in (*QUEUE_KINDS, "irq_affinity", "proc_affinity")


def _new_queue_hint(key: Key, pairs: list[tuple[Key, str]]) -> str:
    from tuitune.core.session.journal_queues import makes_queues
    from tuitune.core.session.settings import QUEUE_KINDS

    if key.kind not in QUEUE_KINDS:
        return ""
    if any(makes_queues(k) and k.ifname == key.ifname for k, _ in pairs):
        return "; if the channel change creates it, apply again"
    return ""


def _beyond_device(access: HostAccess, pairs: list[tuple[Key, str]]) -> dict[Key, InvalidValue]:
    """The settings of `pairs` above what this device can take (a channel count above its
    maximum), with the one-line reason naming the maximum."""
    from tuitune.core.session import InvalidValue, WriteRefused
    from tuitune.core.session.validate import BeyondDevice

    out: dict[Key, InvalidValue] = {}
    for key, text in pairs:
        if key.kind != "channels":
            continue
        try:
            access.validate(key, text)
        except BeyondDevice as exc:
            out[key] = exc
        except (InvalidValue, WriteRefused):
            pass  # reported by the main loop
    return out


def cmd_apply(args: argparse.Namespace) -> int:
    """apply a saved state (`show --json` output or a TOML profile, docs/profile.md)

    Apply a saved state through the change journal: every value is checked before the first
    write, and if one write fails the others are put back. Queues and queue IRQs the device
    does not have (a state saved on a device with more queues) are skipped, one line each, and
    the rest applied. `tuitune restore` puts the originals back later.
    """
    from tuitune.core.docfile import shown
    from tuitune.core.names import ifname_problem
    from tuitune.core.session.profile import ProfileError, load

    root = host_root(args)
    if root is None:
        return EXIT_USAGE
    try:
        # A show document's host-wide values are left out in a namespace unless asked for.
        profile = load(args.file, netns=None if args.host_wide else root.netns)
    except ProfileError as exc:
        err(str(exc))
        return EXIT_USAGE
    if root.netns is not None and not args.host_wide:
        _say_left_out(args.file, profile)
    ifname = args.iface or profile.ifname
    problem = ifname_problem(ifname) if ifname else None
    if problem is not None:  # the file's name: checked before it is ever part of a path
        err(f"{args.file}: {problem}")
        return EXIT_USAGE
    return apply_loaded(args, root, profile, ifname, shown(args.file))


def _say_left_out(path: Path, profile: Profile) -> None:
    """A show document applied into a namespace leaves its host-wide parts out (its CPU
    power, module parameters, host-wide sysctls: the whole machine's): one line on stderr
    saying how many and how to apply them, so that nothing is left out unsaid."""
    from tuitune.core.docfile import shown
    from tuitune.core.session.profile import ProfileError, load

    try:
        whole = load(path)  # read once more, its host-wide parts kept
    except ProfileError:
        return
    left = len(whole.requests) - len(profile.requests)
    if left > 0:
        err(
            f"{shown(path)}: {left} host-wide setting(s) left out (CPU power, module "
            "parameters, host-wide sysctls: the whole machine's, not the namespace's); "
            "--host-wide applies them too"
        )


def apply_loaded(
    args: argparse.Namespace,
    root: HostRoot,
    profile: Profile,
    ifname: str | None,
    label: str,
    trial: Callable[[Session, list[tuple[Key, str]]], list[Outcome] | int] | None = None,
    skip_unsupported: bool = False,
) -> int:
    """`apply`'s checks and its one journaled step for a loaded profile (`label` names it in
    messages); `trial`, when given, applies the checked changes instead (`profile apply`: what
    can cut the link goes on trial) and returns the outcomes or an exit status. With
    `skip_unsupported` a setting this host cannot take (a knob the driver lacks, a host-wide
    sysctl from a namespace) is skipped with a line, as a missing queue is, not a problem."""
    from tuitune.core.host.netdev import interface_exists, list_interfaces
    from tuitune.core.session import InvalidValue, WriteRefused
    from tuitune.core.session.profile import resolve
    from tuitune.core.session.profile_model import one_line

    opened = open_session(args, root)
    if opened is None:
        return EXIT_USAGE
    session, access = opened
    access.procs.agree_all = args.other_users
    with session:
        if profile.needs_interface and ifname and not access.run(interface_exists, root, ifname):
            known = ", ".join(access.run(list_interfaces, root)) or "none"
            saved = profile.netns
            if saved is not None and root.live and saved != root.netns:
                # The document knows where it was saved: name the --netns it wants.
                where = f"network namespace {saved}"
                err(
                    f"no interface {ifname!r} here ({known}); {label} was saved in "
                    f"{where}: add --netns {saved}"
                )
            else:
                err(f"no interface {ifname!r}; interfaces here: {known}")
            return EXIT_USAGE
        skipped: list[str] = []  # what this device does not have: left out, the rest applied
        pairs, errors = resolve(access, profile, ifname, skipped)
        targets: dict[Key, str] = {}
        beyond = {  # counts this device cannot take (a file from a bigger one): skipped
            k: exc.message for k, exc in _beyond_device(access, pairs).items()
        }
        for key, text in pairs:
            if key in beyond:
                skipped.append(f"{beyond[key]} of this device")
                continue
            try:
                targets[key] = access.validate(key, text)
            except InvalidValue as exc:
                errors.append(exc.message)
            except WriteRefused as exc:
                if _not_here(key, exc.state):
                    kept = [(k, t) for k, t in pairs if k not in beyond]
                    skipped.append(exc.state.reason + _new_queue_hint(key, kept))
                    continue
                if skip_unsupported and exc.state.kind == "unsupported":
                    skipped.append(exc.state.reason + refusal_hint(root, key, exc.state))
                    continue
                errors.append(exc.state.reason + refusal_hint(root, key, exc.state))
        pairs = [(k, t) for k, t in pairs if k in targets]
        if errors:
            for line in errors:
                err(one_line(line))  # names from the file never break a problem in two
            err(f"nothing was changed: {len(errors)} problem(s) in {label}")
            return EXIT_FAILED
        for line in skipped:
            print(f"skipped {one_line(line)}")
        current = access.read_many([k for k, _ in pairs])
        changes = [(k, t) for k, t in pairs if current[k] != targets[k]]
        if not changes:
            which = "other " if skipped else ""
            print(f"nothing to change: every {which}setting already has its value from {label}")
            return EXIT_OK
        if trial is not None and not args.dry_run:
            outcomes = trial(session, changes)
        else:
            outcomes = apply_or_preview(session, changes, current, args.dry_run)
    if isinstance(outcomes, int):
        return outcomes
    if all(o.ok for o in outcomes):
        n = sum(o.status == "changed" for o in outcomes)
        left = f", skipped {len(skipped)} this device does not have" if skipped else ""
        print(
            f"changed {n} setting(s){left}; `tuitune restore{ns_flag(root)}` puts the "
            "originals back"
        )
        return EXIT_OK
    restore = f"`tuitune restore{ns_flag(root)}`"
    print(f"{label} was not applied (see above); {restore} puts back")
    print("anything still recorded")
    return EXIT_FAILED
