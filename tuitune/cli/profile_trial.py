"""`tuitune profile apply`: what can cut the link goes on trial, as in the live screen.

The safe part of a profile is one journaled step, as `tuitune apply` makes it. Each change
that can cut the user off (`session.risk.is_risky`: a link reset, or anything on the interface
that carries the SSH session) is then applied alone with `Journal.apply_trial`: it stays only
when the user types y within the trial time; no answer, any other answer, Ctrl+C or a lost
terminal put it back (the last by the journal's detached watchdog). Without a terminal to
answer on, such a change is refused before anything is written.
"""

from __future__ import annotations

import select
import sys
from typing import TYPE_CHECKING, TextIO

from tuitune.cli._common import EXIT_FAILED, err

if TYPE_CHECKING:
    from collections.abc import Callable

    from tuitune.core.host.root import HostRoot
    from tuitune.core.session import Session
    from tuitune.core.session.outcome import Outcome
    from tuitune.core.session.settings import Key

TRIAL_SECONDS = 30.0


def risky_keys(root: HostRoot, keys: list[Key]) -> list[Key]:
    """The keys that go on trial: none in a namespace or a recorded tree (no SSH session runs
    through them), else `is_risky` with the SSH session's interface."""
    from tuitune.core.session import is_risky, ssh_interface

    if not root.live or root.netns is not None:
        return []
    ssh = ssh_interface(root)
    return [k for k in keys if is_risky(k, ssh)]


def interactive(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (OSError, ValueError):
        return False


def make_trial(
    root: HostRoot, seconds: float = TRIAL_SECONDS, stdin: TextIO | None = None
) -> Callable[[Session, list[tuple[Key, str]]], list[Outcome] | int]:
    """The `trial` callable of `cli.session.apply_loaded` for this host."""

    def trial(session: Session, changes: list[tuple[Key, str]]) -> list[Outcome] | int:
        from tuitune.cli.session import apply_or_preview

        source = stdin if stdin is not None else sys.stdin
        risky = set(risky_keys(root, [k for k, _ in changes]))
        if risky and not interactive(source):
            first = next(k for k, _ in changes if k in risky)
            err(
                f"{first.label} can cut the link: it is applied on trial, which needs a terminal "
                "to confirm on (or apply it from the live screen); nothing was changed"
            )
            return EXIT_FAILED
        safe = [(k, t) for k, t in changes if k not in risky]
        outcomes: list[Outcome] = []
        if safe:
            current = session.access().read_many([k for k, _ in safe])
            done = apply_or_preview(session, safe, current, dry_run=False)
            if isinstance(done, int):
                return done
            outcomes += done
            if not all(o.ok for o in done):
                return outcomes  # the step was put back: no trial on top of a failed step
        for key, text in changes:
            if key in risky:
                outcomes.append(_one_trial(session, key, text, seconds, source))
        return outcomes

    return trial


def _one_trial(session: Session, key: Key, text: str, seconds: float, source: TextIO) -> Outcome:
    from dataclasses import replace

    out, started = session.run(lambda j: j.apply_trial(key, text, seconds))
    if started is None:  # not changed (refused, failed, or already so): nothing to confirm
        print(f"NOT changed {key.label}: {out.reason}" if not out.ok else f"unchanged {key.label}")
        return out
    print(f"changed {key.label}: {out.before} -> {out.after} ON TRIAL")
    print(f"  keep it? type y and Enter within {seconds:.0f} s; anything else puts it back")
    answer = ""
    try:
        ready, _, _ = select.select([source], [], [], seconds)
        if ready:
            answer = source.readline().strip().lower()
    except KeyboardInterrupt:
        answer = ""  # Ctrl+C at the question: a no
    if answer == "y" and session.run(lambda j: j.confirm()):
        print(f"  kept {key.label} = {out.after}")
        return out
    session.run(lambda j: j.revert_trial())
    print(f"  put back {key.label}: {out.before}")
    return replace(out, status="failed", reason="not confirmed: put back")
