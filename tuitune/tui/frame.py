"""How the four panels share the screen, and which one has the keys.

Wide (150x40 and more): all four in a 2x2 grid, z zooms the focused one. Smaller: tabs
(1-4, Tab). The filter box (/) filters the focused panel's rows. This is the App's base class,
not a controller: it is the App's own layout (CSS classes on the App, its focus, its Footer),
so it holds no state of its own beyond which panel is active and what the filter box targets.
It is also where the presenters' output lands: the widget side of tui/scene.py's `Scene`
(what a panel shows, the header, the heat map, the rows' heights), applied as computed.
"""

from __future__ import annotations

import sys

from rich.text import Text
from textual.containers import Container
from textual.events import Resize
from textual.widgets import Input

from tuitune.core.text import escape_hidden
from tuitune.core.watch.sampler import Sample
from tuitune.tui.look.styled import Styled
from tuitune.tui.panels.cpugrid import GridData, HeatMap
from tuitune.tui.panels.footer import KeysFooter
from tuitune.tui.panels.headerview import HeaderView
from tuitune.tui.panels.panels import PANELS, Panel, PanelReading, TabBar
from tuitune.tui.panels.rowview import RowView
from tuitune.tui.scene import PanelShown, PanelUpdate, subtitle
from tuitune.tui.screens.dialogs import PickerScreen, TextScreen
from tuitune.tui.view import LiveView

# Below this size the panels become tabs: four panels in 80x24 would each be too small to read.
WIDE_MIN = (150, 40)


class Frame(Styled):
    CSS = """
    Screen { layout: vertical; }
    #header { height: auto; max-height: 6; padding: 0 1; }
    #tabbar { height: 1; display: none; }
    #body { height: 1fr; layout: grid; grid-size: 2 2; grid-columns: 1fr 1fr; }
    .panel { border: $tt-border $primary 50%; border-title-color: $text-muted; }
    .panel:focus-within { border: $tt-border $accent; border-title-color: $accent; }
    #heatmap { display: none; margin-bottom: 1; }
    #filter { dock: bottom; display: none; height: 1; border: none; padding: 0 1; }
    TuituneApp.-tabs #tabbar { display: block; }
    TuituneApp.-tabs #body { layout: vertical; }
    TuituneApp.-tabs .panel { display: none; }
    TuituneApp.-tabs .panel.-active { display: block; }
    TuituneApp.-zoom #body { layout: vertical; }
    TuituneApp.-zoom .panel { display: none; }
    TuituneApp.-zoom .panel.-active { display: block; }
    /* Textual's own Input draws a "tall" border, which has no place in $tt-border. Compact
       (borderless, one-line) Inputs keep none: a border on one line hides the text. */
    TuituneApp.-ascii Input, TuituneApp.-ascii Input:focus { border: ascii $accent; }
    TuituneApp.-ascii Input.-textual-compact,
    TuituneApp.-ascii Input.-textual-compact:focus { border: none; }
    """

    # Set by the App.
    panels: dict[str, Panel]
    header: HeaderView
    body: Container
    active: str
    sample: Sample | None
    view: LiveView
    _filter_target: RowView | None

    notice: str | None
    _notice_id: int

    def _notify(self, text: str) -> None:
        # The last net: a notice's sources escape the names they quote (printable); what one
        # forgot is escaped here, without doubling the backslashes of what they escaped.
        self.notice = escape_hidden(text[:1000])
        self.view.header()
        # Each notice clears only itself: the timer of an earlier, identical one must not
        # cut a repeated notice short.
        self._notice_id = token = self._notice_id + 1

        def clear() -> None:
            if self._notice_id == token:
                self.notice = None
                self.view.header()

        self.set_timer(4, clear)

    # -- the presenters' output on the widgets (tui/scene.py) -------------------------------
    def panel(self, name: str) -> PanelShown:
        return PanelReading(self.panels[name])

    def show_panel(self, name: str, update: PanelUpdate) -> None:
        panel = self.panels[name]
        view = panel.view
        if update.columns is not None:
            view.set_columns(update.columns)
        if update.rows is not None:
            view.set_rows(update.rows)
        if update.empty_text is not None:
            view.empty_text = update.empty_text
        if update.title is not None:
            panel.set_titles(update.title, subtitle(view.filter))
        if update.help is not None:
            panel.help_strip.show(update.help)

    def show_header(self, text: Text) -> None:
        if self.header.is_attached:  # not while shutting down: a notice's timer may fire then
            self.header.show(text)

    @property
    def rows_height(self) -> int:
        if self.has_class("-tabs") or self.has_class("-zoom"):
            return 0
        return max(0, self.body.size.height)

    def show_top_rows(self, rows: int) -> None:
        self.body.styles.grid_rows = f"{rows} 1fr"
        self.call_after_refresh(self.view.grid.draw)  # heat map or list: by the new height

    def show_heat(self, data: GridData | None, max_lines: int) -> int:
        heat = self.panels["cpus"].query_one(HeatMap)
        heat.display = data is not None
        if data is None:
            return 1
        heat.max_lines = max_lines
        heat.update(data, self.glyphs)
        return heat.per_cell

    def show_heat_cursor(self, cpu: int | None) -> None:
        self.panels["cpus"].query_one(HeatMap).select(cpu)

    def _refresh_subtitles(self) -> None:
        """The filter changed: each panel's subtitle says it."""
        for panel in self.panels.values():
            panel.set_titles(str(panel.border_title or ""), subtitle(panel.view.filter))

    def on_resize(self, event: Resize) -> None:
        self._layout(event.size.width, event.size.height)

    def _layout(self, width: int, height: int) -> None:
        tabs = width < WIDE_MIN[0] or height < WIDE_MIN[1]
        self.set_class(tabs, "-tabs")
        # Below 120 columns every key the roomy footer shows does not fit: close it up.
        self.query_one(KeysFooter).compact = width < 120
        self.query_one(TabBar).show(self.active)
        if self.sample is not None:
            self.call_after_refresh(self.view.redraw)

    def _set_active(self, name: str) -> None:
        self.active = name
        for n, panel in self.panels.items():
            panel.set_class(n == name, "-active")
        self.query_one(TabBar).show(name)

    def on_descendant_focus(self, event: object) -> None:
        if not self.screen_stack:  # a focus event still queued while the app shuts down
            return
        focused = self.focused
        for name, panel in self.panels.items():
            if focused is panel.view and name != self.active:
                self._set_active(name)

    def on_tab_bar_picked(self, message: TabBar.Picked) -> None:
        self.action_panel(message.name)

    def action_panel(self, name: str) -> None:
        self._set_active(name)
        self.panels[name].view.focus()
        # Nothing a panel draws depends on which one is focused: in the wide layout every
        # panel is shown at its size already. Tabs and zoom show one panel at a time, so the
        # one now shown is drawn at its size (the CPU list's 1152 rows made again on every
        # panel key was most of 1 and 2 on a big host, issue 38).
        if self.sample is not None and (self.has_class("-tabs") or self.has_class("-zoom")):
            self.call_after_refresh(self.view.redraw_panel, name)

    def action_next_panel(self, step: int) -> None:
        # The export screen's module loads at the first E (controllers/export.py): before
        # that, no screen can be one.
        export = sys.modules.get("tuitune.tui.screens.export")
        if export is not None and isinstance(self.screen, export.ExportScreen):
            self.screen.action_step(step)  # Tab: the preview's next file
            return
        if self.screen is not self.screen_stack[0]:  # a form or list over the main screen
            self.screen.focus_next() if step > 0 else self.screen.focus_previous()
            return
        if isinstance(self.focused, Input):
            self._end_filter(keep=True)
            return
        if isinstance(self.screen, (TextScreen, PickerScreen)):
            self.screen.focus_next() if step > 0 else self.screen.focus_previous()
            return
        i = PANELS.index(self.active)
        self.action_panel(PANELS[(i + step) % len(PANELS)])

    def action_zoom(self) -> None:
        if self.has_class("-tabs"):
            self._notify("each panel has the whole screen already (a small terminal: tabs)")
            return
        zoom = not self.has_class("-zoom")
        self.set_class(zoom, "-zoom")
        if not zoom:
            self.view.top_rows = -1  # size the rows again
        self._notify("zoomed: z again for all four panels" if zoom else "all four panels")
        if self.sample is not None:
            self.call_after_refresh(self.view.redraw)

    # -- the filter box (/) ----------------------------------------------------------------
    def action_filter(self) -> None:
        self._filter_target = self.panels[self.active].view
        box = self.query_one("#filter", Input)
        box.value = self._filter_target.filter
        box.display = True
        # Both are docked at the bottom line: the footer (no keys while the box has the focus)
        # drew over the box, and what was typed showed only in the panel's border.
        self.query_one(KeysFooter).display = False
        box.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "filter" and self._filter_target is not None:
            self._filter_target.set_filter(event.value)
            self._refresh_subtitles()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "filter":
            self._end_filter(keep=True)

    def action_clear_filter(self) -> None:
        box = self.query_one("#filter", Input)
        if box.display:
            self._end_filter(keep=False)
        else:
            view = self.panels[self.active].view
            if view.filter:
                view.set_filter("")
                self._refresh_subtitles()

    def _end_filter(self, keep: bool) -> None:
        box = self.query_one("#filter", Input)
        target = self._filter_target or self.panels[self.active].view
        if not keep:
            target.set_filter("")
        box.display = False
        self.query_one(KeysFooter).display = True
        target.focus()
        self._refresh_subtitles()
