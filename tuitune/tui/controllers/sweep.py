"""Sweeps from the live screen (W): the app's side of tuitune.core.sweep, as bench.py is of
the benchmark. The sweep runs on a worker thread through the screen's own Session (its
journal: one writer a host), on a reader of its own for its sampler; every line and every
table it produces goes up to the App as a `SweepController.News` message, which the App hands
back to `on_message` here to draw on the sweep screen.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from textual.message import Message

from tuitune.core.session.settings import Key
from tuitune.tui.controllers.host_wide import ask_host_wide
from tuitune.tui.shell import Shell

# The sweep's code and screen load when W is pressed, not with the live screen (its start-up,
# issue 18 goal 2).
if TYPE_CHECKING:
    from tuitune.core.bench.notebook import Notebook
    from tuitune.core.lab import Lab
    from tuitune.core.sweep.pivot import Pivot
    from tuitune.core.sweep.runner import SweepOutcome, SweepRunner
    from tuitune.core.sweep.spec import SweepSpec
    from tuitune.tui.screens.sweep import SweepScreen

DEMO = {"dim1": "tso = on | off", "dim2": "mtu = 1500 | 9000", "design": "grid"}


class SweepController:
    class News(Message):
        """From the sweep's thread: a progress `line`, a `table` so far, or the `outcome`."""

        def __init__(
            self,
            line: str = "",
            table: Pivot | None = None,
            outcome: SweepOutcome | None = None,
            problem: str = "",
        ) -> None:
            super().__init__()
            self.line, self.table, self.outcome, self.problem = line, table, outcome, problem

    def __init__(self, shell: Shell, *, lab: Lab | None = None, notebook_path: Path | None = None):
        self.shell = shell
        self.lab = lab
        self.notebook_path = notebook_path
        self.runner: SweepRunner | None = None
        self.screen: SweepScreen | None = None
        self.last: dict[str, str] = {}
        self._cell = ""  # the cell being measured ("[2/4] tso off, mtu 1500")

    @property
    def running(self) -> bool:
        return self.runner is not None

    def open(self) -> None:
        from tuitune.tui.screens.sweep import SweepDefaults, SweepScreen

        shell = self.shell
        if shell.selection().ifname is None:
            shell.notify_line("pick an interface first (n): a sweep measures one", True)
            return
        values = {"repeats": "2", "seconds": "3", **DEMO, **self.last}
        if self.lab is not None:
            values["peer"] = self.lab.peer_addr
        note = "the lab: settings marked both (the MTU) are set at the peer's end too"
        screen = SweepScreen(
            SweepDefaults(values, note if self.lab is not None else ""),
            shell.look(),
            self.start,
            self.stop,
        )
        self.screen = screen
        shell.push_screen(screen)

    def notebook(self, ifname: str) -> Notebook:
        from tuitune.core.bench.notebook import Notebook

        if self.notebook_path is not None:
            return Notebook(self.notebook_path)
        return Notebook(Notebook.default_path(ifname, netns=self.shell.session.root.netns))

    # -- Enter: check, then run ------------------------------------------------------------------
    def start(self, fields: dict[str, str]) -> str | None:
        """None when the sweep started, else one line saying why not (nothing changed)."""
        from tuitune.core.sweep import pivot as pivots
        from tuitune.core.sweep import spec as specfile
        from tuitune.core.sweep.form import from_form
        from tuitune.core.sweep.runner import SweepError, SweepRunner, Target, sweep_runs
        from tuitune.core.watch.hostreader import HostReader

        if self.runner is not None:
            return "a sweep is running"
        self.last = {k: v for k, v in fields.items() if k != "peer"}
        try:
            path = fields.get("spec", "").strip()
            if path:
                spec = specfile.load(Path(path))
            else:
                dims = [fields.get(f"dim{i}", "") for i in (1, 2, 3)]
                spec = from_form(
                    dims,
                    design=fields.get("design", "grid"),
                    repeats=fields.get("repeats", "2"),
                    seconds=fields.get("seconds", "3"),
                )
        except specfile.SpecError as exc:
            return str(exc)
        session = self.shell.session
        if session.pending:
            return (
                "changes of yours are pending: undo (u) or revert them (R) first; a sweep "
                "puts back everything the journal holds"
            )
        ifname = self.shell.selection().ifname
        peer = fields.get("peer", "").strip()
        if ifname is None:
            return "pick an interface first (n)"
        if not peer:
            return "peer: name the host running `iperf3 -s` (or start `tuitune lab`)"
        lab = self.lab
        target = Target.in_lab(ifname, peer, session.root.netns, lab)
        notebook = self.notebook(ifname)
        shell = self.shell

        def go() -> None:
            if self.runner is not None:
                return
            reader = HostReader(session.root)
            runner = SweepRunner(spec, session, reader, target, notebook, say=self._say)
            # Under --record, the sweep's setting changes are journal steps in the screen's
            # recording, as the screen's own changes are (docs/recording.md).
            runner.on_journal = getattr(shell, "record_event", None)
            self.runner = runner

            def work() -> None:
                try:
                    with reader:
                        out = runner.run()
                    table = pivots.build(spec, out.sweep_id, sweep_runs(notebook, out.sweep_id))
                    shell.post_message(SweepController.News(table=table, outcome=out))
                except SweepError as exc:
                    shell.post_message(SweepController.News(problem=str(exc)))
                except Exception as exc:  # a traceback is never the user's answer
                    shell.post_message(SweepController.News(problem=f"the sweep failed: {exc}"))

            shell.in_thread(work, group="sweep")

        def no() -> None:
            shell.post_message(
                SweepController.News(problem="not started: it would change the whole host")
            )

        # The screen's session may write the host's settings from a namespace (it asks
        # before each); a sweep writes many, so it asks once, before the first.
        ask_host_wide(shell, spec_keys(spec, ifname), go, no)
        self._cell = "checking every cell on this host before the first change ..."
        return None

    def _say(self, line: str) -> None:  # the sweep's thread
        self.shell.post_message(SweepController.News(line=line))
        runner = self.runner
        if runner is not None and line.startswith("["):
            self._table_so_far(runner)

    def _table_so_far(self, runner: SweepRunner) -> None:
        """The cells measured so far, drawn while the next one runs (the sweep's thread)."""
        from tuitune.core.sweep import pivot as pivots
        from tuitune.core.sweep.runner import sweep_runs

        try:
            sid = next(
                (r.tags["sweep"] for r in reversed(runner.notebook.runs()) if "sweep" in r.tags),
                None,
            )
            if sid is None or not sid.startswith(f"{runner.spec.name}-"):
                return
            table = pivots.build(runner.spec, sid, sweep_runs(runner.notebook, sid))
        except (OSError, ValueError):
            return
        self.shell.post_message(SweepController.News(table=table))

    def refuse_quit(self) -> None:
        """Quitting mid-sweep would revert under the sweep's feet: stop it first."""
        text = "a sweep is running: X stops it (every original goes back), then quit"
        if self.screen is not None and self.screen.is_attached:
            self.screen.status(text)
        else:
            self.shell.notify_line(text, True)

    def stop(self) -> None:
        if self.runner is not None:
            self.runner.cancel()

    # -- back on the UI thread ------------------------------------------------------------------
    def on_message(self, news: SweepController.News) -> None:
        screen = self.screen
        if news.outcome is not None or news.problem:
            self.runner = None
        if screen is None:
            return
        if news.problem:
            screen.finished("", None)
            screen.action_edit()
            screen.error(news.problem)
            return
        if news.outcome is not None:
            out = news.outcome
            cells = out.cells[:-1] if out.interrupted else out.cells  # the stopped one
            failed = sum(1 for c in cells if c.error)
            if out.problems:
                end = f"NOT put back: {out.problems[0]} (`tuitune restore`)"
            else:
                end = "every original is back"
            how = "interrupted; " if out.interrupted else ""
            bad = f"{failed} cell(s) failed; " if failed else ""
            screen.finished(f"sweep {out.sweep_id}: {how}{bad}{end}", news.table)
            return
        if news.table is not None:
            screen.show(news.table)
        line = news.line.strip()
        if line.startswith("["):
            self._cell = line
        if line:
            screen.status(f"{self._cell}  {line}" if line != self._cell else line)


def spec_keys(spec: SweepSpec, ifname: str) -> list[Key]:
    """The settings a sweep of `spec` writes on `ifname`'s host (test parameters and the IRQ
    plan aside: neither is ever a whole host's)."""
    from tuitune.core.sweep.spec_cpus import IRQ_PLAN

    return [
        Key(s.kind, ifname, s.field)
        for d in spec.dimensions
        for v in d.values
        for s, _text in v.settings
        if s.kind is not None and s != IRQ_PLAN
    ]
