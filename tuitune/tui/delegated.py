"""Keys whose whole work is one call on one of the App's controllers: e (edit), u (undo),
B (bench)... Textual finds a key's action as a method `action_<name>` of the App; instead of a
dozen one-line methods that each forward to a controller, the table says which call each key
makes, and `add_delegated_actions` gives the App those methods.

The calls are typed (a `Controllers` Protocol, checked by mypy against the controllers'
classes), so a renamed method fails the type check and a search for `.editor.undo(` finds
its key.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from textual.app import App

if TYPE_CHECKING:
    from tuitune.tui.controllers.advisor import Advisor
    from tuitune.tui.controllers.autotune import AutotuneController
    from tuitune.tui.controllers.bench import BenchController
    from tuitune.tui.controllers.edit import Editor
    from tuitune.tui.controllers.export import Exporter
    from tuitune.tui.controllers.sweep import SweepController


class Controllers(Protocol):
    """The App's controllers that the delegated keys call (TuituneApp has them)."""

    editor: Editor
    app_bench: BenchController
    app_sweep: SweepController
    app_autotune: AutotuneController
    advisor: Advisor
    exporter: Exporter


Action = Callable[[Controllers], None]

# Keys whose whole work is one call on a controller: action name -> the call.
DELEGATED: dict[str, Action] = {
    "edit": lambda a: a.editor.edit(),
    "toggle_setting": lambda a: a.editor.toggle(),
    "toggle_group": lambda a: a.editor.toggle_group(),
    "undo": lambda a: a.editor.undo(),
    "revert_all": lambda a: a.editor.revert_all(),
    "spread": lambda a: a.editor.spread(),
    "confirm_trial": lambda a: a.editor.confirm_trial(),
    "bench": lambda a: a.app_bench.open_form(),
    "sweep": lambda a: a.app_sweep.open(),
    "autotune": lambda a: a.app_autotune.open(),
    "bench_stop": lambda a: a.app_bench.stop_or_close(),
    "advise": lambda a: a.advisor.open(),
    "export": lambda a: a.exporter.open(),
}


def _delegate(name: str, call: Action) -> Callable[[Controllers], None]:
    def action(self: Controllers) -> None:
        call(self)

    action.__name__ = action.__qualname__ = f"action_{name}"
    action.__doc__ = f"The {name} key's work: one call on a controller (tui/delegated.py)."
    return action


def add_delegated_actions(cls: type[App[int]]) -> None:
    for name, call in DELEGATED.items():
        setattr(cls, f"action_{name}", _delegate(name, call))
