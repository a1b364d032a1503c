"""Picking a sysctl's value from the list the kernel offers (congestion control, default
qdisc), instead of typing a name the kernel may not know."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tuitune.tui.screens.box import BoxScreen

if TYPE_CHECKING:  # the choices' reader loads on the first pick (issue 38)
    from tuitune.core.session.choices import Choices


class ChoiceListScreen(BoxScreen[str | None]):
    """The options as a list (the current one marked and under the cursor): Enter applies the
    highlighted one, Esc cancels. A refusal from the kernel shows under the list."""

    SCOPED_CSS = False  # its rules name the screen themselves
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ChoiceListScreen > Vertical { width: 90%; max-width: 80; height: auto; max-height: 90%; }
    ChoiceListScreen OptionList { height: auto; max-height: 12; padding: 0; margin: 1 0 0 0; }
    ChoiceListScreen OptionList, ChoiceListScreen OptionList:focus { border: none; }
    ChoiceListScreen .hint { color: $text-muted; }
    ChoiceListScreen .error { color: $error; }
    """

    def __init__(self, label: str, choices: Choices, error: str = "") -> None:
        super().__init__()
        self.label = label
        self.choices = choices
        self.error = error

    def compose(self) -> ComposeResult:
        now = self.choices.current
        options = [
            Option(f"{name}  (now)" if name == now else name, id=name)
            for name in self.choices.options
        ]
        with Vertical() as box:
            box.border_title = f"Change {self.label}"
            yield Static(f"now: {now or '?'}", markup=False)
            yield OptionList(*options, id="choice-list")
            if self.choices.note:
                yield Static(self.choices.note, classes="hint", markup=False)
            yield Static(self.error, classes="error", id="choice-error", markup=False)
            yield Static("Enter: apply   Esc: cancel", classes="hint")

    def on_mount(self) -> None:
        options = self.query_one(OptionList)
        options.focus()
        if self.choices.current in self.choices.options:
            options.highlighted = self.choices.options.index(self.choices.current)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
