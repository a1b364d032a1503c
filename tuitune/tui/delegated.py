"""Keys whose whole work is one call on one of the App's controllers: e (edit), u (undo),
B (bench)... Textual finds a key's action as a method `action_<name>` of the App; instead of a
dozen one-line methods that each forward to a controller, the table says which controller and
method, and `add_delegated_actions` gives the App those methods.
"""

from __future__ import annotations

from collections.abc import Callable

from textual.app import App

# Keys whose whole work is one call on a controller: action name -> (the App's
# attribute holding the controller, its method).
DELEGATED = {
    "edit": ("editor", "edit"),
    "toggle_setting": ("editor", "toggle"),
    "toggle_group": ("editor", "toggle_group"),
    "undo": ("editor", "undo"),
    "revert_all": ("editor", "revert_all"),
    "spread": ("editor", "spread"),
    "confirm_trial": ("editor", "confirm_trial"),
    "bench": ("app_bench", "open_form"),
    "sweep": ("app_sweep", "open"),
    "autotune": ("app_autotune", "open"),
    "bench_stop": ("app_bench", "stop_or_close"),
    "advise": ("advisor", "open"),
    "export": ("exporter", "open"),
}


def _delegate(name: str, controller: str, method: str) -> Callable[[App[int]], None]:
    def action(self: App[int]) -> None:
        getattr(getattr(self, controller), method)()

    action.__name__ = action.__qualname__ = f"action_{name}"
    action.__doc__ = f"The key's work is {controller}.{method}()."
    return action


def add_delegated_actions(cls: type[App[int]]) -> None:
    for name, (controller, method) in DELEGATED.items():
        setattr(cls, f"action_{name}", _delegate(name, controller, method))
