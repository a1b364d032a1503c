"""The form `T` opens: the peer (the lab's far end in the lab), the goal (throughput or
latency, as `tuitune autotune --goal`), the profile whose values are tried too (`auto`: the
one `recommend` picks; a shipped one by name; `none`, as `--profile`) and an optional sweep
spec (as `--spec`). Enter starts
autotune, or shows under the fields in one line why not (the CLI's checks and words: the
controller, controllers/autotune.py, checks); Esc cancels.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import Input, Static

from tuitune.core.autotune.goal import GOALS, WORDS
from tuitune.core.profiles import shipped
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.screens.word_choice import WordChoice

Start = Callable[[Mapping[str, str]], str | None]  # the fields -> None (started) or why not
NO_PROFILE = "none"


def profile_words() -> dict[str, str]:
    """The profile field's choices and what each means: `auto` first (as T always did)."""
    words = {
        "auto": "the one `tuitune recommend` picks",
        NO_PROFILE: "the advisor's findings (and the spec's) only",
    }
    words.update((p.name, f"{p.title} ({p.context})") for p in shipped())
    return words


class AutotuneFormScreen(BoxScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("enter", "submit", "Start", show=False),  # on the goal (an Input submits itself)
        Binding("down", "move(1)", "Next field", show=False),
        Binding("up", "move(-1)", "Previous field", show=False),
    ]
    DEFAULT_CSS = """
    AutotuneFormScreen > Vertical { width: 90%; max-width: 80; height: auto; }
    AutotuneFormScreen .row { height: 1; }
    AutotuneFormScreen .label { width: 8; }
    AutotuneFormScreen Input { width: 1fr; }
    AutotuneFormScreen .hint { color: $text-muted; }
    AutotuneFormScreen #autotune-error { color: $error; text-style: bold; height: auto; }
    """

    def __init__(self, values: Mapping[str, str], lab_peer: str | None, start: Start) -> None:
        super().__init__()
        self.values = dict(values)  # peer, goal, spec: the last ones typed
        self.lab_peer = lab_peer  # in the lab the peer is its far end, not typed
        self._start = start

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Autotune: each change measured, kept only if it beats the noise"
            with Horizontal(classes="row"):
                yield Static("peer", classes="label")
                if self.lab_peer is not None:
                    yield Static(f"{self.lab_peer} (the lab's far end)", markup=False)
                else:
                    yield Input(self.values.get("peer", ""), id="autotune-peer", compact=True)
            with Horizontal(classes="row"):
                yield Static("goal", classes="label")
                goal = self.values.get("goal", GOALS[0])
                yield WordChoice(GOALS, WORDS, goal, id="autotune-goal")
            with Horizontal(classes="row"):
                yield Static("profile", classes="label")
                words = profile_words()
                prof = self.values.get("profile", "auto")
                yield WordChoice(tuple(words), words, prof if prof in words else "auto",
                                 id="autotune-profile", one=True)  # fmt: skip
            with Horizontal(classes="row"):
                yield Static("spec", classes="label")
                yield Input(self.values.get("spec", ""), id="autotune-spec", compact=True)
            yield Static(
                "peer: runs `iperf3 -s` (`sockperf server` for latency); spec: a sweep spec "
                "whose values are tried one at a time (optional)",
                classes="hint",
                markup=False,
            )
            yield Static("", id="autotune-error", markup=False)
            yield Static(
                "Enter: start   space: the goal, the profile   Tab: next field   Esc: cancel",
                classes="hint",
            )

    def on_mount(self) -> None:
        first = "#autotune-goal" if self.lab_peer is not None else "#autotune-peer"
        self.query_one(first).focus()

    def fields(self) -> dict[str, str]:
        out = {
            "goal": self.query_one("#autotune-goal", WordChoice).value,
            "profile": self.query_one("#autotune-profile", WordChoice).value,
            "spec": self.query_one("#autotune-spec", Input).value,
        }
        if self.lab_peer is None:
            out["peer"] = self.query_one("#autotune-peer", Input).value
        else:
            out["peer"] = self.lab_peer
        return out

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_submit()

    def action_submit(self) -> None:
        why = self._start(self.fields())
        if why is not None:
            self.query_one("#autotune-error", Static).update(why)
        else:
            self.dismiss(None)

    def action_move(self, step: int) -> None:
        self.focus_next() if step > 0 else self.focus_previous()

    def action_cancel(self) -> None:
        self.dismiss(None)
