"""The live screen: header, CPU grid, IRQs, NIC and sysctls, refreshed by the core's Sampler.

The app never reads the kernel itself: a Sampler thread hands it immutable samples (posted as
messages) and the panels redraw from them. Two layouts: on a large terminal the four panels
share the screen; below 150x40 they become tabs (1-4, Tab), so 80x24 loses nothing.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, TypeVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.driver import Driver
from textual.events import Resize
from textual.message import Message
from textual.widgets import Footer, Input, Static

from tuitune.core.bench.runner import Started
from tuitune.core.config import Config, config_path, load_config, save_config
from tuitune.core.cpuview import SORT_LABELS, landing, next_sort
from tuitune.core.guide import Situation
from tuitune.core.host.ethtool import short_name
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.hostreader import HostReader
from tuitune.core.lab import Lab
from tuitune.core.rates import Rates
from tuitune.core.sampler import Sample, Sampler
from tuitune.core.session import HostAccess, Session, read_only_reason
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.readback import patch_host, patch_nic, read_back
from tuitune.core.snapshot import HostState, NicState
from tuitune.core.units import pct, rate
from tuitune.tui.controllers.advisor import Advisor
from tuitune.tui.controllers.bench import BenchController
from tuitune.tui.controllers.edit import EDIT_ACTIONS, TRIAL_SECONDS, Editor
from tuitune.tui.controllers.export import Exporter
from tuitune.tui.controllers.irqmove import HOW as MOVE_HOW
from tuitune.tui.controllers.irqmove import IrqMover, irq_help, move_keys, unmovable
from tuitune.tui.controllers.lab_quit import ask_remove_lab
from tuitune.tui.controllers.procs import ProcsController
from tuitune.tui.controllers.sweep import SweepController
from tuitune.tui.look import glyphs as glyphs_mod
from tuitune.tui.look.asciibars import use_ascii_scrollbars
from tuitune.tui.look.look import Look
from tuitune.tui.look.palette import Palette
from tuitune.tui.look.themes import (
    CONSOLE_THEME,
    DEFAULT_THEME,
    THEME_VARIABLE_DEFAULTS,
    load_themes,
)
from tuitune.tui.panels.cpugrid import (
    ALL_KEY,
    CpuList,
    CpuPicked,
    GridData,
    HeatMap,
    cpu_order,
    grid_rows,
)
from tuitune.tui.panels.header import HeaderData, header_text
from tuitune.tui.panels.hintline import HintLine
from tuitune.tui.panels.irqpanel import IrqData, irq_rows
from tuitune.tui.panels.layout import split_rows, wanted
from tuitune.tui.panels.nicpanel import COLUMNS as NIC_COLUMNS
from tuitune.tui.panels.nicpanel import nic_rows
from tuitune.tui.panels.panels import (
    PANELS,
    IrqDragging,
    IrqDropped,
    IrqList,
    NicList,
    SysctlList,
    TabBar,
    make_panels,
)
from tuitune.tui.panels.rowview import Column, Row, RowView, plain_text
from tuitune.tui.panels.sysctlpanel import COLUMNS as SYSCTL_COLUMNS
from tuitune.tui.panels.sysctlpanel import help_summary, help_text, sysctl_rows
from tuitune.tui.screens.bench_view import BenchStrip
from tuitune.tui.screens.dialogs import PickerScreen, TextScreen, keys_text
from tuitune.tui.screens.procs import ProcsScreen
from tuitune.tui.shell import Selection

# Below this size the panels become tabs: four panels in 80x24 would each be too small to read.
WIDE_MIN = (150, 40)
# The first rates come this long after the first sample, not a whole --interval later: live
# numbers within a second of the start (issue 18). Not mpstat's since-boot averages, which on
# a host up for weeks say nothing about now. 0.25 s is 25 jiffies a CPU (4 % steps in the
# first frame's CPU columns); the next frame is a whole interval's, as usual.
FIRST_GAP = 0.25
T = TypeVar("T")


@dataclass
class Baseline:
    sysctls: dict[str, str]


class TuituneApp(App[int]):
    """The live screen. It is the `Shell` (tui/shell.py) its controllers see: the editor, the
    benchmark and the export get `self` typed as that Protocol, and post messages up."""

    class SampleReady(Message):
        """A sample from the Sampler's thread."""

        def __init__(self, sample: Sample) -> None:
            super().__init__()
            self.sample = sample

    TITLE = "tuitune"
    ENABLE_COMMAND_PALETTE = False  # every action has its own key; ^p would only confuse
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
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark,f1", "help", "Keys"),
        # Pause and Filter are listed by ? only: at 80 columns the footer keeps what changes
        # things and the panel's own keys (the footer is cut at its right end).
        Binding("p", "pause", "Pause", show=False),
        Binding("z", "zoom", "Zoom: the focused panel over the whole screen, or back", show=False),
        Binding("slash", "filter", "Filter", show=False),
        Binding("tab", "next_panel(1)", "Next panel", show=False, priority=True),
        Binding("shift+tab", "next_panel(-1)", "Previous panel", show=False, priority=True),
        Binding("1", "panel('cpus')", "CPU grid", show=False),
        Binding("2", "panel('irqs')", "IRQ panel", show=False),
        Binding("3", "panel('nic')", "NIC panel", show=False),
        Binding("4", "panel('sysctls')", "sysctl panel", show=False),
        Binding("n", "pick", "Interface", show=False),
        Binding("t", "next_theme", "Theme", show=False),
        Binding("r", "reread", "Re-read NIC state now", show=False),
        Binding("escape", "clear_filter", "Clear the filter", show=False),
        Binding("u", "undo", "Undo"),
        Binding("R", "revert_all", "Revert all", show=False),
        Binding("y", "confirm_trial", "Keep trial change", show=False),
        Binding("B", "bench", "Bench"),
        Binding("N", "runs", "Runs"),
        Binding("W", "sweep", "Sweep: a table of settings measured", show=False),
        Binding("X", "bench_stop", "Stop the benchmark / close its strip", show=False),
        Binding("E", "export", "Export"),
        Binding("A", "advise", "Findings: what holds the NIC back (Enter applies one)", show=False),
        Binding("P", "procs", "Processes using the NIC: where they run, move them", show=False),
        Binding("b", "baseline", "Baseline"),
    ]

    def __init__(
        self,
        reader: HostReader,
        ifname: str | None,
        *,
        interval: float = 1.0,
        theme: str | None = None,
        env: dict[str, str] | None = None,
        limit: int | None = None,
        show_cost: bool = True,
        save_settings: bool = True,
        editable: bool | None = None,
        journal_dir: Path | None = None,
        access: Callable[[], HostAccess] | None = None,
        trial_seconds: float = TRIAL_SECONDS,
        notebook_path: Path | None = None,
        export_root: Path | None = None,
        lab: Lab | None = None,
        lab_down: Callable[[Lab], list[str]] | None = None,
    ) -> None:
        self.env = dict(os.environ if env is None else env)
        self.glyphs = glyphs_mod.detect(self.env)
        self.ascii = self.glyphs is glyphs_mod.ASCII
        super().__init__()
        self.reader = reader
        self.ifname = ifname
        self.interval = interval
        self.show_cost = show_cost
        self.save_settings = save_settings
        self.lab, self.lab_down = lab, lab_down  # `tuitune lab`; lab_down: tests inject it
        self.palette = Palette.from_variables({})
        self.themes, self.theme_problems = load_themes()
        for t in self.themes:
            self.register_theme(t)
        names = [t.name for t in self.themes]
        self.config_file = config_path(self.env)
        self.config = load_config(self.config_file) if save_settings else Config()
        wanted = theme or self.config.theme
        if wanted is not None and wanted not in names and wanted not in self.available_themes:
            raise ValueError(f"no theme {wanted!r}; themes: {', '.join(names)}")
        if wanted is None:
            wanted = CONSOLE_THEME if self.env.get("TERM") == "linux" else DEFAULT_THEME
        self._start_theme = wanted if wanted in self.available_themes else None
        self.sampler = Sampler(
            reader,
            ifname,
            self._deliver,
            interval,
            limit=limit,
            device_events=reader.root.live,
            first_gap=FIRST_GAP,
        )
        self.sample: Sample | None = None
        self.nic: NicState | None = None
        self.host: HostState | None = None
        self.baseline: Baseline | None = None
        self.active = "cpus"
        self.grid_mode = "auto"  # auto / list / heat
        self._top_rows = -1  # the wide layout's top row height, last set
        self._drag_text: str | None = None  # feedback while an IRQ row is dragged
        self.cpu_sort = "auto"  # auto (heat map: by load; list: topology) or core.cpuview.SORTS
        self.show_all_irqs = False
        self.all_affinity: dict[str, IrqAffinity] = {}  # every IRQ's, for the "all" view
        self._grid_kept: set[str] = set()  # optional CPU columns once shown (GridData.kept)
        self.notice: str | None = None
        self._notice_id = 0  # which notice is shown: its timer clears only it
        self.samples_drawn = 0
        self._header_height = -1
        self.panels = make_panels()
        self._filter_target: RowView | None = None
        # The host's change session; host_writes: in a namespace, the screen asks before each
        # host-wide change (Editor._submit).
        self.session = Session(
            reader.root,
            journal_dir=journal_dir,
            access=access,
            call=reader.call,
            handles=reader.handles if reader.root.live else None,
            host_writes=True,
            read_only=read_only_reason(
                reader.root, reader.root.live if editable is None else editable
            ),
        )
        self.bench_strip = BenchStrip(id="bench-strip", look=self.look())
        self.hint = HintLine(id="hint")  # what to do next, for a first-time user
        self.editor = Editor(self, env=self.env, trial_seconds=trial_seconds)
        # B, N, X
        self.app_bench = BenchController(
            self, self.bench_strip, notebook_path=notebook_path, lab=lab
        )
        self.app_sweep = SweepController(self, lab=lab, notebook_path=notebook_path)  # W
        self.exporter = Exporter(self, export_root)  # export_root: tests stage under tmp
        # A: findings over the last seconds, in the context remembered for each interface
        self.advisor = Advisor(
            self, self.editor, dict(self.config.contexts), self._remember, self.app_bench.follow
        )
        self.irq_mover = IrqMover(self, self.editor)  # m: an IRQ onto the CPU under the cursor
        # P: the NIC's processes, moved beside (or away from) its IRQs
        self.procs = ProcsController(self, self.editor, reader.call, reader.root, lab=lab)

    # -- setup ---------------------------------------------------------------------------
    def get_key_display(self, binding: Binding) -> str:
        text = super().get_key_display(binding)
        if self.ascii and not text.isascii():  # the footer's "⏎" is not in the console font
            return binding.key.split(",")[0].replace("enter", "Enter")
        return text

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        # The one border type of every box tuitune draws (panels, screens): the console font
        # has no rounded corners. Not from the theme: it follows the terminal, not the colours.
        variables["tt-border"] = "ascii" if self.ascii else "round"
        return variables

    def get_driver_class(self) -> type[Driver]:
        # The stock Linux driver polls for keys ten times a second; ours waits (driver.py).
        from textual.drivers.linux_driver import LinuxDriver

        from tuitune.tui.driver import QuietLinuxDriver

        stock = super().get_driver_class()
        return QuietLinuxDriver if stock is LinuxDriver else stock

    def compose(self) -> ComposeResult:
        yield Static("", id="header", markup=False)
        yield TabBar()
        with Container(id="body"):
            # Grid order fills rows: CPUs | IRQs on top, NIC | sysctls below; the rows' heights
            # follow what the panels hold (_size_panels).
            for name in ("cpus", "irqs", "nic", "sysctls"):
                yield self.panels[name]
        yield Input(placeholder="filter rows (Enter: keep, Esc: clear)", id="filter")
        yield self.bench_strip
        yield self.hint
        yield Footer()

    def on_mount(self) -> None:
        self.set_class(self.ascii, "-ascii")
        use_ascii_scrollbars(self.ascii)
        if self._start_theme:
            self.theme = self._start_theme
        self.theme_changed_signal.subscribe(self, lambda _t: self._on_theme())
        self._on_theme()
        self._layout(self.size.width, self.size.height)
        self.panels["cpus"].view.focus()
        self._set_active("cpus")
        for view, text in (
            (self.panels["cpus"].view, "waiting for the second sample..."),
            (self.panels["irqs"].view, "no interface picked" if not self.ifname else "reading..."),
            (self.panels["nic"].view, "no interface picked" if not self.ifname else "reading..."),
            (self.panels["sysctls"].view, "reading..."),
        ):
            view.empty_text = text
        self._draw_header()
        self.sampler.start()
        # Only a trial change's countdown needs a clock: a second wake-up a second otherwise.
        self._countdown = self.set_interval(1.0, self._each_second, pause=True)
        if self.ifname is None:
            self.action_pick()
        self.editor.offer_restore()

    def _each_second(self) -> None:
        self.editor.tick()
        if self.editor.trial_deadline is not None:
            self._draw_header()
        else:
            self._countdown.pause()

    def on_unmount(self) -> None:
        self.sampler.stop()
        use_ascii_scrollbars(False)

    def _on_theme(self) -> None:
        self.palette = Palette.from_variables(self.get_css_variables())
        self.bench_strip.look = self.look()
        self.bench_strip.redraw()
        if self.sample is not None:
            self._redraw()

    # -- the Shell its controllers see (tui/shell.py) ------------------------------------------
    def selection(self) -> Selection:
        view = self.panels[self.active].view
        return Selection(self.ifname, self.nic, self.host, view.cursor_key, self._irq_affinity())

    def _irq_affinity(self) -> dict[str, IrqAffinity]:
        """What the IRQ panel shows: the NIC's IRQs, and in the "all" view the host's too."""
        nic = self.nic.irq_affinity if self.nic else {}
        return self.all_affinity | nic if self.show_all_irqs else dict(nic)

    def look(self) -> Look:
        return Look(self.glyphs, self.palette, self.ascii)

    def in_thread(
        self, work: Callable[[], T], then: Callable[[T], None] | None = None, *, group: str
    ) -> None:
        def job() -> None:
            result = work()
            if then is not None:
                self.call_from_thread(self._then, then, result)

        self.run_worker(job, thread=True, exit_on_error=False, group=group)

    def _then(self, then: Callable[[T], None], result: T) -> None:
        if self.is_running:  # a result that arrives while the app shuts down
            then(result)

    def show_read_back(self, outs: Sequence[Outcome]) -> None:
        """The journal has read the new values back: on their rows now, in this frame, not
        after the re-read that follows (a forced sample and a frame later; issue 18, goal 3)."""
        values = read_back(outs)
        if values and self.sample is not None:
            nic, host = patch_nic(self.nic, values), patch_host(self.host, values)
            if nic is not self.nic:
                self.nic = nic
                self._draw_nic()
            if host is not self.host:
                self.host = host
                self._draw_sysctls()

    def on_editor_state_changed(self, message: Editor.StateChanged) -> None:
        self.sampler.refresh_state()
        self.hint.changed(self.editor.changes)
        self._draw_hint()

    def _draw_hint(self) -> None:
        root = self.session.root
        read_only = self.session.read_only
        self.hint.show(
            Situation(
                self.ifname,
                read_only,
                recorded=not root.live and read_only is not None,
                lab=self.lab is not None,
                bench_running=self.app_bench.running,
            )
        )

    def on_editor_trial_started(self, message: Editor.TrialStarted) -> None:
        self._countdown.resume()

    def on_bench_controller_event(self, message: BenchController.Event) -> None:
        self.app_bench.on_message(message)
        if isinstance(message.event, Started) and message.event.repeat == 0:
            self.advisor.run_started()  # the findings' window is now the run

    def on_bench_controller_ended(self, message: BenchController.Ended) -> None:
        self.app_bench.on_message(message)
        self.advisor.run_ended()

    def on_bench_controller_recorded(self, message: BenchController.Recorded) -> None:
        self.app_bench.on_message(message)
        if not message.problem:
            self.hint.run_recorded(self.editor.changes)
            self._draw_hint()

    def on_sweep_controller_news(self, message: SweepController.News) -> None:
        self.app_sweep.on_message(message)
        if not message.problem:
            self.hint.run_recorded(self.editor.changes)
            self._draw_hint()

    # -- sampling --------------------------------------------------------------------------
    def _deliver(self, sample: Sample) -> None:
        self.post_message(TuituneApp.SampleReady(sample))  # from the sampler thread: thread-safe

    def on_tuitune_app_sample_ready(self, message: TuituneApp.SampleReady) -> None:
        if not self.is_running:  # a sample that arrives while the app shuts down
            return
        s = message.sample
        previous = self.sample
        gone_changed = s.gone != bool(previous and previous.gone)
        if gone_changed:
            # Gone: its last state is not its state now, and the NIC and IRQ panels say so.
            self.nic = None if s.gone else self.nic
            text = f"{self.ifname} is gone: waiting for it" if s.gone else "reading..."
            for name in ("nic", "irqs"):
                self.panels[name].view.empty_text = text
        if s.nic is not None:
            self.nic = s.nic
        if s.host is not None:
            self.host = s.host
        if s.all_affinity is not None:  # read every few ticks only: kept until the next read
            self.all_affinity = s.all_affinity
        self.sample = s
        # The NIC and sysctl panels change only when their state was re-read or the baseline
        # came or went: redrawing them every tick would be work for nothing.
        base_changed = previous is None or (previous.baseline is None) != (s.baseline is None)
        self.advisor.feed(s)  # before the header is drawn: it shows the Advisor's count
        self._redraw(state=s.nic is not None or s.host is not None or base_changed or gone_changed)
        self.editor.check_drift()  # every sample: it reads only what tuitune changed
        self.app_bench.on_sample(s)  # a benchmark's per-CPU peaks
        self.hint.sampled(s.rates, self.nic, self.app_bench.running)
        self._draw_hint()
        self.samples_drawn += 1
        # The next sample waits for this one to reach the screen.
        self.call_after_refresh(self.sampler.ack)

    def _shown_rates(self) -> Rates | None:
        s = self.sample
        if s is None:
            return None
        return s.since_baseline or s.rates

    def _redraw(self, state: bool = True) -> None:
        self._draw_header()
        self._draw_cpus()
        self._draw_irqs()
        if state:
            self._draw_nic()
            self._draw_sysctls()
        self._size_panels()

    def _size_panels(self) -> None:
        """The wide layout's two rows of panels, sized by what they hold (tui/layout.py)."""
        if self.has_class("-tabs") or self.has_class("-zoom"):
            return
        body = self.query_one("#body")
        if body.size.height <= 0:
            return  # not laid out yet
        p = self.panels
        # The CPU list's rows (every CPU, also under a heat map): the heat map is what shows
        # when they do not fit, so it must not feed back into the height asked for; +2 for
        # the margin _heat_mode keeps.
        cpus = wanted(len(p["cpus"].view.rows)) + 2
        top = max(cpus, wanted(len(p["irqs"].view.rows)))
        bottom = max(wanted(len(p["nic"].view.rows)), wanted(len(p["sysctls"].view.rows)))
        rows = split_rows(body.size.height, top, bottom)
        if rows != self._top_rows:
            self._top_rows = rows
            body.styles.grid_rows = f"{rows} 1fr"
            self.call_after_refresh(self._draw_cpus)  # heat map or list: by the new height

    def _draw_header(self) -> None:
        s = self.sample
        data = HeaderData(
            host=self.host,
            nic=self.nic,
            ifname=self.ifname,
            rates=s.rates if s else None,
            since_baseline=s.since_baseline if s else None,
            paused=self.sampler.paused,
            interval=self.interval,
            cost_ms=s.cost * 1000 if s and self.show_cost else None,
            error=s.error if s else None,
            notice=self.notice,
            read_only=self.session.read_only,
            trial=self._trial_text(),
            changes=len(self.session.originals()),
            gone=bool(s and s.gone),
            findings=self.advisor.counts(),
        )
        text = header_text(data, self.palette)
        header = next(iter(self.query("#header").results(Static)), None)
        if header is None:  # shutting down: a notice's timer may still fire as widgets go
            return
        # A new layout costs more than the rest of a frame: ask for one only when the header's
        # height (its lines, wrapped to the width) changes.
        width = max(1, header.size.width - 2)
        height = sum(max(1, -(-len(line) // width)) for line in text.plain.split("\n"))
        header.update(text, layout=height != self._header_height)
        self._header_height = height

    def _trial_text(self) -> str | None:
        deadline = self.editor.trial_deadline
        if deadline is None:
            return None
        left = max(0, round(deadline - time.monotonic()))
        return f"TRIAL {self.editor.trial_label}: reverts in {left} s unless you press y"

    def _grid_data(self) -> GridData:
        local: frozenset[int] = frozenset()
        place = self.nic.placement if self.nic is not None else None
        online = self.host.topology.online if self.host is not None else frozenset()
        # Mark NIC-local CPUs only when that says something: not when every CPU is local.
        if place is not None and place.local_cpus and not online <= place.local_cpus:
            local = place.local_cpus
        topology = self.host.topology if self.host else None
        rps_on = self.nic is not None and any(
            q.name.startswith("rx-") and isinstance(q.cpus, frozenset) and q.cpus
            for q in self.nic.queues
        )
        kept = frozenset(self._grid_kept)
        return GridData(self._shown_rates(), topology, local, kept, rps_on)

    def _heat_mode(self, data: GridData) -> bool:
        if self.grid_mode != "auto":
            return self.grid_mode == "heat"
        if data.rates is None:
            return False
        nodes = len(data.topology.nodes) if data.topology else 1
        rows_needed = len(data.rates.cpus) + 2 + (nodes if nodes > 1 else 0)
        room = self.panels["cpus"].size.height - 4  # border, title line, help strip
        return rows_needed > room

    def _sort_of(self, heat: bool) -> str:
        if self.cpu_sort != "auto":
            return self.cpu_sort
        return "load" if heat else "topology"

    def _draw_cpus(self) -> None:
        panel = self.panels["cpus"]
        data = self._grid_data()
        heat = self._heat_mode(data)
        heatmap = panel.query_one(HeatMap)
        heatmap.display = heat
        sort = self._sort_of(heat)
        if heat:
            # At most half of the panel (border, help strip and margin aside): the list keeps
            # the other half, so every CPU stays reachable by scrolling it.
            heatmap.max_lines = max(1, (panel.size.height - 5) // 2)
            heatmap.update(data, self.glyphs)
        nic_irqs = [q.irq for q in self.nic.irqs] if self.nic else []
        cols, rows = grid_rows(data, self.glyphs, self.palette, sort=sort, nic_irqs=nic_irqs)
        self._grid_kept.update(c.title for c in cols if c.title in ("%iow", "%stl"))
        view = panel.view
        view.set_columns(cols)
        view.set_rows(rows)
        mode = "per CPU"
        if heat:
            many = heatmap.per_cell
            mode = "heat map" + (f", {many} CPUs a cell" if many > 1 else "")
        mode += f", {SORT_LABELS[sort]}" if sort != "topology" else ""
        if self.sample is not None and self.sample.since_baseline is not None:
            mode += ", averages since the baseline"
        panel.set_titles(f"CPUs ({mode})", self._subtitle(view))
        self._cpu_help()

    def _cpu_help(self) -> None:
        panel = self.panels["cpus"]
        rates = self._shown_rates()
        key = panel.view.cursor_key
        local = self._grid_data().local
        text = "v: heat map / list.  o: order.  " + (
            f"NIC-local CPUs are marked {self.glyphs.local_mark}" if local else ""
        )
        if rates is not None and key and key != ALL_KEY:
            cpu = int(key.split(":")[1])
            c = rates.cpus.get(cpu)
            if c is not None:
                where = []
                if self.nic is not None:
                    for q in self.nic.irqs:
                        r = rates.irqs.get(q.irq)
                        if r and r.per_cpu.get(cpu):
                            where.append(f"{q.name} {rate(r.per_cpu[cpu])}/s")
                node = ""
                if self.host is not None:
                    for n, members in self.host.topology.nodes.items():
                        if cpu in members:
                            node = f" node {n}"
                mark = " NIC-local" if cpu in local else ""
                text = (
                    f"cpu{cpu}{node}{mark}: busy {pct(c.busy).strip()}% "
                    f"(sys {pct(c.sys).strip()} soft {pct(c.soft).strip()}); "
                    + ("NIC IRQs here: " + ", ".join(where[:4]) if where else "no NIC IRQ here")
                )
                irq = self.panels["irqs"].view.cursor_key
                if irq and irq.startswith("irq:"):
                    text += f".  m: move IRQ {irq[4:]} here"
        panel.help_strip.show(text)

    def _draw_irqs(self) -> None:
        panel = self.panels["irqs"]
        s = self.sample
        nic = self.nic
        data = IrqData(
            nic_irqs=nic.irqs if nic else (),
            affinity=self._irq_affinity(),
            interrupts=s.counters.interrupts if s and s.counters else None,
            rates=self._shown_rates(),
            baseline=bool(s and s.since_baseline),
            cpus=cpu_order(self._grid_data()),
            show_all=self.show_all_irqs,
        )
        fixed = 9 + 5 + 6 + 9 + 9 + 4 + 7 + (8 if data.baseline else 0)
        fixed += 14 if self.show_all_irqs else 0  # the wider name column
        room = max(0, panel.view.size.width - fixed)
        cols, rows = irq_rows(data, room, self.glyphs, self.palette)
        panel.view.set_columns(cols)
        panel.view.set_rows(self._with_drift(rows, cols))
        if nic is not None and not nic.irqs and not self.show_all_irqs:
            panel.view.empty_text = (
                f"{self.ifname} has no IRQs of its own (a virtual device): press a for all IRQs"
            )
        self._irq_help()  # rates and "pending" change every tick
        panel.set_titles(
            (
                "IRQs (all of the host)"
                if self.show_all_irqs
                else (f"IRQs of {self.ifname}" if self.ifname else "IRQs")
            ),
            self._subtitle(panel.view),
        )

    def _draw_nic(self) -> None:
        panel = self.panels["nic"]
        base = self.editor.compare_nic
        if base is None and self.sample and self.sample.baseline:
            base = self.sample.baseline.nic
        ncpus = len(self.host.topology.cpus) if self.host else 1
        width = panel.view.scrollable_content_region.width or 80
        rows = nic_rows(self.nic, base, ncpus, self.glyphs, self.palette, width)
        panel.view.set_rows(self._with_drift(rows, NIC_COLUMNS))
        panel.view.set_columns(NIC_COLUMNS)
        panel.set_titles(f"NIC {self.ifname}" if self.ifname else "NIC", self._subtitle(panel.view))

    def _draw_sysctls(self) -> None:
        panel = self.panels["sysctls"]
        if self.host is None:
            return
        ns = self.host.netns
        base = self.editor.compare_sysctls
        if base is None and self.baseline:
            base = self.baseline.sysctls
        panel.view.set_columns(SYSCTL_COLUMNS)
        rows = sysctl_rows(self.host.sysctls, base, self.palette)
        panel.view.set_rows(self._with_drift(rows, SYSCTL_COLUMNS))
        panel.set_titles(f"sysctls (netns {ns})" if ns else "sysctls", self._subtitle(panel.view))

    def _with_drift(self, rows: list[Row], columns: list[Column]) -> list[Row]:
        """Rows of settings someone else changed after tuitune, or that the kernel refused as
        a state (locked, not supported): say so in the row's widest (flexible) cell."""
        notes = self.editor.row_notes()
        if not notes:
            return rows
        at = next((i for i, c in enumerate(columns) if c.flex), len(columns) - 1)
        out = []
        for row in rows:
            note = notes.get(row.key)
            if note is None:
                out.append(row)
                continue
            cells = list(row.cells) + [""] * (at + 1 - len(row.cells))
            cells[at] = ((note, self.palette.warn),)
            out.append(Row(row.key, tuple(cells), row.style, row.section, row.search))
        return out

    def _subtitle(self, view: RowView) -> str:
        return f"filter: {view.filter}" if view.filter else ""

    # -- row help --------------------------------------------------------------------------
    def on_row_view_cursor_moved(self, message: RowView.CursorMoved) -> None:
        view = message.view
        if isinstance(view, CpuList):
            self._cpu_help()
            heat = self.panels["cpus"].query_one(HeatMap)
            key = message.key
            heat.selected = int(key.split(":")[1]) if key and key != ALL_KEY else None
            heat.follow()
            heat.refresh()
            return
        if view is self.panels["irqs"].view:
            self._irq_help()
            return
        for panel in self.panels.values():
            if panel.view is view:
                panel.help_strip.show(self._row_help_line(view))

    def _irq_help(self) -> None:
        panel = self.panels["irqs"]
        key = panel.view.cursor_key
        view = panel.view
        if self._drag_text is not None and isinstance(view, IrqList) and view.dragging:
            panel.help_strip.show(self._drag_text)  # a refresh while dragging keeps it
            return
        if not key or not key.startswith("irq:"):
            panel.help_strip.show(self._row_help_line(panel.view))
            return
        irq, rates = key[4:], self._shown_rates()
        lands = landing(rates.irqs.get(irq) if rates else None)
        aff = self._irq_affinity().get(irq)
        text = irq_help(irq, lands, aff, self.panels["cpus"].view.cursor_key)
        panel.help_strip.show(f"{text}  {self._row_help_line(view)}")

    def on_cpu_picked(self, message: CpuPicked) -> None:
        view = self.panels["cpus"].view
        view.focus()
        view.move_cursor_to(f"cpu:{message.cpu}")

    # -- layout ----------------------------------------------------------------------------
    def on_resize(self, event: Resize) -> None:
        self._layout(event.size.width, event.size.height)

    def _layout(self, width: int, height: int) -> None:
        tabs = width < WIDE_MIN[0] or height < WIDE_MIN[1]
        self.set_class(tabs, "-tabs")
        # Below 120 columns every key Textual's roomy footer shows does not fit: close it up.
        self.query_one(Footer).compact = width < 120
        self.query_one(TabBar).show(self.active)
        if self.sample is not None:
            self.call_after_refresh(self._redraw)

    def _set_active(self, name: str) -> None:
        self.active = name
        for n, panel in self.panels.items():
            panel.set_class(n == name, "-active")
        self.query_one(TabBar).show(name)

    def on_descendant_focus(self, event: object) -> None:
        focused = self.focused
        for name, panel in self.panels.items():
            if focused is panel.view and name != self.active:
                self._set_active(name)

    def action_panel(self, name: str) -> None:
        self._set_active(name)
        self.panels[name].view.focus()
        if self.sample is not None:
            self.call_after_refresh(self._redraw)

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

    def on_tab_bar_picked(self, message: TabBar.Picked) -> None:
        self.action_panel(message.name)

    # -- actions ---------------------------------------------------------------------------
    def action_help(self) -> None:
        groups = [
            ("Everywhere", TuituneApp.BINDINGS),
            ("In every list", RowView.BINDINGS),
            ("CPU grid", CpuList.BINDINGS),
            ("IRQ panel", IrqList.BINDINGS),
            ("NIC panel", NicList.BINDINGS),
            ("sysctl panel", SysctlList.BINDINGS),
        ]
        text = keys_text(groups)
        text.append(
            "Mouse: click a panel or a tab to focus it, a row to move the cursor, a CPU in the "
            "heat map to find it in the list. Everything has a key too.\n"
        )
        text.append(
            f"\n{MOVE_HOW} A preview says where it lands now and after; y moves it. Its row "
            'says "pending" until the kernel\'s effective affinity follows (x86 moves an IRQ '
            "at its next interrupt). With the mouse (150x40 and more, both panels on screen): "
            "drag the IRQ's row onto a CPU row or heat-map cell; e types a CPU list.\n"
        )
        if self.theme_problems:
            text.append("\nTheme files that did not load:\n" + "\n".join(self.theme_problems))
        self.push_screen(TextScreen("Keys", text))

    def _row_help_line(self, view: RowView) -> str:
        """The help strip: what Enter gives, the row's note in full (a narrow column cuts
        it), then the one-line summary and the reports behind it."""
        row = view.cursor_row
        if row is None:
            return ""
        note = plain_text(row.cells[-1]) if len(row.cells) > 1 and isinstance(view, NicList) else ""
        summary = help_summary(row.key)
        short = short_name(row.key[8:]) if row.key.startswith("feature:") else ""
        group = f"g: all of {short}." if short and not self.session.read_only else ""
        parts = ["Enter: more." if summary else "Enter: this row in full.", group, note, summary]
        return "  ".join(p for p in parts if p)

    def action_info(self) -> None:
        view = self.panels[self.active].view
        row = view.cursor_row
        title, body = help_text(view.cursor_key)
        if not body and row is not None:
            # No help text for it: show the row itself, every cell in full.
            names = [c.title for c in view.columns]
            cells = [plain_text(c) for c in row.cells]
            title = title or cells[0]
            body = "\n".join(f"{n}: {c}" for n, c in zip(names, cells, strict=False) if c)
        if not body:
            self._notify("nothing to explain on this line")
            return
        self.push_screen(TextScreen(title, body))

    def action_pause(self) -> None:
        self.sampler.pause(not self.sampler.paused)
        self._draw_header()

    def action_baseline(self) -> None:
        s = self.sample
        if s is not None and s.baseline is not None:
            self.baseline = None
            self.sampler.set_baseline(False)
            self._notify("baseline cleared: rates per interval again")
        else:
            sysctls = {}
            if self.host is not None:
                sysctls = {v.key: v.value for v in self.host.sysctls if isinstance(v.value, str)}
            self.baseline = Baseline(sysctls)
            self.sampler.set_baseline(True)
            self._notify("baseline set: from the next sample on, everything is a delta against it")

    def action_grid_view(self) -> None:
        self.grid_mode = {"auto": "heat", "heat": "list", "list": "auto"}[self.grid_mode]
        if self.grid_mode == "auto":
            self._notify("CPU grid: automatic (heat map when the CPUs do not fit)")
        else:
            self._notify(f"CPU grid: {self.grid_mode}")
        self._draw_cpus()

    def action_zoom(self) -> None:
        if self.has_class("-tabs"):
            self._notify("each panel has the whole screen already (a small terminal: tabs)")
            return
        zoom = not self.has_class("-zoom")
        self.set_class(zoom, "-zoom")
        if not zoom:
            self._top_rows = -1  # size the rows again
        self._notify("zoomed: z again for all four panels" if zoom else "all four panels")
        if self.sample is not None:
            self.call_after_refresh(self._redraw)

    def action_cpu_sort(self) -> None:
        now = self._sort_of(self._heat_mode(self._grid_data()))
        self.cpu_sort = next_sort(now)
        self._notify(f"CPU list: {SORT_LABELS[self.cpu_sort]} (o: next order)")
        self._draw_cpus()

    def action_all_irqs(self) -> None:
        self.show_all_irqs = not self.show_all_irqs
        self.sampler.set_all_irqs(self.show_all_irqs)
        self._draw_irqs()

    def action_reread(self) -> None:
        self.sampler.refresh_state()
        self._notify("re-reading the NIC and host state")

    def action_next_theme(self) -> None:
        names = [t.name for t in self.themes] or [self.theme]
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        msg = f"theme {self.theme}"
        if self.save_settings:
            self.config = replace(self.config, theme=self.theme)
            err = save_config(self.config, self.config_file)
            msg += f" (not saved: {err})" if err else f" (saved in {self.config_file})"
        self._notify(msg)

    def action_pick(self) -> None:
        summaries = self.reader.interface_summaries()

        def picked(name: str | None) -> None:
            if name is None or name == self.ifname:
                return
            self.ifname = name
            self.nic = None
            self.sampler.ifname = name
            self.sampler.refresh_state()
            self._redraw()

        self.push_screen(PickerScreen(summaries), picked)

    def action_filter(self) -> None:
        self._filter_target = self.panels[self.active].view
        box = self.query_one("#filter", Input)
        box.value = self._filter_target.filter
        box.display = True
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
        target.focus()
        self._refresh_subtitles()

    def _refresh_subtitles(self) -> None:
        for panel in self.panels.values():
            panel.set_titles(str(panel.border_title or ""), self._subtitle(panel.view))

    def notify_line(self, text: str, warn: bool = False) -> None:
        self._notify(("! " if warn else "") + text)
        if isinstance(self.screen, ProcsScreen):  # it covers the header: it says it itself
            self.procs.notice(("! " if warn else "") + text)

    def action_edit(self) -> None:
        self.editor.edit()

    def action_toggle_setting(self) -> None:
        self.editor.toggle()

    def action_toggle_group(self) -> None:
        self.editor.toggle_group()

    def action_undo(self) -> None:
        self.editor.undo()

    def action_revert_all(self) -> None:
        self.editor.revert_all()

    def action_spread(self) -> None:
        self.editor.spread()

    def action_confirm_trial(self) -> None:
        self.editor.confirm_trial()

    def action_bench(self) -> None:
        self.app_bench.open_form()

    def action_sweep(self) -> None:
        self.app_sweep.open()

    def action_runs(self) -> None:
        self.app_bench.open_runs()
        self.hint.runs_opened()
        self._draw_hint()

    def action_bench_stop(self) -> None:
        self.app_bench.stop_or_close()

    def action_advise(self) -> None:
        self.advisor.open()

    def action_procs(self) -> None:
        if self.ifname is None:
            self.notify_line("no interface picked (n picks one)", True)
            return
        self.push_screen(ProcsScreen(self.procs, self.interval))

    def _remember(self, ifname: str, context: str) -> None:
        """The Advisor's context of an interface, kept in the settings file with the theme."""
        contexts = dict(self.config.contexts) | {ifname: context}
        self.config = replace(self.config, contexts=tuple(sorted(contexts.items())))
        if self.save_settings:
            err = save_config(self.config, self.config_file)
            if err:
                self.notify_line(err, True)

    def action_export(self) -> None:
        self.exporter.open()

    async def action_quit(self) -> None:
        if self.app_sweep.running:  # its thread would go on changing the host after the revert
            self.app_sweep.refuse_quit()
            return
        if self.lab is not None:  # first ask whether the lab goes (tui/lab_quit.py)
            quit_ = lambda: self.editor.quit(self.exit)  # noqa: E731
            ask_remove_lab(self, self.lab, quit_, self.exit, self.lab_down)
            return
        self.editor.quit(self.exit)

    def action_move_irq(self) -> None:
        irqs, cpus = self.panels["irqs"].view, self.panels["cpus"].view
        key = irqs.cursor_key or ""
        fixed = unmovable(key[4:], self._irq_affinity().get(key[4:])) if key[:4] == "irq:" else None
        if fixed is not None:  # before asking for a CPU: no CPU would do
            self.notify_line(fixed, True)
            return
        picked = move_keys(irqs.cursor_key, cpus.cursor_key)
        if isinstance(picked, str):
            self.notify_line(picked, True)
            return
        irq, cpu = picked
        rates = self._shown_rates()
        self.irq_mover.ask(irq, cpu, landing(rates.irqs.get(irq) if rates else None))

    def on_irq_dragging(self, message: IrqDragging) -> None:
        """Feedback while an IRQ row is dragged: what a release here would do."""
        fixed = unmovable(message.irq, self._irq_affinity().get(message.irq))
        if fixed is not None:
            text = fixed  # said while dragging: a release will move nothing
        elif message.cpu is None:
            text = f"dragging IRQ {message.irq}: release it on a CPU (list row or heat-map cell)"
        else:
            text = f"release: IRQ {message.irq} -> cpu{message.cpu}"
        self._drag_text = text
        self.panels["irqs"].help_strip.show(text)
        self.panels["cpus"].help_strip.show(text)

    def on_irq_dropped(self, message: IrqDropped) -> None:
        self._drag_text = None
        if self.session.read_only:
            self.notify_line(self.session.read_only, True)
            return
        fixed = unmovable(message.irq, self._irq_affinity().get(message.irq))
        if fixed is not None:
            self.notify_line(fixed, True)
            return
        self.editor.set_irq(message.irq, str(message.cpu))

    def _notify(self, text: str) -> None:
        self.notice = text
        self._draw_header()
        # Each notice clears only itself: the timer of an earlier, identical one must not
        # cut a repeated notice short.
        self._notice_id = token = self._notice_id + 1

        def clear() -> None:
            if self._notice_id == token:
                self.notice = None
                self._draw_header()

        self.set_timer(4, clear)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Typing in the filter box must not trigger one-letter keys.
        typing = isinstance(self.focused, Input)
        if typing and action not in ("quit", "clear_filter", "next_panel"):
            return False
        if action in EDIT_ACTIONS and self.session.read_only:
            return None  # shown greyed out in the footer; the header says why
        return True
