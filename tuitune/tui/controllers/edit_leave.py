"""The screen's questions about what outlives it: on quit, keep or revert what this session
changed (keeping confirms a trial change still waiting, or its watchdog would put it back
after tuitune is gone); at start, restore what an earlier tuitune left recorded, named."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from tuitune.core.session.journal_dir import DEFAULT_DIR
from tuitune.core.session.journal_file import JournalError
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import Key
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

if TYPE_CHECKING:  # the journal loads with the first change (issue 38)
    from tuitune.core.session import Journal, Session

SHOWN = 6  # settings named in a question; the rest are counted


class Steps(Protocol):
    """What these questions use of the screen's Editor (controllers/edit.py, which asks them):
    the session and the shell, its trial, and its ways to run a journal step and report it."""

    @property
    def shell(self) -> Shell: ...
    @property
    def session(self) -> Session: ...
    @property
    def pending(self) -> bool: ...
    @property
    def trial_label(self) -> str: ...
    @property
    def trial_deadline(self) -> float | None: ...

    def run_journal(self, work: Callable[[Journal], Any], done: Callable[[Any], None]) -> None: ...
    def report(self, outs: list[Outcome], prefix: str = ...) -> None: ...
    def close(self, forget: bool) -> None: ...
    def journal_op(
        self,
        op: Callable[[Journal], list[Outcome]],
        empty: str,
        opened: bool = ...,
        prefix: str = ...,
    ) -> None: ...


def named(values: Mapping[Key, str | None]) -> str:
    """Each setting with the value it had, the first few only: eth0 mtu (was 1500), ..."""
    items = [f"{k.label} (was {v if v is not None else 'absent'})" for k, v in values.items()]
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more


def restore_command(session: Session) -> str:
    """The command that puts this session's originals back, with the options it needs."""
    cmd = "tuitune restore"
    if session.root.netns:
        cmd += f" --netns {session.root.netns}"
    if session.journal_dir != DEFAULT_DIR:
        cmd += f" --journal-dir {session.journal_dir}"
    return cmd


def farewell_kept(session: Session) -> list[str]:
    """What the shell says after `k`: the screen is gone, so the terminal keeps the record of
    what was left changed and how to put it back."""
    originals = session.originals()
    return [
        f"tuitune: kept {session.change_count()} change(s): {named(originals)}.",
        f"tuitune: to put the originals back: {restore_command(session)} "
        "(they stay recorded until the next boot).",
    ]


def farewell_reverted(n: int) -> list[str]:
    return [f"tuitune: reverted {n} change(s): every setting is back to what tuitune found."]


def ask_quit(editor: Steps, exit_app: Callable[[], None]) -> None:
    """Ask whether to keep or revert what this session changed, then leave."""
    if not editor.pending:
        editor.close(forget=True)
        exit_app()
        return
    n = editor.session.change_count()
    trial = editor.trial_label if editor.trial_deadline is not None else None

    def keep() -> None:
        editor.shell.farewell(farewell_kept(editor.session))
        editor.close(forget=False)  # the originals stay on disk for `tuitune restore`
        exit_app()

    def answer(choice: str | None) -> None:
        if choice == "k" and trial is not None:
            # Kept means kept: confirmed, so its watchdog does not put it back later.
            editor.run_journal(lambda j: j.confirm(), lambda _: keep())
        elif choice == "k":
            keep()
        elif choice == "r":

            def done(outs: list[Outcome]) -> None:
                failed = [o for o in outs if not o.ok]
                if failed:
                    editor.report(failed)
                    return
                editor.shell.farewell(farewell_reverted(n))
                editor.close(forget=True)
                exit_app()

            editor.run_journal(lambda j: j.revert_all(), done)

    text = (
        f"{n} setting(s) differ from what tuitune found. Keep them (`tuitune restore` can "
        "still put the originals back until the next boot) or revert them now?"
    )
    if trial is not None:
        text += (
            f" The trial change of {trial} is still waiting: keeping confirms it (otherwise "
            "its watchdog would put it back once the countdown ends, after tuitune is gone)."
        )
    editor.shell.push_screen(
        ChoiceScreen(
            "Leave tuitune", text, [("k", "keep the changes"), ("r", "revert everything")]
        ),
        answer,
    )


def ask_revert_all(editor: Steps) -> None:
    """`R`: put back everything this session changed, after asking as `q` does, with the
    count; one key must not undo a whole session's work unasked."""
    if not editor.pending:
        editor.shell.notify_line("nothing to revert")
        return
    n = editor.session.change_count()
    # A moved process's threads are recorded with it and counted with it: name it once.
    shown = {
        k: v
        for k, v in editor.session.originals().items()
        if not (k.kind == "proc_affinity" and "/" in k.name)
    }

    def answer(choice: str | None) -> None:
        if choice == "r":
            editor.journal_op(lambda j: j.revert_all(), "nothing to revert")

    editor.shell.push_screen(
        ChoiceScreen(
            "Revert every change",
            f"Revert all {n} change(s) of this session to what tuitune found: {named(shown)}?",
            [("r", f"revert all {n}"), ("k", "keep them")],
        ),
        answer,
    )


def offer_restore(editor: Steps) -> None:
    """At start: an earlier tuitune left originals recorded (a crash, a lost SSH session,
    kept changes). Offer to put them back, naming them; never do it unasked."""
    if editor.session.read_only:
        return
    news, left = editor.session.watchdog_news(), editor.session.leftovers()
    if news is not None:
        editor.shell.notify_line(news, True)
        if not left:  # said once: a journal holding nothing more is closed
            editor.shell.in_thread(lambda: _tidy(editor.session), lambda _: None, group="edit")
    if not left:
        return

    def answer(choice: str | None) -> None:
        if choice == "r":
            op: Callable[[Journal], list[Outcome]] = lambda j: j.revert_all()  # noqa: E731
            editor.journal_op(op, "nothing to restore", opened=True, prefix="put back")

    editor.shell.push_screen(
        ChoiceScreen(
            "Settings from an earlier run",
            f"An earlier tuitune on this host recorded {len(left)} original value(s) it did "
            f"not put back (it was stopped, lost its terminal, or the changes were kept): "
            f"{named(left)}.",
            [("r", "restore the originals now"), ("k", "keep things as they are")],
        ),
        answer,
    )


def _tidy(session: Session) -> None:
    """Delete the journal of an earlier run that holds nothing to restore any more."""
    try:
        session.open_journal()
    except JournalError:
        return  # another tuitune took it meanwhile, or it cannot be opened: left as it is
    session.forget()
