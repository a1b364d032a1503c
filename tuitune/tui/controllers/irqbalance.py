"""Before the first IRQ move (drag, keys, spread): irqbalance, if it runs, would move the IRQ
back within seconds. Ask once: stop it for this session (a journaled change like any other:
undo, revert and the quit prompt start it again, as it ran), move anyway, or cancel."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

if TYPE_CHECKING:  # the journal loads with the first change (issue 38)
    from tuitune.core.session import Journal

IRQBALANCE = Key.service("irqbalance")
QUESTION = (
    "irqbalance is running and will move IRQs back: stop it for this session (tuitune records "
    "how it ran and starts it again on undo, revert or quit with revert), move anyway (it may "
    "undo the move), or cancel."
)
CHOICES = [
    ("s", "stop it for this session (restored on revert/quit)"),
    ("m", "move anyway"),
    ("c", "cancel"),
]


class Changes(Protocol):
    """What the gate needs of the editor (app_edit.Editor): read, change, report."""

    def read_key(self, key: Key, done: Callable[[str | Unavailable], None]) -> None: ...
    def run_journal(self, work: Callable[[Journal], Any], done: Callable[[Any], None]) -> None: ...
    def report(self, outs: list[Outcome], prefix: str = "") -> None: ...


class IrqbalanceGate:
    """Asks before the first IRQ move while irqbalance runs; silent once answered."""

    def __init__(self, shell: Shell, editor: Changes) -> None:
        self.shell = shell
        self.editor = editor
        self.settled = False  # answered "stop" or "move anyway": never asked again
        self.stopped = False  # tuitune stopped it (and holds how it ran)

    def before_move(self, then: Callable[[], None]) -> None:
        """Run `then` (the move) now, or after the question when irqbalance runs."""
        if self.settled:
            then()
            return
        self.editor.read_key(IRQBALANCE, lambda value: self._decide(value, then))

    def _decide(self, value: str | Unavailable, then: Callable[[], None]) -> None:
        from tuitune.core.session.service import STOPPED  # with the first IRQ move

        if isinstance(value, Unavailable) or value == STOPPED:
            then()  # not running (or no /proc to tell): nothing to warn about
            return
        app = self.shell

        def answer(choice: str | None) -> None:
            if choice == "m":
                self.settled = True
                then()
            elif choice == "s":
                self._stop(then)
            else:
                app.notify_line("cancelled: no IRQ moved")

        app.push_screen(ChoiceScreen("irqbalance is running", QUESTION, CHOICES), answer)

    def _stop(self, then: Callable[[], None]) -> None:
        def done(out: Outcome) -> None:
            self.editor.report([out])
            if out.ok:
                self.settled = self.stopped = True
                then()
            else:
                self.shell.notify_line(f"no IRQ moved: {out.describe()}", True)

        self.editor.run_journal(lambda j: j.apply(IRQBALANCE, "stopped"), done)
