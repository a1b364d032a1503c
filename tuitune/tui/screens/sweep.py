"""The sweep screen (W): a form to set a sweep up (a spec file, or up to three dimensions typed
as `SETTING = V1 | V2`, the design, repeats and seconds), the progress while it runs, and the
pivot drawn as bars with the noise as whiskers, then as the table `tuitune sweep` prints.

The screen only draws and reads its fields: the controller (controllers/sweep.py) checks the
request, runs the sweep and hands back lines and tables.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Input, Static

from tuitune.core.sweep.chart import bars
from tuitune.core.sweep.pivot import Pivot, to_text
from tuitune.tui.look.look import Look
from tuitune.tui.screens.bars import NOTE, bars_text

FIELDS = (
    ("spec", "spec file"),
    ("dim1", "dimension 1"),
    ("dim2", "dimension 2"),
    ("dim3", "dimension 3"),
    ("design", "design"),
    ("repeats", "repeats"),
    ("seconds", "seconds"),
    ("peer", "peer"),
)
HINTS = {
    "spec": "a sweep spec (docs/sweeps/*.toml); empty: the dimensions below",
    "dim1": "SETTING = V1 | V2: tso = on | off, mtu = 1500 | 9000, rps = none | 1",
    "dim2": "pin = none | 0,1 (iperf3 -A), irqs = spread local | cpu 0, streams = 1 | 4",
    "dim3": "xps, rings rx, coalesce rx-usecs, txqueuelen, net.ipv4.tcp_sack ...",
    "design": "grid (every combination) or one-at-a-time (each value against the first)",
    "repeats": "runs a cell: the median, its spread and a 95 % interval",
    "seconds": "seconds a run (iperf3 -t)",
    "peer": "the iperf3 server (the lab's peer by default)",
}


def _label(label: str, focused: bool) -> str:
    return f"{'>' if focused else ' '} {label}"


@dataclass(frozen=True)
class SweepDefaults:
    values: dict[str, str]
    note: str = ""


Start = Callable[[dict[str, str]], str | None]  # the fields -> None (started) or why not


class SweepScreen(Screen[None]):
    """Enter in any field starts the sweep (or shows why not under the fields); X stops it
    (every original goes back); Esc closes once it is not running."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("X", "stop", "Stop the sweep"),
        Binding("e", "edit", "Edit the sweep's fields", show=False),
        Binding("down", "move(1)", "Next field", show=False),
        Binding("up", "move(-1)", "Previous field", show=False),
    ]
    DEFAULT_CSS = """
    SweepScreen { layout: vertical; }
    SweepScreen #sweep-form { height: auto; border: $tt-border $accent; padding: 0 1; }
    SweepScreen .row { height: 1; }
    SweepScreen .label { width: 14; }
    SweepScreen .label.focused { text-style: bold; }
    SweepScreen Input { width: 1fr; }
    SweepScreen #sweep-hint { color: $text-muted; height: 1; }
    SweepScreen #sweep-error { color: $error; text-style: bold; height: auto; }
    SweepScreen #sweep-status { height: 1; text-style: bold; }
    SweepScreen #sweep-results { height: 1fr; }
    SweepScreen #sweep-keys { height: 1; color: $text-muted; }
    """

    def __init__(
        self, defaults: SweepDefaults, look: Look, start: Start, stop: Callable[[], None]
    ) -> None:
        super().__init__()
        self.defaults = defaults
        self.look = look
        self._start = start
        self._stop = stop
        self.running = False
        self.pivot: Pivot | None = None
        self.done_line = ""

    def compose(self) -> ComposeResult:
        with Vertical(id="sweep-form") as box:
            box.border_title = "Sweep: every combination applied, measured, put back"
            for name, label in FIELDS:
                with Horizontal(classes="row"):
                    yield Static(
                        _label(label, False), classes="label", id=f"sweep-label-{name}",
                        markup=False,
                    )  # fmt: skip
                    yield Input(
                        value=self.defaults.values.get(name, ""),
                        id=f"sweep-{name}",
                        compact=True,
                        select_on_focus=False,
                    )
            yield Static(self.defaults.note, id="sweep-hint", markup=False)
            yield Static("", id="sweep-error", markup=False)
        yield Static("", id="sweep-status", markup=False)
        with VerticalScroll(id="sweep-results"):
            yield Static("", id="sweep-chart", markup=False)
        yield Static(
            "Enter: start   X: stop (puts back)   Esc: close   arrows: fields",
            id="sweep-keys",
            markup=False,
        )

    def on_mount(self) -> None:
        # The spec file first: a path typed straight away lands there, not in a dimension.
        self.query_one("#sweep-spec", Input).focus()

    def values(self) -> dict[str, str]:
        return {name: self.query_one(f"#sweep-{name}", Input).value for name, _ in FIELDS}

    def on_descendant_focus(self, event: object) -> None:
        widget = getattr(event, "widget", None)
        name = (getattr(widget, "id", "") or "").removeprefix("sweep-")
        if name not in HINTS:
            return
        labels = dict(FIELDS)
        self.query_one("#sweep-hint", Static).update(f"{labels[name]}: {HINTS[name]}")
        # Focus shown by a marker and bold, not by colour alone (monochrome, TERM=linux).
        for other, label in FIELDS:
            row = self.query_one(f"#sweep-label-{other}", Static)
            row.update(_label(label, other == name))
            row.set_class(other == name, "focused")

    # -- what the controller tells -----------------------------------------------------------
    def error(self, text: str) -> None:
        self.query_one("#sweep-error", Static).update(text)

    def status(self, text: str) -> None:
        self.query_one("#sweep-status", Static).update(text)

    def started(self) -> None:
        """The form gives its rows to the chart (a terminal of 24 lines holds both only so);
        `e` brings it back once the sweep has ended."""
        self.running = True
        self.error("")
        self.query_one("#sweep-form").display = False
        self.query_one("#sweep-results").focus()
        self.status("checking every cell on this host before the first change ...")
        self._keys("X: stop (every original goes back)   arrows/PgDn: scroll")

    def show(self, pivot: Pivot) -> None:
        self.pivot = pivot
        self._draw()

    def finished(self, line: str, pivot: Pivot | None) -> None:
        self.running = False
        self.done_line = line
        if pivot is not None:
            self.pivot = pivot
        self.status(line)
        self._keys("e: edit and run again   Esc: close   arrows/PgDn: scroll")
        self._draw()

    def _keys(self, text: str) -> None:
        self.query_one("#sweep-keys", Static).update(text)

    def on_resize(self) -> None:
        self._draw()

    def _draw(self) -> None:
        p = self.pivot
        if p is None:
            return
        width = max(20, self.size.width - 2)
        text = bars_text(lambda w, a: bars(p, w, a), width, self.look)
        text.append(NOTE + "\n")
        if not self.running:
            text.append(to_text(p, width))
        self.query_one("#sweep-chart", Static).update(text)

    # -- keys ------------------------------------------------------------------------------------
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.running:
            return
        why = self._start(self.values())
        if why is not None:
            self.error(why)
        else:
            self.started()

    def action_stop(self) -> None:
        if self.running:
            self._stop()
            self.status("stopping: iperf3 ends and every original goes back ...")

    def action_edit(self) -> None:
        if self.running:
            return
        self.query_one("#sweep-form").display = True
        self.query_one("#sweep-spec", Input).focus()
        self._keys("Enter: start   Esc: close   arrows: fields")

    def action_move(self, step: int) -> None:
        self.focus_next() if step > 0 else self.focus_previous()

    def action_close(self) -> None:
        if self.running:
            self.status("the sweep is running: X stops it (every original goes back)")
            return
        self.dismiss(None)
