"""Benchmarks from the live screen: the form (B), the run in the bottom strip, the notebook
(N). The app's side of tuitune.core.bench, like app_edit.py is the app's side of the journal.

The runner calls back on its own thread: every event goes up to the App as a typed message
(`BenchController.Event`, then `Ended`; post_message is thread-safe and never blocks the
runner, and one queue keeps them in order), and the App hands it back to `on_message` here.
Reading the settings a run ran with (netlink, ethtool, dozens of files) and writing the
notebook happen in thread workers, never on the event loop. While a repeat runs, each sample
the app draws also feeds a LoadTracker, so the result keeps tuitune's own per-CPU peaks
beside iperf3's numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from tuitune.core.cpulist import format_cpulist
from tuitune.core.session import Session
from tuitune.core.session.settings import Key
from tuitune.core.watch.sampler import Sample
from tuitune.tui.screens.bench_view import STOP_KEY, BenchStrip, LiveRun
from tuitune.tui.shell import Shell

# tuitune.core.bench (the runner, iperf3's parser, the notebook) loads at the first B or N,
# or when a benchmark's message arrives: the live screen starts without it (issue 18).
if TYPE_CHECKING:
    from tuitune.core.bench.load import LoadTracker
    from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad
    from tuitune.core.bench.notebook import Notebook
    from tuitune.core.bench.runner import BenchEvent, BenchRunner
    from tuitune.core.lab import Lab
    from tuitune.tui.screens.bench_form import FormDefaults


class BenchController:
    """The benchmark's side of the screen: `strip` is the App's BenchStrip, `lab` the lab of
    `tuitune lab` (its peer is the default server)."""

    class Event(Message):
        """A runner event (Started, IntervalEvent, Finished), posted from the runner's thread."""

        def __init__(self, event: BenchEvent) -> None:
            super().__init__()
            self.event = event

    class Ended(Message):
        """`runner` has ended; posted after its last Event."""

        def __init__(self, runner: BenchRunner) -> None:
            super().__init__()
            self.runner = runner

    class Recorded(Message):
        """The notebook writer's news: run `rid` is in `path`, or `problem` says why not."""

        def __init__(self, rid: str = "", path: str = "", problem: str = "") -> None:
            super().__init__()
            self.rid, self.path, self.problem = rid, path, problem

    def __init__(
        self,
        shell: Shell,
        strip: BenchStrip,
        *,
        notebook_path: Path | None = None,
        lab: Lab | None = None,
        recording: Callable[[], tuple[str, float] | None] | None = None,
    ) -> None:
        self.shell = shell
        # --record: (the recording's file, seconds into it now); each run's notebook entry
        # names the file and its window, for `advise --recording FILE --from --to`.
        self.recording = recording
        self._rec_from: tuple[str, float] | None = None
        self.session: Session = shell.session
        self.lab = lab
        self.notebook_path = notebook_path  # None: the default file of the watched interface
        self.command: Sequence[str] | None = None  # tests: replay a recorded iperf3 output
        self.runner: BenchRunner | None = None
        self.live: LiveRun | None = None
        self.tracker: LoadTracker | None = None
        self.last_spec: BenchSpec | None = None
        self.settings: dict[str, str] = {}
        self.recorded: list[str] = []  # run ids written for the request under way
        self._started = ""
        self._ifname = ""  # the interface and notebook of the request under way: picking
        self._notebook: Notebook | None = None  # another interface mid-run changes neither
        self._strip = strip
        strip.on_stop = self.stop  # the app is leaving: stop iperf3
        # Notebook writes, one at a time and in order: a later repeat names the first's id
        # as its group, so it must not be written before it.
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="tuitune-notebook")
        self._group = ""
        # The Advisor's finding applied last (id, what it did, its keys): the next request's
        # runs are tagged with it, while its change still holds.
        self.after: tuple[str, str, frozenset[Key]] | None = None
        self._tags: dict[str, str] = {}

    def follow(self, finding: str, what: str, keys: frozenset[Key]) -> None:
        """A finding's change was applied: the next benchmark run measures it."""
        self.after = (finding, what, keys)

    @staticmethod
    def first_start(message: Event) -> bool:
        """The message starts a request's first repeat (the Advisor's window becomes the run)."""
        from tuitune.core.bench.runner import Started

        return isinstance(message.event, Started) and message.event.repeat == 0

    def _after_tags(self) -> dict[str, str]:
        """The tags of a request starting now, and the finding is used up. A finding whose
        change was undone since (none of its settings still held) is dropped."""
        after, self.after = self.after, None
        if after is None:
            return {}
        finding, what, keys = after
        from tuitune.core.bench.runtable import AFTER_CHANGE_TAG, AFTER_TAG

        if not keys & set(self.session.originals()):  # those already at their value are not
            return {}
        return {AFTER_TAG: finding, AFTER_CHANGE_TAG: what}

    # -- pieces ------------------------------------------------------------------------------
    def strip(self) -> BenchStrip:
        return self._strip

    def notebook(self) -> Notebook:
        from tuitune.core.bench.notebook import Notebook

        if self.notebook_path is not None:
            return Notebook(self.notebook_path)
        netns = self.session.root.netns
        ifname = self.shell.selection().ifname
        return Notebook(Notebook.default_path(ifname or "none", netns=netns))

    @property
    def running(self) -> bool:
        return self.runner is not None

    def _server_hint(self) -> str | None:
        """The exact command that starts the lab's server, for a "refused" error."""
        lab = self.lab
        if lab is None:
            return None
        return f"ip netns exec {lab.peer_netns} iperf3 -s -B {lab.peer_addr} -p {lab.port} -D"

    # -- B: the form -------------------------------------------------------------------------
    def open_form(self) -> None:
        app = self.shell
        if self.running:
            app.notify_line(f"a benchmark is running: {STOP_KEY} stops it", True)
            return
        if app.selection().ifname is None:
            app.notify_line("pick an interface first (n): the notebook is kept per interface", True)
            return
        # The form's and the runs table's screens load at their first B or N, not with the
        # live screen (issue 18, goal 5).
        from tuitune.tui.screens.bench_form import BenchFormScreen

        app.push_screen(BenchFormScreen(self.defaults()), self._submitted)

    def defaults(self) -> FormDefaults:
        """The last request of this session, else the user's last run in the notebook, else
        iperf3's defaults; the lab's peer whenever a lab is set. A sweep's cells (3 s x 2)
        never set them: every later run would differ from the baseline in its test."""
        from tuitune.core.bench.engines.base import version_of
        from tuitune.core.bench.engines.iperf3 import IPERF3, threaded
        from tuitune.core.bench.iperf import find_iperf3
        from tuitune.core.bench.model import BenchSpec
        from tuitune.tui.screens.bench_form import FormDefaults

        sel = self.shell.selection()
        root = self.session.root
        spec = self.last_spec
        if spec is None:
            try:
                runs = self.notebook().runs()
            except (OSError, ValueError):
                runs = []
            own = [r for r in runs if "sweep" not in r.tags]
            spec = own[-1].spec if own else BenchSpec(peer="")
        lab = self.lab
        peer_hint = "a host running `iperf3 -s` (start it there first)"
        server_online = None
        if lab is not None:
            spec = replace(spec, peer=lab.peer_addr, port=lab.port)
            peer_hint = f"the lab's peer {lab.peer_addr} (its iperf3 server runs already)"
        online = sel.host.topology.online if sel.host is not None else None
        if lab is not None:
            server_online = online  # the lab's peer is this machine
        netns = root.netns
        spec = replace(spec, netns=netns)
        notes = []
        if lab is not None:
            notes.append(
                f"the lab's peer {lab.peer_addr} runs an iperf3 server in {lab.peer_netns}"
            )
        iperf3 = find_iperf3()
        if self.command is None and iperf3 is None:
            notes.append("iperf3 is not installed here: apt install iperf3")
        # iperf3 3.16 and later give each stream a thread; before, one process per stream.
        threads = iperf3 is not None and threaded(version_of(IPERF3, iperf3))
        if not root.live:
            notes.append("a recorded host tree: the run measures this machine, not that host")
        return FormDefaults(
            spec=spec,
            peer_hint=peer_hint,
            cpu_hint=self._cpu_hint(),
            online=online,
            server_online=server_online,
            netns=netns,
            note="; ".join(notes),
            processes_by_default=not threads,
        )

    def _cpu_hint(self) -> str:
        """Where the NIC's interrupts land, so the user can pin iperf3 elsewhere (the seeds'
        lever: the application on the IRQ's core starves its softirq)."""
        sel = self.shell.selection()
        nic, ifname = sel.nic, sel.ifname
        pin = "iperf3 -A client,server pins them"
        if nic is None or not nic.irqs:
            return f"{ifname} has no IRQs of its own; {pin}"
        cpus: set[int] = set()
        for q in nic.irqs:
            aff = nic.irq_affinity.get(q.irq)
            if aff is None:
                continue
            for got in (aff.effective, aff.smp_affinity):
                if isinstance(got, frozenset) and got:
                    cpus |= got
                    break
        if not cpus:
            return pin
        return f"{ifname}'s IRQs land on CPU {format_cpulist(frozenset(cpus))}: pin away ({pin})"

    def _submitted(self, spec: BenchSpec | None) -> None:
        if spec is not None:
            self.start(self._pinned(spec))

    def _pinned(self, spec: BenchSpec) -> BenchSpec:
        """Stream processes pinned beside the NIC's queues, as `tuitune bench` pins them,
        unless the client CPU was given (then every process runs there)."""
        from tuitune.core.bench.placement import pick_stream_cpus

        if not spec.processes or spec.stream_cpus or spec.client_cpu is not None:
            return spec
        sel = self.shell.selection()
        online = sel.host.topology.online if sel.host is not None else frozenset()
        return replace(spec, stream_cpus=pick_stream_cpus(sel.nic, frozenset(online), spec.streams))

    # -- a run -----------------------------------------------------------------------------
    def start(self, spec: BenchSpec) -> None:
        from tuitune.core.bench.runner import BenchRunner

        self.last_spec = spec
        self.live = LiveRun(spec)
        self.recorded = []
        self._group = ""
        self._tags = self._after_tags()
        self._ifname = self.shell.selection().ifname or ""
        self._notebook = self.notebook()
        self.strip().show_run(self.live)
        # A placeholder, so B refuses a second run while the settings are read.
        self.runner = BenchRunner(
            spec, self._on_event, command=self.command, server_hint=self._server_hint()
        )
        runner = self.runner
        ifname = self._ifname
        self.shell.in_thread(
            lambda: self._capture(ifname),
            lambda got: self._go(runner, *got),
            group="bench",
        )

    def _capture(self, ifname: str) -> tuple[dict[str, str], str]:
        """The settings the run runs with (worker thread)."""
        from tuitune.core.bench.settings import capture, capture_peer

        try:
            settings = capture(self.session.access(), ifname)
        except Exception as exc:  # a reading problem must not stop the benchmark
            return {}, f"settings not read ({exc})"
        lab = self.lab
        if lab is not None:  # the far end is on this machine: record it too
            try:
                settings.update(capture_peer(lab.peer_netns, lab.peer_ifname))
            except Exception as exc:
                return settings, f"the peer's settings not read ({exc})"
        return settings, ""

    def _go(self, runner: BenchRunner, settings: dict[str, str], problem: str) -> None:
        if self.runner is not runner or self.live is None:
            return  # stopped while the settings were read
        self.settings = settings
        if problem:
            self.live.note = problem
        shell = self.shell
        lab, spec = self.lab, runner.spec
        needs_servers = lab is not None  # the lab's servers, or its daemon's command line
        if not needs_servers:
            runner.start()

        def waiter() -> None:
            if needs_servers and lab is not None:
                from tuitune.core.bench.engines import get
                from tuitune.core.lab.servers import serve
                from tuitune.core.lab.state import LabError

                try:  # the lab's servers for this run, stopped when it ends
                    with serve(lab, spec, get(spec.engine)) as servers:
                        runner.set_server_commands(servers.commands)
                        runner.start()
                        runner.wait()
                except LabError as exc:
                    runner.fail(f"{exc}; nothing was run")
            else:
                runner.wait()
            # Posted from here, after the runner posted its last event: the same queue.
            shell.post_message(BenchController.Ended(runner))

        shell.in_thread(waiter, group="bench")

    def _on_event(self, event: BenchEvent) -> None:
        self.shell.post_message(BenchController.Event(event))  # runner thread

    def on_message(self, message: Event | Ended | Recorded) -> None:
        """The App hands back what this controller posted (UI thread)."""
        if isinstance(message, BenchController.Event):
            self._event(message.event)
        elif isinstance(message, BenchController.Ended):
            self._all_done(message.runner)
        elif message.problem:
            self._set_note(f"not recorded: {message.problem}")
        else:
            self._recorded(message.rid, message.path)

    def _event(self, event: BenchEvent) -> None:
        from tuitune.core.bench.load import LoadTracker
        from tuitune.core.bench.model import CpuLoad
        from tuitune.core.bench.placement import run_placement
        from tuitune.core.bench.runner import Finished, IntervalEvent, Started

        live = self.live
        if live is None:
            return
        stopped = live.state == "cancelled"  # events already queued when X was pressed
        if isinstance(event, Started):
            live.repeat = event.repeat + 1
            live.state = live.state if stopped else "running"
            live.intervals = []
            self.tracker = LoadTracker()
            self._started = datetime.now().astimezone().isoformat(timespec="seconds")
            self._rec_from = self.recording() if self.recording is not None else None
        elif isinstance(event, IntervalEvent):
            live.state = live.state if stopped else "running"
            live.add(event.interval)
            live.streams = event.streams
        elif isinstance(event, Finished):
            load = self.tracker.result() if self.tracker is not None else CpuLoad()
            self.tracker = None
            placed = run_placement(self.lab, self.shell.selection().nic, live.spec)
            live.results.append(event.result)
            live.loads.append(load)
            if event.result.error:  # the runner's words: what failed, what was measured
                live.message = event.result.error
            self._record(event.result, load, placed)
        self.strip().redraw()

    def _all_done(self, runner: BenchRunner) -> None:
        if self.runner is not runner:
            return
        self.runner = None
        self.tracker = None
        live = self.live
        if live is None:
            return
        if live.state != "cancelled":
            failed = any(r.error or not r.complete for r in live.results) or not live.results
            live.state = "failed" if failed else "done"
            if not live.results and not live.message:
                live.message = "iperf3 ended without a result"
        self.strip().redraw()

    def _record(self, result: BenchResult, load: CpuLoad, placed: dict[str, str]) -> None:
        """One finished repeat into the notebook (written on the writer thread); incomplete
        ones are only shown: a half run would skew the medians."""
        from tuitune.core.bench.model import Run

        live, notebook = self.live, self._notebook
        if live is None or notebook is None:
            return
        if result.error or not result.complete:
            self._set_note("not recorded (incomplete)")
            return
        # Where the lab's server sat: one more setting, so the table names it.
        spec, settings, started = live.spec, dict(self.settings) | placed, self._started
        tags = dict(self._tags) | self._recording_tags()
        ifname = self._ifname
        request = self.live
        shell = self.shell

        def job() -> None:
            try:
                rid = notebook.next_id()
                group = self._group if self.live is request and self._group else rid
                run = Run(rid, group, ifname, started, spec, result, load, settings, tags)
                notebook.add(run)
            except (OSError, ValueError) as exc:
                shell.post_message(BenchController.Recorded(problem=str(exc)))
                return
            if self.live is request:
                self._group = group
            shell.post_message(BenchController.Recorded(rid, str(notebook.path)))

        self._writer.submit(job)

    def _recording_tags(self) -> dict[str, str]:
        """Where this repeat is in the screen's recording (none when not recording)."""
        start, end = self._rec_from, self.recording() if self.recording is not None else None
        if start is None or end is None or start[0] != end[0]:
            return {}
        from tuitune.core.record.recorder import window_tags

        return window_tags(end[0], start[1], end[1])

    def _recorded(self, rid: str, path: str) -> None:
        live = self.live
        if live is None:
            return
        if not live.group:
            live.group = rid
        self.recorded.append(rid)
        ids = f" {self.recorded[0]}..{self.recorded[-1]}" if len(self.recorded) > 1 else ""
        self._set_note(f"recorded{ids} (N: runs)")

    def _set_note(self, text: str) -> None:
        if self.live is not None:
            self.live.note = text
            self.strip().redraw()

    # -- X: stop or close ---------------------------------------------------------------------
    def stop_or_close(self) -> None:
        if self.runner is not None:
            if self.live is not None:
                self.live.state = "cancelled"
                self.live.message = "stopped by you: the numbers are what was measured up to then"
            self.stop()
            self.strip().redraw()
            return
        if self.live is not None:
            self.live = None
            self.strip().show_run(None)
            return
        self.shell.notify_line("no benchmark running (B starts one)", True)

    def stop(self) -> None:
        """Stop iperf3 (the app is leaving, or the user asked)."""
        runner = self.runner
        if runner is not None:
            runner.cancel()

    # -- the sample handler --------------------------------------------------------------------
    def on_sample(self, sample: Sample) -> None:
        if self.tracker is not None:
            self.tracker.add(sample)

    # -- N: the notebook -----------------------------------------------------------------------
    def open_runs(self) -> None:
        shell = self.shell
        if shell.selection().ifname is None and self.notebook_path is None:
            shell.notify_line(
                "pick an interface first (n): the notebook is kept per interface", True
            )
            return
        from tuitune.tui.screens.runs import RunsScreen

        shell.push_screen(RunsScreen(self.notebook(), shell.look()))
