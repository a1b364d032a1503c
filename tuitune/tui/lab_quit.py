"""Leaving a `tuitune lab` session: offer to remove the lab before anything else.

The lab question comes first: when the lab goes, the settings changed inside it go with it,
so asking whether to revert them would be a question about nothing. Keeping the lab goes on
to the usual quit flow (keep or revert pending changes).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from tuitune.core.lab import Lab, LabError, remove
from tuitune.core.session.journal_file import JournalError
from tuitune.tui.screens import ChoiceScreen

if TYPE_CHECKING:
    from tuitune.tui.app import TuituneApp

QUESTION = "Remove the lab (namespaces, veth, iperf3 server)?"


def ask_remove_lab(
    app: TuituneApp,
    lab: Lab,
    then: Callable[[], None],
    down: Callable[[Lab], list[str]] | None = None,
) -> None:
    """Ask keep/remove; `then()` on keep, remove then exit on remove, nothing on Esc."""
    take_down = down or remove

    def answer(choice: str | None) -> None:
        if choice == "k":
            then()
        elif choice == "r":
            app.run_worker(job, thread=True, exit_on_error=False, group="lab")

    def job() -> None:
        try:
            # Its namespace is about to go: nothing will be left to restore.
            app.session.forget()
            take_down(lab)
        except (LabError, JournalError, OSError) as exc:
            app.call_from_thread(app.notify_line, f"could not remove the lab: {exc}", True)
            return
        app.call_from_thread(app.exit)

    app.push_screen(
        ChoiceScreen(
            "Leave tuitune",
            f"{QUESTION}\nLab {lab.name}: netns {lab.netns} and {lab.peer_netns}, "
            f"iperf3 server on {lab.peer_addr}. Kept, `tuitune lab` reuses it and "
            "`tuitune lab --down` removes it later.",
            [("k", "keep the lab"), ("r", "remove it")],
        ),
        answer,
    )
