"""The four panels (CPUs, IRQs, NIC, sysctls), the header and the tab bar.

A panel is a bordered box holding one RowView (the CPU panel adds a heat map above it) and a
help strip below that explains the row under the cursor, with the report it comes from.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Click
from textual.message import Message
from textual.widgets import Static

from tuitune.tui.cpugrid import CpuList, HeatMap
from tuitune.tui.rowview import RowView

PANELS = ("cpus", "irqs", "nic", "sysctls")
TITLES = {"cpus": "CPUs", "irqs": "IRQs", "nic": "NIC", "sysctls": "sysctls"}


class IrqList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "app.all_irqs", "All IRQs"),
        Binding("enter,i", "app.info", "Help on row", show=False),
    ]


class NicList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,i", "app.info", "Help on row"),
    ]


class SysctlList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter,i", "app.info", "Help on row"),
    ]


class Panel(Vertical):
    """A titled box; clicking anywhere in it focuses its list."""

    DEFAULT_CSS = """
    Panel { height: 1fr; }
    Panel > .help-strip { height: 2; color: $text-muted; }
    """

    def __init__(self, name: str, view: RowView, *extra: Static | HeatMap) -> None:
        super().__init__(id=f"panel-{name}", classes="panel")
        self.panel_name = name
        self.view = view
        self.extra = extra
        self.border_title = TITLES[name]
        self.help_strip = Static("", classes="help-strip", markup=False)

    def compose(self) -> ComposeResult:
        yield from self.extra
        yield self.view
        yield self.help_strip

    def on_click(self, event: Click) -> None:
        if not self.view.has_focus:
            self.view.focus()


def make_panels() -> dict[str, Panel]:
    heat = HeatMap(id="heatmap")
    return {
        "cpus": Panel("cpus", CpuList(id="cpu-list"), heat),
        "irqs": Panel("irqs", IrqList(id="irq-list")),
        "nic": Panel("nic", NicList(id="nic-list")),
        "sysctls": Panel("sysctls", SysctlList(id="sysctl-list")),
    }


class TabBar(Static):
    """Panel names with their number keys; the shown one highlighted. Only in the tabbed
    layout (small terminals), where one panel fills the screen at a time."""

    class Picked(Message):
        def __init__(self, name: str) -> None:
            super().__init__()
            self.name = name

    def __init__(self) -> None:
        super().__init__("", id="tabbar", markup=False)
        self.active = PANELS[0]
        self._spans: list[tuple[int, int, str]] = []

    def show(self, active: str) -> None:
        self.active = active
        text = Text()
        self._spans = []
        for n, name in enumerate(PANELS, 1):
            start = len(text)
            label = f" {n} {TITLES[name]} "
            text.append(label, style="reverse bold" if name == active else "")
            self._spans.append((start, len(text), name))
            text.append(" ")
        text.append(" Tab: next panel", style="dim")
        self.update(text)

    def on_click(self, event: Click) -> None:
        for start, end, name in self._spans:
            if start <= event.x < end:
                self.post_message(self.Picked(name))
                return
