"""The live screen: header, CPU grid, IRQs, NIC and sysctls, refreshed by the core's Sampler.

The app never reads the kernel itself: a Sampler thread hands it immutable samples (posted as
messages) and the panels redraw from them. Two layouts: on a large terminal the four panels
share the screen; below 150x40 they become tabs (1-4, Tab), so 80x24 loses nothing.

This module is the composition root: the widgets, the keys, the state the presenters draw
(tui/view.py, tui/grid_view.py; the App is their `Scene`) and the `Shell` its controllers see.
The work behind a key is a controller's (tui/controllers/) or a presenter's.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.driver import Driver
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input

from tuitune.core import gcpolicy
from tuitune.core.guide import Situation
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.record.live import LiveRecording
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.session import Session, read_only_reason
from tuitune.core.watch.cadence import Cadence
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sample, Sampler
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.controllers.advisor import Advisor
from tuitune.tui.controllers.bench import BenchController
from tuitune.tui.controllers.edit import EDIT_ACTIONS, TRIAL_SECONDS, Editor
from tuitune.tui.controllers.gridpick import GridPick
from tuitune.tui.controllers.irqmove import IrqMover
from tuitune.tui.controllers.procs import ProcsController
from tuitune.tui.controllers.record_key import RecordKey
from tuitune.tui.delegated import add_delegated_actions
from tuitune.tui.jobs import Jobs
from tuitune.tui.leaving import Leaving
from tuitune.tui.panels.cpugrid import CpuList, CpuPicked
from tuitune.tui.panels.footer import KeysFooter
from tuitune.tui.panels.headerview import HeaderView
from tuitune.tui.panels.hintline import HintLine
from tuitune.tui.panels.panels import (
    PANELS,
    Body,
    IrqDragging,
    IrqDropped,
    LiveScreen,
    TabBar,
    make_panels,
)
from tuitune.tui.panels.rowview import RowView
from tuitune.tui.scene import Baseline, irq_affinity, shown_rates
from tuitune.tui.screens.bench_view import BenchStrip
from tuitune.tui.screens.dialogs import PickerScreen
from tuitune.tui.screens.keys import keys_screen, row_screen
from tuitune.tui.shell import Selection
from tuitune.tui.view import LiveView

# What only a later key needs loads on that key, not before the first frame (issue 18):
# the lab's code (its quit question), the P view; the recording code (issue 38: a live host
# never needs the player, and a recording's reader has loaded it already).
if TYPE_CHECKING:
    from tuitune.core.lab import Lab
    from tuitune.core.session import HostAccess
    from tuitune.tui.controllers.autotune import AutotuneController
    from tuitune.tui.controllers.export import Exporter
    from tuitune.tui.controllers.replay import ReplayControl
    from tuitune.tui.controllers.sweep import SweepController

# The first rates come this long after the first sample, not a whole --interval later: live
# numbers within a second of the start (issue 18). Not mpstat's since-boot averages, which on
# a host up for weeks say nothing about now. 0.25 s is 25 jiffies a CPU (4 % steps in the
# first frame's CPU columns); the next frame is a whole interval's, as usual.
FIRST_GAP = 0.25
T = TypeVar("T")


# Keys that act on a live host only, hidden in replay (the footer shows replay's keys).
REPLAY_HIDES = frozenset(
    {"bench", "runs", "sweep", "export", "procs", "bench_stop", "autotune", "record"}
)


class TuituneApp(Leaving):
    """The live screen. It is the `Shell` (tui/shell.py) its controllers see: the editor, the
    benchmark and the export get `self` typed as that Protocol, and post messages up."""

    # The command sets it: the process is the screen's alone, so the collector's settings
    # (core/gcpolicy.py) may change once it has started. Tests run many apps in one process.
    settle_gc = False

    class SampleReady(Message):
        """A sample from the Sampler's thread."""

        def __init__(self, sample: Sample) -> None:
            super().__init__()
            self.sample = sample

    class Then(Message):
        """A worker's result, to be used on the UI thread (in_thread)."""

        def __init__(self, then: Callable[[], None]) -> None:
            super().__init__()
            self.then = then

    TITLE = "tuitune"
    ENABLE_COMMAND_PALETTE = False  # every action has its own key; ^p would only confuse
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q", "quit", "Quit"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),
        Binding("question_mark,f1", "help", "Keys"),
        # Pause and Filter are listed by ? only: at 80 columns the footer keeps what changes
        # things and the panel's own keys (the footer is cut at its right end).
        Binding("p", "pause", "Pause", show=False),
        Binding("z", "zoom", "Zoom: the focused panel over the whole screen, or back", show=False),
        Binding("slash", "filter", "Filter", show=False),
        # Also here, not only on the IRQ panel: the hint line offers it whatever has the focus.
        Binding("a", "all_irqs", "Every IRQ in the IRQ panel, or the NIC's again", show=False),
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
        Binding("w", "record", "Record: every sample to a file, w again stops", show=False),
        # m where nothing is moved (a recorded host, a replay): the panels' m is off there
        # (check_action), so the key falls through to this one, which says why. No
        # description: the keys screen lists the panels' m.
        Binding("m", "move_irq_refused", show=False),
        # Replay only (hidden on a live host): tui/controllers/replay.py
        Binding("comma", "replay_step(-1)", "Back"),
        Binding("full_stop", "replay_step(1)", "Step"),
        Binding("left_square_bracket", "replay_event(-1)", "Last change", show=False),
        Binding("right_square_bracket", "replay_event(1)", "Next change"),
        Binding("T", "replay_time", "Time"),
        # On a live host T is autotune (replay_time is off there: check_action)
        Binding(
            "T", "autotune", "Autotune: try the findings, keep what beats the noise", show=False
        ),
        Binding("greater_than_sign", "replay_speed(2)", "Twice as fast", show=False),
        Binding("less_than_sign", "replay_speed(0.5)", "Half as fast", show=False),
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
        cadence: Cadence | None = None,
    ) -> None:
        super().__init__(env, theme, save_settings)
        self.reader = reader
        self.ifname = ifname
        self.interval = interval
        self.show_cost = show_cost
        self.lab, self.lab_down = lab, lab_down  # `tuitune lab`; lab_down: tests inject it
        self.farewell_lines: list[str] = []  # what quitting kept or reverted, for the shell
        self._jobs = Jobs(lambda group, exc: self.log.error(f"in_thread {group}: {exc!r}"))
        cadence = cadence or Cadence()  # the live command's: in seconds (Cadence.in_time)
        self.sampler = Sampler(
            reader,
            ifname,
            self._deliver,
            interval,
            cadence=cadence,
            limit=limit,
            device_events=reader.root.live,
            first_gap=FIRST_GAP,
            since_boot=reader.root.live,  # numbers in the first frame, as mpstat's
        )
        # --record FILE and w: the recording, if one runs; every sample passes through it.
        self.rec = LiveRecording()
        self.sampler.wrap_delivery(self.rec.tee)
        self.record_key = RecordKey(self)
        # The state the presenters draw (tui/scene.py says what each is).
        self.sample: Sample | None = None
        self.nic: NicState | None = None
        self.host: HostState | None = None
        self.baseline: Baseline | None = None
        self.active = "cpus"
        self.grid_mode = "auto"
        self.cpu_sort = "auto"
        self.show_all_irqs = False
        self.all_affinity: dict[str, IrqAffinity] = {}
        self.notice: str | None = None
        self._notice_id = 0  # which notice is shown: its timer clears only it
        self.samples_drawn = 0
        self.panels = make_panels()
        self.header = HeaderView()  # #header
        # Grid order fills rows: CPUs | IRQs on top, NIC | sysctls below; the rows' heights
        # follow what the panels hold (LiveView.size_panels).
        self.body: Container = Body(*(self.panels[name] for name in PANELS), id="body")
        self._filter_target: RowView | None = None
        # A recorded host tree (`--root` of a capture, not made editable): what it shows is
        # as it was recorded, and nothing is written to it.
        self._host_recorded = not (reader.root.live if editable is None else editable)
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
        # `tuitune replay`: its keys (a recording's reader; None on a host)
        self.replay: ReplayControl | None = None
        player = sys.modules.get("tuitune.core.record.player")  # loaded if reader is its
        if player is not None and isinstance(reader, player.RecordingReader):
            from tuitune.tui.controllers.replay import ReplayControl

            self.replay = ReplayControl(self, reader)
        self.bench_strip = BenchStrip(id="bench-strip", look=self.look())
        self.hint = HintLine(id="hint")  # what to do next, for a first-time user
        self.editor = Editor(self, env=self.env, trial_seconds=trial_seconds)
        # B, N, X
        self.app_bench = BenchController(
            self,
            self.bench_strip,
            notebook_path=notebook_path,
            lab=lab,
            recording=self._recording_at,
        )
        # W, T and E: built on their first key (app_sweep, app_autotune, exporter below)
        self._later = (lab, notebook_path, export_root)
        # A: findings over the last seconds, in the context remembered for each interface
        self.advisor = Advisor(
            self,
            self.editor,
            dict(self.settings.config.contexts),
            self._remember,
            self.app_bench.follow,
            count_every=cadence.count_every,
            recorded=self.replay.judged if self.replay is not None else None,
        )
        self.irq_mover = IrqMover(self, self.editor)  # m: an IRQ onto the CPU under the cursor
        # P: the NIC's processes, moved beside (or away from) its IRQs
        self.procs = ProcsController(self, self.editor, reader.call, reader.root, lab=lab)
        self.grid_pick = GridPick(self, self.procs)  # g in P: its CPUs ticked in the CPU grid
        self.view = LiveView(self)

    # What the presenters read of the sampler and the recording (tui/scene.py): values.
    @property
    def recorded(self) -> bool:
        """The samples are a recording's (`tuitune replay`) or a recorded host tree's
        (`--root` of a capture): read then, not now."""
        return self.replay is not None or self._host_recorded

    @property
    def paused(self) -> bool:
        return self.sampler.paused

    @property
    def recording(self) -> str | None:
        return self.rec.badge()

    @property
    def read_only(self) -> str | None:
        return self.session.read_only

    @property
    def changed_settings(self) -> int:
        return self.session.change_count()

    # What only a key opens is built on that key, not before the first frame (issue 38).
    @cached_property
    def app_sweep(self) -> SweepController:  # W
        from tuitune.tui.controllers.sweep import SweepController

        lab, notebook_path, _ = self._later
        return SweepController(self, lab=lab, notebook_path=notebook_path)

    @cached_property
    def app_autotune(self) -> AutotuneController:
        """T: the advisor's findings tried one at a time, judged by the benchmark."""
        from tuitune.tui.controllers.autotune import AutotuneController

        lab, notebook_path, _ = self._later
        return AutotuneController(
            self, self.advisor.judged_in, lab=lab, notebook_path=notebook_path
        )

    @cached_property
    def exporter(self) -> Exporter:  # E; export_root: tests stage under tmp
        from tuitune.tui.controllers.export import Exporter

        lab, _, export_root = self._later
        return Exporter(self, export_root, lab=lab is not None)

    # -- setup ---------------------------------------------------------------------------
    def get_driver_class(self) -> type[Driver]:
        # The stock Linux driver polls for keys ten times a second; ours waits (driver.py).
        from textual.drivers.linux_driver import LinuxDriver

        from tuitune.tui.driver import QuietLinuxDriver

        stock = super().get_driver_class()
        return QuietLinuxDriver if stock is LinuxDriver else stock

    def get_default_screen(self) -> Screen[object]:
        return LiveScreen(id="_default")

    def compose(self) -> ComposeResult:
        yield self.header
        yield TabBar()
        yield self.body
        yield Input(placeholder="filter rows (Enter: keep, Esc: clear)", id="filter")
        yield self.bench_strip
        yield self.hint
        yield KeysFooter()

    def on_load(self) -> None:
        # Before the driver, the CSS and the widgets: the first read of /proc runs on the
        # sampler's thread meanwhile (on another core if there is one), and its sample waits in
        # the queue until the screen is mounted, so the first frame painted has numbers
        # (issue 18). The sampler posts thread-safely: the event loop already runs here.
        self.sampler.start()

    def on_mount(self) -> None:
        self.start_look()
        self._layout(self.size.width, self.size.height)
        self.panels["cpus"].view.focus()
        self._set_active("cpus")
        if isinstance(self.panels["cpus"].view, CpuList):
            self.panels["cpus"].view.picker = self.grid_pick
        self.view.start()
        # Only a trial change's countdown needs a clock: a second wake-up a second otherwise.
        self._countdown = self.set_interval(1.0, self._each_second, pause=True)
        if self.ifname is None:
            self.action_pick()
        self.editor.offer_restore()

    def _each_second(self) -> None:
        self.editor.tick()
        if self.editor.trial_deadline is not None:
            self.view.header()
        else:
            self._countdown.pause()

    def on_unmount(self) -> None:
        self.sampler.stop()
        self._jobs.close()
        self.end_look()

    def _on_theme(self) -> None:
        super()._on_theme()
        self.bench_strip.look = self.look()
        self.bench_strip.redraw()
        if self.sample is not None:
            self.view.redraw()

    # -- the Shell its controllers see (tui/shell.py) ------------------------------------------
    def selection(self) -> Selection:
        view = self.panels[self.active].view
        return Selection(self.ifname, self.nic, self.host, view.cursor_key, irq_affinity(self))

    def in_thread(
        self, work: Callable[[], T], then: Callable[[T], None] | None = None, *, group: str
    ) -> None:
        def back(result: T) -> None:
            if then is not None:
                # Posted, not waited for: call_from_thread held the worker until the UI thread
                # had run `then`, one more wake-up of each (issue 38).
                self.post_message(TuituneApp.Then(lambda: then(result)))

        # Started once the screen has drawn what this message changed: the advisor's count,
        # started in a sample's handler, ran beside that sample's frame, the two threads
        # taking the GIL from each other every few milliseconds (issue 38). On the pool's
        # threads, not a Textual worker each (tui/jobs.py says what that cost).
        self.call_after_refresh(self._jobs.submit, work, back, group)

    def on_tuitune_app_then(self, message: TuituneApp.Then) -> None:
        if not self.is_running:  # a result that arrives while the app shuts down
            return
        try:
            message.then()
        except Exception as exc:  # as before: a failing `then` failed its worker, not the app
            self.log.error(f"in_thread: {exc!r}")

    def show_read_back(self, outs: Sequence[Outcome]) -> None:
        self.view.show_read_back(outs)
        if self.rec.active:  # recording: each step of the change, as made
            from tuitune.core.record.recorder import journal_event  # loaded when recording

            for out in outs:
                self.record_event("journal", journal_event(out))

    def notify_line(self, text: str, warn: bool = False) -> None:
        self._notify(("! " if warn else "") + text)
        if self._procs_on_top():  # it covers the header: it says it itself
            self.procs.notice(("! " if warn else "") + text)

    def _procs_on_top(self) -> bool:
        # The P view's module loads on P: before that, no screen can be one of its.
        if "tuitune.tui.screens.procs" not in sys.modules:
            return False
        from tuitune.tui.screens.procs import ProcsScreen

        return isinstance(self.screen, ProcsScreen)

    # -- messages from the controllers -----------------------------------------------------
    def on_editor_state_changed(self, message: Editor.StateChanged) -> None:
        self.sampler.refresh_state()
        self.hint.changed(self.editor.changes)
        self._draw_hint()

    def _draw_hint(self) -> None:
        root, read_only = self.session.root, self.session.read_only
        self.hint.override = self.grid_pick.hint()
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
        self._countdown.resume()  # the header's countdown: _each_second

    def on_bench_controller_event(self, message: BenchController.Event) -> None:
        if self.rec.active:
            from tuitune.core.record.recorder import bench_event

            if (got := bench_event(message.event)) is not None:
                self.record_event("bench", got)
        self.app_bench.on_message(message)
        if self.app_bench.first_start(message):
            self.advisor.run_started()  # the findings' window is now the run
            # The benchmark's own sockets, read each tick for the advisor's window.
            self.sampler.want_connections("run", True)

    def on_bench_controller_ended(self, message: BenchController.Ended) -> None:
        self.app_bench.on_message(message)
        self.advisor.run_ended()
        self.sampler.want_connections("run", False)

    def on_bench_controller_recorded(self, message: BenchController.Recorded) -> None:
        self.app_bench.on_message(message)
        if not message.problem:
            self.hint.run_recorded(self.editor.changes)
            self._draw_hint()

    def on_autotune_controller_news(self, message: AutotuneController.News) -> None:
        self.app_autotune.on_message(message)

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
        state = self.view.take(s)  # into the state the presenters and the advisor read
        self.advisor.feed(s)  # before the header is drawn: it shows the advisor's count
        self.view.redraw(state=state)
        self.editor.check_drift()  # every sample: it reads only what tuitune changed
        self.app_bench.on_sample(s)  # a benchmark's per-CPU peaks
        self.hint.sampled(s.rates, self.nic, self.app_bench.running)
        self._draw_hint()
        self.sample_drawn()  # counts it (tui/hostview.py)
        if self.samples_drawn == 3 and self.settle_gc:  # the first live rates: started
            self.call_after_refresh(gcpolicy.settle)
        elif self.settle_gc and self.samples_drawn % gcpolicy.TRIM_EVERY == 0:
            self.call_after_refresh(gcpolicy.trim)  # what later imports and caches freed
        # The next sample waits for this one to reach the screen.
        self.call_after_refresh(self.sampler.ack)

    # -- the panels' messages --------------------------------------------------------------
    def on_row_view_cursor_moved(self, message: RowView.CursorMoved) -> None:
        for name, panel in self.panels.items():
            if panel.view is message.view:  # a form's list over the screen is not a panel
                self.view.cursor_moved(name)

    def on_row_view_laid_out(self, message: RowView.LaidOut) -> None:
        if self.sample is None:
            return  # the first sample will be drawn at the width it has now
        if any(panel.view is message.view for panel in self.panels.values()):
            # All of it: rows built at the real width can be more or fewer, and the wide
            # layout sizes its panels by their rows (size_panels).
            self.view.redraw()

    def on_cpu_picked(self, message: CpuPicked) -> None:
        """A heat-map cell was clicked: the CPU list's cursor goes to that CPU."""
        view = self.panels["cpus"].view
        view.focus()
        view.move_cursor_to(f"cpu:{message.cpu}")

    def on_irq_dragging(self, message: IrqDragging) -> None:
        self.view.dragging(self.irq_mover.dragging(message.irq, message.cpu))

    def on_irq_dropped(self, message: IrqDropped) -> None:
        self.view.drag_text = None
        self.irq_mover.dropped(message.irq, message.cpu)

    # -- actions ---------------------------------------------------------------------------
    def action_help(self) -> None:
        self.push_screen(keys_screen(TuituneApp.BINDINGS, self.theme_problems))

    def action_info(self) -> None:
        screen = row_screen(self.panels[self.active].view)
        if screen is None:
            self._notify("nothing to explain on this line")
        else:
            self.push_screen(screen)

    def action_pause(self) -> None:
        self.sampler.pause(not self.sampler.paused)
        self.view.header()

    def action_baseline(self) -> None:
        self.editor.forget_compare()  # "was" notes now count from the new baseline
        notice = self.view.toggle_baseline()
        self.sampler.set_baseline(self.baseline is not None)
        self._notify(notice)

    def action_grid_view(self) -> None:
        self._notify(self.view.grid.next_mode())

    def action_cpu_sort(self) -> None:
        self._notify(self.view.grid.next_sort())

    def action_all_irqs(self) -> None:
        self.show_all_irqs = not self.show_all_irqs
        self.sampler.set_all_irqs(self.show_all_irqs)
        self.view.irqs()

    def action_reread(self) -> None:
        self.sampler.refresh_state()
        self._notify("re-reading the NIC and host state")

    def action_next_theme(self) -> None:
        self._notify(self.next_theme())

    def action_pick(self) -> None:
        summaries = self.reader.interface_summaries()

        def picked(name: str | None) -> None:
            if name is None or name == self.ifname:
                return
            self.ifname = name
            self.nic = None
            self.sampler.ifname = name
            self.sampler.refresh_state()
            self.view.redraw()

        self.push_screen(PickerScreen(summaries), picked)

    def action_runs(self) -> None:
        self.app_bench.open_runs()
        self.hint.runs_opened()
        self._draw_hint()

    def on_procs_controller_pick_in_grid(self, message: ProcsController.PickInGrid) -> None:
        self.grid_pick.start(message.proc)

    def on_grid_pick_changed(self, message: GridPick.Changed) -> None:
        if message.started:
            self.action_panel("cpus")
        self.view.grid.ticked = self.grid_pick.cpus
        self.view.grid.draw()
        self._draw_hint()

    def action_procs(self) -> None:
        if self.ifname is None:
            self.notify_line("no interface picked (n picks one)", True)
            return
        from tuitune.tui.screens.procs import ProcsScreen

        self.push_screen(ProcsScreen(self.procs, self.interval))

    def action_move_irq_refused(self) -> None:
        """m where nothing is written: one line saying why, nothing asked."""
        self.notify_line(f"m: no IRQ is moved here: {self.session.read_only}", True)

    def action_move_irq(self) -> None:
        irqs, cpus = self.panels["irqs"].view, self.panels["cpus"].view
        self.irq_mover.move(irqs.cursor_key, cpus.cursor_key, shown_rates(self))

    def _remember(self, ifname: str, context: str) -> None:
        """The Advisor's context of an interface, kept in the settings file with the theme."""
        err = self.settings.remember(ifname, context)
        if err:
            self.notify_line(err, True)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Typing in the filter box must not trigger one-letter keys.
        typing = isinstance(self.focused, Input)
        if typing and action not in ("quit", "clear_filter", "next_panel"):
            return False
        if action.startswith("replay_"):
            return self.replay is not None  # the footer shows them in replay only
        if action == "move_irq_refused":
            return bool(self.session.read_only)  # what m says where the panels' m is off
        if self.replay is not None and action in REPLAY_HIDES:
            return False  # nothing to measure or export on a recording: room for its keys
        if action in EDIT_ACTIONS and self.session.read_only:
            # Replay: hidden, the footer is the replay keys'. Else shown greyed out in the
            # footer; the header says why.
            return False if self.replay is not None else None
        return True

    def record_event(self, kind: str, value: dict[str, object]) -> None:
        """A journal step or a benchmark event into the recording, when one runs (a sweep's
        steps too: tui/controllers/sweep.py)."""
        self.rec.event(kind, value)

    def _recording_at(self) -> tuple[str, float] | None:
        """The recording's file and seconds into it now (None: not recording, or before its
        first sample): each benchmark run's notebook entry names its window."""
        name, at = self.rec.path(), self.rec.now()
        return None if name is None or at is None else (name, at)

    def action_record(self) -> None:
        self.record_key.toggle()
        self.view.header()

    def action_replay_step(self, by: int) -> None:
        if self.replay is not None:
            self.replay.step(by)

    def action_replay_event(self, direction: int) -> None:
        if self.replay is not None:
            self.replay.event(direction)

    def action_replay_time(self) -> None:
        if self.replay is not None:
            self.replay.ask_time()

    def action_replay_speed(self, factor: float) -> None:
        if self.replay is not None:
            self.replay.faster(factor)


add_delegated_actions(TuituneApp)  # u, R, y, B, W, X, E, A... (tui/delegated.py)
