"""Leaving the screen: q (a running sweep refuses, the lab asks whether it goes, then the
journal asks what to keep) and the lines the command prints once the screen has closed. A
base class between the Host view and the App (tui/app.py), as tui/hostview.py is."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, cast

from tuitune.tui.hostview import HostView
from tuitune.tui.shell import Shell

if TYPE_CHECKING:
    from tuitune.core.lab import Lab
    from tuitune.tui.controllers.autotune import AutotuneController
    from tuitune.tui.controllers.edit import Editor
    from tuitune.tui.controllers.sweep import SweepController


class Leaving(HostView):
    lab: Lab | None  # set by the App: `tuitune lab`
    lab_down: Callable[[Lab], list[str]] | None
    editor: Editor
    farewell_lines: list[str]  # what quitting kept or reverted, for the shell

    if TYPE_CHECKING:  # the App builds them on their first use (tui/app.py)

        @property
        def app_sweep(self) -> SweepController: ...

        @property
        def app_autotune(self) -> AutotuneController: ...

    def farewell(self, lines: Sequence[str]) -> None:
        self.farewell_lines = list(lines)  # printed by the command after the screen closes

    async def action_quit(self) -> None:
        if self.app_autotune.running:  # its thread puts back what it changed, then quit
            self.app_autotune.refuse_quit()
            return
        if self.app_sweep.running:  # its thread would go on changing the host after the revert
            self.app_sweep.refuse_quit()
            return
        if self.lab is not None:  # first ask whether the lab goes (tui/lab_quit.py)
            from tuitune.tui.controllers.lab_quit import ask_remove_lab

            quit_ = lambda: self.editor.quit(self.exit)  # noqa: E731
            ask_remove_lab(cast(Shell, self), self.lab, quit_, self.exit, self.lab_down)
            return
        self.editor.quit(self.exit)
