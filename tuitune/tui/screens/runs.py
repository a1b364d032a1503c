"""The notebook (key N): one row per request, what differs from the baseline by name, and
what that did to throughput, retransmits and CPU; a compare view of two runs; Markdown and
CSV written next to the notebook file.

Rows come from the core (`Notebook.table()`); `runs_rows` turns them into RowView rows, a
pure function the snapshot and the tests pin down. Every delta carries its sign, so better or
worse reads without colour; colour (success/error of the theme) only repeats it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.events import Click
from textual.widgets import Static

from tuitune.core.bench.model import Run
from tuitune.core.bench.notebook import Notebook, write_beside
from tuitune.core.bench.runformat import compare, to_csv, to_markdown
from tuitune.core.bench.runtable import RunRow, Spread
from tuitune.core.bench.settings import diff
from tuitune.core.text import printable
from tuitune.tui.look.glyphs import Glyphs
from tuitune.tui.look.look import DEFAULT_LOOK, Look
from tuitune.tui.look.palette import DEFAULT_PALETTE, Palette
from tuitune.tui.panels.rowview import CellValue, Column, Row, RowView
from tuitune.tui.screens.box import BoxScreen

COLUMNS = [
    Column("", 4),  # "base" or the mark of a run picked for compare
    Column("run", 5),
    # What changed matters most: on a narrow screen the spread, the repeats and the
    # retransmit delta go first (the line under the table still has the changes in full).
    Column("what changed", 20, flex=True),
    Column("Mb/s", 7, right=True),
    Column("range", 11, right=True, drop=3),
    Column("vs base", 8, right=True),
    Column("retr", 7, right=True),
    Column("vs base", 8, right=True, drop=2),
    Column("CPU%", 5, right=True),
    Column("vs base", 8, right=True, drop=1),
    Column("n", 3, right=True, drop=4),
]


def _mbps(v: float | None) -> str:
    return "-" if v is None else f"{v / 1e6:.0f}"


def _range(s: Spread) -> str:
    if s.low is None or s.high is None or s.low == s.high:
        return ""
    return f"{s.low / 1e6:.0f}..{s.high / 1e6:.0f}"


def _delta(value: float | None, unit: str, higher_is_better: bool, p: Palette) -> CellValue:
    """ "+12.3%" in the colour of better or worse; the sign says it without colour."""
    if value is None:
        return ""
    digits = 1 if unit == "%" else 0
    text = f"{value:+.{digits}f}{unit}"
    if round(value, digits) == 0:
        return ((text, p.muted),)
    better = (value > 0) == higher_is_better
    return ((text, p.on if better else p.off),)


def _changes(row: RunRow, base_spec: str, p: Palette) -> CellValue:
    # First what tells this row from its neighbours (a cut column keeps that): a sweep cell's
    # values, then what differs from the run before, then the comparison with the baseline.
    lead: list[tuple[str, Style | None]] = []
    if row.cell:
        lead.append((f"[{row.cell}] ", p.section))
    if row.previous:
        lead.append((f"{row.previous} | ", None))
    if row.baseline:
        return (*lead, ("the baseline", p.muted))
    if row.test_differs:  # its numbers are not compared with the baseline's
        return (*lead, (f"test differs: {row.test_differs}", p.warn))
    text = row.changes or "same settings"
    spans: list[tuple[str, Style | None]] = [*lead, (text, None if row.changes else p.muted)]
    if row.spec != base_spec:  # another test, not only other settings: say which
        spans.append((f" [{row.spec}]", p.warn))
    if row.complete < row.repeats:
        spans.append((f" ({row.repeats - row.complete} failed)", p.warn))
    return tuple(spans)


def runs_rows(
    rows: Sequence[RunRow], marked: Sequence[str], g: Glyphs, p: Palette = DEFAULT_PALETTE
) -> list[Row]:
    out = []
    base_spec = next((r.spec for r in rows if r.baseline), "")
    for r in rows:
        if r.baseline:
            mark: CellValue = (("base", p.section),)
        elif r.group in marked:
            mark = ((f" {g.on}", p.changed),)
        else:
            mark = ""
        retr = r.retransmits.median
        latency = r.throughput.median is None and r.latency.median is not None
        cells: tuple[CellValue, ...] = (
            mark,
            r.group,
            _changes(r, base_spec, p),
            # A latency run (sockperf): its round trip where the throughput goes; its change
            # is good when it falls.
            f"rtt {r.latency.median:.1f} us"
            if latency and r.latency.median
            else _mbps(r.throughput.median),
            _range(r.throughput) if not latency else "",
            (
                ""
                if r.baseline
                else _delta(r.d_latency, "%", False, p)
                if latency
                else _delta(r.d_throughput, "%", True, p)
            ),
            "-" if retr is None else f"{retr:.0f}",
            _delta(r.d_retransmits, "", False, p) if not r.baseline else "",
            "-" if r.cpu.median is None else f"{r.cpu.median:.1f}",
            _delta(r.d_cpu, "%", False, p) if not r.baseline else "",
            str(r.repeats),
        )
        out.append(Row(r.group, cells, search=f"{r.group} {r.changes} {r.spec}"))
    return out


def row_detail(row: RunRow | None) -> str:
    """The line under the table: the test, the runs in the group, tuitune's CPU peaks."""
    if row is None:
        return ""

    def peak(name: str, pk: tuple[int, float] | None) -> str:
        return f"{name} -" if pk is None else f"{name} cpu{pk[0]} {pk[1]:.0f}%"

    ids = " ".join(row.ids)
    changed = "" if row.baseline else f"{row.changes or 'same settings'}; "
    if row.test_differs:
        changed = f"test differs: {row.test_differs}; "
    cell = f"cell {row.cell}; " if row.cell else ""
    if row.sweep.startswith("autotune-"):  # first: a narrow screen cuts the line's end
        cell = f"of {row.sweep}: r shows its report; {cell}"
    previous = f"{row.previous}; " if row.previous else ""
    text = (
        f"{row.group}: {cell}{changed}{previous}{row.spec}; runs {ids}; remote CPU "
        + ("-" if row.remote_cpu.median is None else f"{row.remote_cpu.median:.1f}%")
        + f"; peak {peak('sys', row.peak_sys)}, {peak('soft', row.peak_soft)}"
        + f"; softnet drops {row.drops}"
    )
    if row.error:
        text += f"; last error: {row.error}"
    return printable(text, 2000)  # a notebook may be another user's file


REPORT_LIMIT = 1 << 20  # an autotune report is a few KiB; the file may be another user's


class KeyBar(Static):
    """The keys of a screen as one line; clicking one runs it (mouse users need no key)."""

    def __init__(self, keys: Sequence[tuple[str, str, str]], *, id: str | None = None) -> None:
        super().__init__("", id=id, markup=False)
        self.keys = list(keys)  # (key as shown, what it does, action on the screen)
        self._spans: list[tuple[int, int, str]] = []

    def on_mount(self) -> None:
        text = Text()
        for key, what, action in self.keys:
            start = len(text)
            text.append(key, style="bold")
            text.append(f" {what}")
            self._spans.append((start, len(text), action))
            text.append("   ")
        self.update(text)

    async def on_click(self, event: Click) -> None:
        for start, end, action in self._spans:
            if start <= event.x < end:
                await self.screen.run_action(action)
                return


class RunsList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("b", "screen.baseline", "Make this run the baseline"),
        Binding("space", "screen.mark", "Mark for compare"),
        Binding("c,enter", "screen.compare", "Compare"),
        Binding("m", "screen.markdown", "Write Markdown"),
        Binding("v", "screen.csv", "Write CSV"),
        Binding("g", "screen.chart", "Chart of the runs"),
        Binding("r", "screen.report", "The autotune report of this run"),
    ]


class RunsScreen(BoxScreen[None]):
    """The notebook of the watched interface."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,N", "close", "Close"),
    ]
    DEFAULT_CSS = """
    RunsScreen > Vertical { width: 100%; height: 100%; }
    RunsScreen #runs-detail { height: 2; color: $text-muted; }
    RunsScreen #runs-status { height: auto; max-height: 2; }
    RunsScreen #runs-keys { height: auto; color: $text-muted; }
    """

    def __init__(self, notebook: Notebook, look: Look = DEFAULT_LOOK) -> None:
        super().__init__()
        self.notebook = notebook
        self.look = look
        self.rows: list[RunRow] = []
        self.marked: list[str] = []
        self.status = ""

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Runs: {self.notebook.path}"
            yield RunsList(COLUMNS, id="runs-list")
            yield Static("", id="runs-detail", markup=False)
            yield Static("", id="runs-status", markup=False)
            yield KeyBar(
                [
                    ("b", "baseline", "baseline"),
                    ("space", "mark", "mark"),
                    ("c", "compare", "compare"),
                    ("m", "Markdown", "markdown"),
                    ("v", "CSV", "csv"),
                    ("g", "chart", "chart"),
                    ("r", "report", "report"),
                    ("Esc", "close", "close"),
                ],
                id="runs-keys",
            )

    def on_mount(self) -> None:
        view = self.query_one(RunsList)
        # The notebook's path is in the title; the key comes first, so a long path never
        # pushes it off a narrow screen (CI's deeper checkout did, stop 46).
        view.empty_text = "no runs yet: B runs a benchmark, and every run lands here"
        self.reload()
        view.focus()

    @property
    def view(self) -> RunsList:
        return self.query_one(RunsList)

    def reload(self) -> None:
        try:
            self.rows = self.notebook.table()
        except OSError as exc:
            self.rows = []
            self.say(f"cannot read {self.notebook.path}: {exc.strerror or exc}", True)
        groups = {r.group for r in self.rows}
        self.marked = [m for m in self.marked if m in groups]
        look = self.look
        self.view.set_rows(runs_rows(self.rows, self.marked, look.glyphs, look.palette))
        if self.notebook.skipped:
            self.say(f"{self.notebook.skipped} unreadable line(s) in the notebook skipped", True)
        self._detail()

    def say(self, text: str, warn: bool = False) -> None:
        self.status = text
        style = self.look.palette.warn if warn else Style()
        self.query_one("#runs-status", Static).update(Text(printable(text, 2000), style=style))

    def cursor(self) -> RunRow | None:
        key = self.view.cursor_key
        return next((r for r in self.rows if r.group == key), None)

    def _detail(self) -> None:
        self.query_one("#runs-detail", Static).update(row_detail(self.cursor()))

    def on_row_view_cursor_moved(self, message: RowView.CursorMoved) -> None:
        message.stop()  # the app's handler is for its own panels
        self._detail()

    # -- actions -------------------------------------------------------------------------------
    def action_close(self) -> None:
        self.dismiss(None)

    def action_baseline(self) -> None:
        row = self.cursor()
        if row is None:
            self.say("no run here", True)
            return
        try:
            self.notebook.set_baseline(row.group)
        except (OSError, ValueError) as exc:
            self.say(f"baseline not changed: {exc}", True)
            return
        self.reload()
        self.say(f"{row.group} is the baseline: every delta is against it now")

    def action_mark(self) -> None:
        row = self.cursor()
        if row is None:
            return
        if row.group in self.marked:
            self.marked.remove(row.group)
        else:
            self.marked = [*self.marked, row.group][-2:]  # a third mark replaces the oldest
        look = self.look
        self.view.set_rows(runs_rows(self.rows, self.marked, look.glyphs, look.palette))
        self.view.action_cursor(1)
        n = len(self.marked)
        self.say(
            f"marked {', '.join(self.marked)}: c compares them"
            if n == 2
            else (f"marked {self.marked[0]}: mark one more, or c compares it with the baseline")
            if n == 1
            else "no run marked"
        )

    def action_compare(self) -> None:
        if len(self.marked) == 2:
            a, b = self.marked
        else:
            base = next((r.group for r in self.rows if r.baseline), None)
            target = self.marked[0] if self.marked else self.view.cursor_key
            if base is None or target is None:
                self.say("no runs to compare", True)
                return
            if target == base:
                self.say("that is the baseline: mark two runs with space, or pick another", True)
                return
            a, b = base, target
        run_a, run_b = self.notebook.find(a), self.notebook.find(b)
        if run_a is None or run_b is None:
            self.say("that run is gone from the notebook", True)
            return
        rows = compare_rows(run_a, run_b, self.look.palette)
        sizes = {r.group: r.repeats for r in self.rows}
        notes = [
            f"{g} is the first of {sizes[g]} repeats (the runs table shows their median)"
            for g in (a, b)
            if sizes.get(g, 1) > 1
        ]
        self.app.push_screen(CompareScreen(run_a.id, run_b.id, rows, "; ".join(notes)))

    def action_chart(self) -> None:
        if not self.rows:
            self.say("no runs to chart yet", True)
            return
        from tuitune.tui.screens.runs_chart import RunsChartScreen

        self.app.push_screen(RunsChartScreen(self.rows, self.look))

    def action_report(self) -> None:
        """r: the report of the autotune this run belongs to, kept beside the notebook."""
        from tuitune.core import untrusted
        from tuitune.core.autotune.sources import report_path
        from tuitune.core.docfile import DocumentError
        from tuitune.core.text import printable_lines
        from tuitune.tui.screens.dialogs import TextScreen

        row = self.cursor()
        if row is None or not row.sweep.startswith("autotune-"):
            self.say("not an autotune's run: r shows the report of one (its detail says so)", True)
            return
        path = report_path(self.notebook.path, row.sweep)
        try:
            text = untrusted.read_text(path, REPORT_LIMIT)
        except (OSError, DocumentError) as exc:
            self.say(f"report not read: {exc}", True)
            return
        if text is None:
            self.say(
                f"no report kept for {row.sweep}: stopped before its end, or removed ({path})",
                True,
            )
            return
        self.app.push_screen(TextScreen(f"autotune: {row.sweep}", printable_lines(text)))

    def action_markdown(self) -> None:
        self._write(".md", to_markdown(self.rows), "Markdown")

    def action_csv(self) -> None:
        self._write(".csv", to_csv(self.rows), "CSV")

    def _write(self, suffix: str, text: str, what: str) -> None:
        if not self.rows:
            self.say("nothing to write: no runs yet", True)
            return
        try:
            path = write_beside(self.notebook.path, suffix, text)
        except OSError as exc:
            self.say(f"{what} not written: {exc.strerror or exc} ({exc.filename or ''})", True)
            return
        self.say(f"wrote {what} of {len(self.rows)} run(s) to {path}")


def compare_rows(run_a: Run, run_b: Run, p: Palette = DEFAULT_PALETTE) -> list[Row]:
    differing = {name for name, _ in diff(run_a.settings, run_b.settings)}
    rows = [Row("§results", ("results",), section=True)]
    settings_started = False
    for n, (what, va, vb) in enumerate(compare(run_a, run_b)):
        if what in differing and not settings_started:
            settings_started = True
            rows.append(Row("§settings", ("settings that differ",), section=True))
        style = p.changed if what in differing else None
        cells: tuple[CellValue, ...] = (
            what,
            ((va, style),),
            ((vb, style),),
        )
        rows.append(Row(f"{n}:{what}", cells))
    if not settings_started:
        rows.append(Row("§settings", ("no setting differs",), section=True))
    return rows


class CompareScreen(BoxScreen[None]):
    """Two runs side by side: every result, then every setting that differs."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape,q,c", "close", "Close")]
    DEFAULT_CSS = """
    CompareScreen > Vertical { width: 100%; height: 100%; }
    CompareScreen .hint { color: $text-muted; height: auto; }
    """

    def __init__(self, a: str, b: str, rows: list[Row], note: str = "") -> None:
        super().__init__()
        self.a, self.b = a, b
        self.rows = rows
        self.note = note

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = f"Compare {self.a} and {self.b}"
            view = RowView(
                [Column("", 22), Column(self.a, 20, flex=True), Column(self.b, 20, flex=True)],
                id="compare-list",
            )
            yield view
            if self.note:
                yield Static(self.note, classes="hint", markup=False)
            yield Static("Esc: back to the runs   arrows, PgUp/PgDn: scroll", classes="hint")

    def on_mount(self) -> None:
        view = self.query_one(RowView)
        view.set_rows(self.rows)
        view.focus()

    def on_row_view_cursor_moved(self, message: RowView.CursorMoved) -> None:
        message.stop()

    def action_close(self) -> None:
        self.dismiss(None)
