"""Leaving a `tuitune lab` session: offer to remove the lab before anything else.

The lab question comes first: when the lab goes, the settings changed inside it go with it,
so asking whether to revert them would be a question about nothing. Keeping the lab goes on
to the usual quit flow (keep or revert pending changes).
"""

from __future__ import annotations

from collections.abc import Callable

from tuitune.core.lab import Lab, LabError, down_command, remove
from tuitune.core.session.journal_file import JournalError
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

QUESTION = "Remove the lab (namespaces, veth, iperf3 server)?"


def ask_remove_lab(
    shell: Shell,
    lab: Lab,
    then: Callable[[], None],
    leave: Callable[[], None],
    down: Callable[[Lab], list[str]] | None = None,
) -> None:
    """Ask keep/remove; `then()` on keep, remove then `leave()` on remove, nothing on Esc."""
    take_down = down or remove
    session = shell.session

    def answer(choice: str | None) -> None:
        if choice == "k":
            then()
        elif choice == "r":
            shell.in_thread(job, done, group="lab")

    def job() -> str | None:
        try:
            # Its namespace is about to go: nothing will be left to restore.
            session.forget()
            take_down(lab)
        except (LabError, JournalError, OSError) as exc:
            return f"could not remove the lab: {exc}"
        return None

    def done(problem: str | None) -> None:
        if problem is not None:
            shell.notify_line(problem, True)
            return
        leave()

    shell.push_screen(
        ChoiceScreen(
            "Leave tuitune",
            f"{QUESTION}\nLab {lab.name}: netns {lab.netns} and {lab.peer_netns}, "
            f"iperf3 server on {lab.peer_addr}. Kept, `tuitune lab` reuses it and "
            f"`{down_command(lab.state_dir)}` removes it later.",
            [("k", "keep the lab"), ("r", "remove it")],
        ),
        answer,
    )
