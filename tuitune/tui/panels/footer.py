"""Textual's Footer, rebuilt only when the bindings it shows change (issue 38 goal 2).

Textual's Footer recomposes (removes and mounts again a widget per key, each styled and laid
out) whenever the screen's bindings are updated, which is at every focus change: moving
between panels (1-5, Tab, Esc) paid for some 30 new widgets though the keys shown were the
same ones. This one compares what it would show with what it shows and rebuilds only when
they differ.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer

Shown = tuple[tuple[Binding, bool, str], ...]


def shown_bindings(screen: Screen[Any]) -> Shown:
    """What Footer.compose makes its keys of: each shown binding, enabled or not, its tooltip."""
    return tuple(
        (binding, enabled, tooltip)
        for _, binding, enabled, tooltip in screen.active_bindings.values()
        if binding.show
    )


class KeysFooter(Footer):
    """A Footer that keeps its keys while the screen's shown bindings stay the same."""

    rebuilds = 0  # times it was recomposed (tests count them)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: Shown | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # Only when Footer would rebuild now (focused app, this screen) is what it shows known.
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            shown = shown_bindings(screen)
            if shown == self._shown and self._bindings_ready:
                return
            self._shown = shown
            self.rebuilds += 1
        super().bindings_changed(screen)
