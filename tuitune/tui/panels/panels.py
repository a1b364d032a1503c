"""The four panels (CPUs, IRQs, NIC, sysctls), the header and the tab bar.

A panel is a bordered box holding one RowView (the CPU panel adds a heat map above it) and a
help strip below that explains the row under the cursor, with the report it comes from.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Vertical
from textual.errors import NoWidget
from textual.events import Click, MouseDown, MouseMove, MouseUp
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Static

from tuitune.tui.compositor import TouchedCompositor
from tuitune.tui.panels.cpugrid import CpuList, HeatMap
from tuitune.tui.panels.rowview import Row, RowView
from tuitune.tui.panels.tabs import Span, tab_at, tab_text
from tuitune.tui.screen_update import ScreenUpdate

PANELS = ("cpus", "irqs", "nic", "sysctls")
TITLES = {"cpus": "CPUs", "irqs": "IRQs", "nic": "NIC", "sysctls": "sysctls"}


class IrqDropped(Message):
    """An IRQ row dragged onto a CPU of the grid: set its affinity to that CPU."""

    def __init__(self, irq: str, cpu: int) -> None:
        super().__init__()
        self.irq = irq
        self.cpu = cpu


class IrqDragging(Message):
    """An IRQ row being dragged: the CPU under the pointer (None: no CPU there)."""

    def __init__(self, irq: str, cpu: int | None) -> None:
        super().__init__()
        self.irq = irq
        self.cpu = cpu


def cpu_under(screen: Screen[object], x: int, y: int) -> int | None:
    """The CPU of the grid at screen position (x, y): a CPU list row or a heat-map cell."""
    try:
        target, region = screen.get_widget_at(x, y)
    except NoWidget:
        return None
    if isinstance(target, CpuList):
        index = target.row_at(y - region.y)
        key = target.shown[index].key if index is not None else ""
        return int(key[4:]) if key.startswith("cpu:") and key[4:].isdigit() else None
    if isinstance(target, HeatMap):
        return target.cpu_at(x - region.x, y - region.y)
    return None


class IrqList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        # Short words: at 80 columns the footer must hold every key up to b Baseline.
        Binding("a", "app.all_irqs", "All"),
        Binding("e", "app.edit", "Edit"),
        Binding("s", "app.spread", "Spread"),
        Binding("m", "app.move_irq", "Move IRQ to the CPU grid's cursor", show=False),
        Binding("enter,i", "app.info", "Help on row", show=False),
    ]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.dragging: str | None = None  # the IRQ picked up with the mouse

    def on_mouse_down(self, event: MouseDown) -> None:
        index = self.row_at(event.y)
        if index is None or not self.shown[index].key.startswith("irq:"):
            return
        self.dragging = self.shown[index].key.split(":", 1)[1]
        self.capture_mouse()  # so the release reaches us wherever it happens

    def on_mouse_move(self, event: MouseMove) -> None:
        if self.dragging is not None:
            cpu = cpu_under(self.screen, event.screen_x, event.screen_y)
            self.post_message(IrqDragging(self.dragging, cpu))

    def on_mouse_up(self, event: MouseUp) -> None:
        irq, self.dragging = self.dragging, None
        self.release_mouse()
        if irq is None:
            return
        cpu = cpu_under(self.screen, event.screen_x, event.screen_y)
        if cpu is not None:
            self.post_message(IrqDropped(irq, cpu))


class NicList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "app.toggle_setting", "Toggle"),
        Binding("g", "app.toggle_group", "Toggle the row's ethtool -K group (tso...)", show=False),
        Binding("e", "app.edit", "Edit"),
        Binding("enter,i", "app.info", "Help", show=False),  # the help strip says "Enter: more"
    ]


class SysctlList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("space", "app.toggle_setting", "Toggle"),
        Binding("e", "app.edit", "Edit"),
        Binding("enter,i", "app.info", "Help", show=False),  # the help strip says "Enter: more"
    ]


class HelpStrip(Static):
    """The line under a panel; redrawn only when its text changes (it is set every tick)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text = ""

    def show(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.update(text, layout=False)  # fixed height: never a new layout


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
        self.help_strip = HelpStrip("", classes="help-strip", markup=False)

    def set_titles(self, title: str, subtitle: str) -> None:
        # Assigning a border title repaints the whole panel, children included: only on change.
        if title != self.border_title:
            self.border_title = title
        if subtitle != (self.border_subtitle or ""):
            self.border_subtitle = subtitle

    def compose(self) -> ComposeResult:
        yield from self.extra
        yield self.view
        yield self.help_strip

    def on_click(self, event: Click) -> None:
        if not self.view.has_focus:
            self.view.focus()


class PanelReading:
    """A panel as the presenters read it (tui/scene.py's PanelShown): its values, read when
    asked, and never the widget itself."""

    __slots__ = ("_panel",)

    def __init__(self, panel: Panel) -> None:
        self._panel = panel

    @property
    def rows(self) -> Sequence[Row]:
        return self._panel.view.rows

    @property
    def cursor_key(self) -> str | None:
        return self._panel.view.cursor_key

    @property
    def cursor_row(self) -> Row | None:
        return self._panel.view.cursor_row

    @property
    def filter(self) -> str:
        return self._panel.view.filter

    @property
    def width(self) -> int:
        return self._panel.view.size.width

    @property
    def scrollbar(self) -> int:
        return self._panel.view.styles.scrollbar_size_vertical

    @property
    def height(self) -> int:
        return self._panel.size.height

    @property
    def dragging(self) -> str | None:
        view = self._panel.view
        return view.dragging if isinstance(view, IrqList) else None


class Body(Container):
    """The panels' container. Its children cover it in every layout (grid, tabs, zoom), so it
    draws no lines of its own: Textual renders every widget whose clip a repaint touches, and
    a blank one costs one strip instead of a styled line per row (issue 18, goal 4)."""

    BLANK = True


class LiveScreen(Screen[object]):
    """The main screen. Blank for the same reason as Body: the header, the panels, the hint
    and the footer cover it, and its own lines were drawn on every tick under them. Its
    compositor renders only the widgets a change touches (tui/compositor.py), and it draws
    without Textual's update timer, which woke once more after every frame (screen_update.py)."""

    BLANK = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._compositor = TouchedCompositor()
        self._screen_update: ScreenUpdate | None = None

    @property
    def _update_timer(self) -> ScreenUpdate:  # type: ignore[override]
        if self._screen_update is None:
            self._screen_update = ScreenUpdate(self._on_timer_update, self.app._handle_exception)
        return self._screen_update


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
        self._spans: list[Span] = []

    def show(self, active: str) -> None:
        self.active = active
        labels = [f" {n} {TITLES[name]} " for n, name in enumerate(PANELS, 1)]
        text, self._spans = tab_text(labels, PANELS.index(active))
        text.append(" Tab: next panel", style="dim")
        self.update(text)

    def on_click(self, event: Click) -> None:
        i = tab_at(self._spans, event.x, 0)  # one line: the bar's height is 1
        if i is not None:
            self.post_message(self.Picked(PANELS[i]))
