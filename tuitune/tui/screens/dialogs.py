"""Modal screens: the key list (? / F1), help on a row (Enter / i), the interface picker."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.events import Key
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from tuitune.core.host.ifsummary import InterfaceSummary
from tuitune.core.text import printable
from tuitune.tui.screens.box import BoxScreen

CLOSE: list[BindingType] = [
    Binding("escape,q,question_mark,f1", "dismiss", "Close"),
]


def _key_name(keys: str) -> str:
    names = {
        "question_mark": "?",
        "slash": "/",
        "escape": "Esc",
        "pageup": "PgUp",
        "pagedown": "PgDn",
        "shift+tab": "Shift+Tab",
        "tab": "Tab",
        "enter": "Enter",
        "comma": ",",
        "full_stop": ".",
        "left_square_bracket": "[",
        "right_square_bracket": "]",
        "less_than_sign": "<",
        "greater_than_sign": ">",
    }
    return " ".join(names.get(k, k) for k in keys.split(","))


def keys_text(groups: Sequence[tuple[str, Sequence[BindingType]]]) -> Text:
    """Every binding by the panel it works in, from the BINDINGS the widgets really have."""
    t = Text()
    for title, bindings in groups:
        t.append(f"{title}\n", style="bold underline")
        for b in bindings:
            if not isinstance(b, Binding) or not b.description:
                continue
            t.append(f"  {_key_name(b.key):<22}", style="bold")
            # Replay's keys sit with the live screen's: say they work in replay only.
            replay = "(replay) " if b.action.startswith("replay_") else ""
            t.append(f"{replay}{b.description}\n")
        t.append("\n")
    return t


class TextScreen(BoxScreen[None]):
    """A scrollable text box over the live screen; Esc, q or ? closes it."""

    BINDINGS: ClassVar[list[BindingType]] = CLOSE
    DEFAULT_CSS = """
    TextScreen > Vertical { width: 90%; max-width: 100; height: 90%; }
    TextScreen .hint { color: $text-muted; height: 1; }
    """

    def __init__(self, title: str, body: Text | str) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            with VerticalScroll():
                yield Static(self.body, markup=False, id="text-body")
            yield Static("Esc / q: close   arrows, PgUp/PgDn: scroll", classes="hint")

    def on_mount(self) -> None:
        self.query_one(VerticalScroll).focus()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)


class PickerScreen(BoxScreen[str | None]):
    """Pick the interface to watch: the default-route one first, with driver, speed, state."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss_none", "Cancel"),
        Binding("q", "app.quit", "Quit"),
    ]
    DEFAULT_CSS = """
    PickerScreen > Vertical { width: 90%; max-width: 90; height: auto; max-height: 90%; }
    PickerScreen OptionList { height: auto; max-height: 20; padding: 0; }
    PickerScreen OptionList, PickerScreen OptionList:focus { border: none; }
    PickerScreen .hint { color: $text-muted; }
    """

    def __init__(self, interfaces: Sequence[InterfaceSummary]) -> None:
        super().__init__()
        self.interfaces = list(interfaces)

    def compose(self) -> ComposeResult:
        options = []
        for s in self.interfaces:
            speed = (
                "-"
                if s.speed_mbps is None
                else (
                    f"{s.speed_mbps // 1000} Gb/s"
                    if s.speed_mbps >= 1000
                    else f"{s.speed_mbps} Mb/s"
                )
            )
            state = s.operstate + ("" if s.carrier is not False else ", no carrier")
            label = Text()
            label.append(f"{printable(s.name, 40):<16}", style="bold")
            label.append(f"{printable(s.driver, 40):<14}{speed:>10}  {printable(state):<18}")
            if s.default_route:
                label.append("default route", style="italic")
            options.append(Option(label, id=s.name))
        with Vertical() as box:
            box.border_title = "Which interface?"
            yield Static(
                f"{'interface':<16}{'driver':<14}{'speed':>10}  {'state':<18}", classes="hint"
            )
            yield OptionList(*options, id="picker-list")
            yield Static(
                "Enter: watch it   Esc: no interface (CPUs only)   q: quit", classes="hint"
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class EditorScreen(BoxScreen[str | None]):
    """Type a new value: Enter applies it (checked first: a bad value writes nothing and the
    reason shows here), Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    EditorScreen > Vertical { width: 90%; max-width: 80; height: auto; }
    EditorScreen .hint { color: $text-muted; }
    EditorScreen .error { color: $error; }
    EditorScreen #editor-preview { max-height: 2; overflow: hidden; }
    EditorScreen Input { margin: 1 0 0 0; }
    """

    def __init__(
        self,
        label: str,
        current: str,
        hint: str,
        error: str = "",
        typed: str | None = None,
        preview: Callable[[str], str] | None = None,
        title: str | None = None,
        enter: str = "apply",
    ) -> None:
        super().__init__()
        self.enter = enter  # what Enter does, in the footer: "apply" unless it starts something
        # A title of its own (asking for something new, not changing a value): no "now:" line.
        self.title_text = title
        self.preview = preview  # e.g. the hex mask of a typed CPU list, updated as one types
        self.label = label
        self.current = current
        self.typed = current if typed is None else typed  # after an error: what was typed
        self.hint = hint
        self.error = error

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text or f"Change {self.label}"
            if self.title_text is None:
                yield Static(f"now: {self.current}", markup=False)
            yield Input(value=self.typed, id="editor-input")
            yield Static(self.hint, classes="hint", markup=False)
            if self.preview is not None:
                yield Static(self.preview(self.typed), id="editor-preview", markup=False)
            yield Static(self.error, classes="error", id="editor-error", markup=False)
            yield Static(f"Enter: {self.enter}   Esc: cancel", classes="hint", markup=False)

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if self.preview is not None:
            self.query_one("#editor-preview", Static).update(self.preview(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(BoxScreen[str | None]):
    """A question with one-key answers, e.g. keep or revert the changes on quit."""

    DEFAULT_CSS = """
    ChoiceScreen > Vertical {
        width: 90%; max-width: 80; height: auto;
        border: $tt-border $warning;
    }
    ChoiceScreen .hint { color: $text-muted; }
    """

    def __init__(self, title: str, text: str, choices: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.text = text
        self.choices = list(choices)  # (key, what it does); Esc always cancels

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(self.text, markup=False)
            line = "   ".join(f"{k}: {what}" for k, what in self.choices)
            yield Static(f"{line}   Esc: cancel", classes="hint", markup=False)

    def on_key(self, event: Key) -> None:
        event.stop()
        if event.key == "escape":
            self.dismiss(None)
            return
        for k, _ in self.choices:
            if event.key == k:
                self.dismiss(k)
                return
