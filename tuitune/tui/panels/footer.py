"""The key line at the bottom: one widget that draws the screen's shown bindings as Textual's
Footer lays them out (issue 38).

Textual's Footer is a container of one widget per key: whenever the keys it shows change
(moving between panels whose keys differ: 1-5, Tab, Esc) it removed and mounted them all
again, each styled and laid out, and the screen was laid out anew: 60-80 ms of a 100-170 ms
key on the 1152-CPU host. This one is a single line of text, made again only when what it
shows changes, and repainted in place. Its look is the Footer's (the same theme variables,
padding, the greyed-out disabled keys); a click on a key presses it.
"""

from __future__ import annotations

from typing import Any, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget

Shown = tuple[tuple[Binding, bool, str], ...]


def shown_bindings(screen: Screen[Any]) -> Shown:
    """What the footer makes its keys of: each shown binding, enabled or not, its tooltip;
    one per action (the first), as Textual's Footer shows them."""
    seen: set[str] = set()
    out: list[tuple[Binding, bool, str]] = []
    for _, binding, enabled, tooltip in screen.active_bindings.values():
        if binding.show and binding.action not in seen:
            seen.add(binding.action)
            out.append((binding, enabled, tooltip))
    return tuple(out)


class KeysFooter(Widget):
    """The screen's keys in one line: `key Description`, the focused panel's included."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES: ClassVar[set[str]] = {"keys-footer--key", "keys-footer--description"}
    DEFAULT_CSS = """
    KeysFooter {
        dock: bottom;
        height: 1;
        text-wrap: nowrap;
        color: $footer-foreground;
        background: $footer-background;
        .keys-footer--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .keys-footer--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
    }
    """

    compact = reactive(False)
    """Less room around each key (below 120 columns), as Footer.compact."""

    rebuilds = 0  # times its keys were made again (tests count them)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._shown: Shown | None = None
        # (x where it starts, x where it ends, key) of each drawn key: what a click presses
        self._spans: list[tuple[int, int, str, bool]] = []
        self._text: Text | None = None

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        # As Footer: only while the app has the focus and for its own screen.
        if not (screen.app.app_focus and self.is_attached and screen is self.screen):
            return
        shown = shown_bindings(screen)
        if shown == self._shown:
            return
        self._shown = shown
        self.rebuilds += 1
        self._text = None
        self.refresh()

    def watch_compact(self) -> None:
        self._text = None
        self.refresh()

    def shown_keys(self) -> list[tuple[str, str, bool]]:
        """(action, what the line shows for it, enabled) of each key, in order."""
        return [
            (b.action, f"{self.app.get_key_display(b)} {b.description}".strip(), on)
            for b, on, _ in self._shown or ()
        ]

    def render(self) -> Text:
        if self._text is None:
            self._text = self._make()
        return self._text

    def _make(self) -> Text:
        key_style = self.get_component_rich_style("keys-footer--key")
        desc_style = self.get_component_rich_style("keys-footer--description")
        compact = self.compact
        text = Text(no_wrap=True, end="")
        spans: list[tuple[int, int, str, bool]] = []
        for binding, enabled, _ in self._shown or ():
            start = len(text)
            display = self.app.get_key_display(binding)
            dim = Style(dim=True) if not enabled else Style()
            # Footer's padding: the key "0 1" (compact 0), the description "0 1 0 0"
            # (compact "0 0 0 1"), and compact keys one column apart.
            key = display if compact else f" {display} "
            desc = binding.description
            text.append(key, key_style + dim)
            if desc:
                text.append(f" {desc}" if compact else f"{desc} ", desc_style + dim)
            spans.append((start, len(text), binding.key, enabled))
            if compact:
                text.append(" ")
        self._spans = spans
        return text

    def on_click(self, event: events.Click) -> None:
        for start, end, key, enabled in self._spans:
            if start <= event.x < end:
                if enabled:
                    self.app.simulate_key(key.split(",")[0].strip())
                else:
                    self.app.bell()
                return
