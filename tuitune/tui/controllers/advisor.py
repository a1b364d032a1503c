"""The findings view (`A`): what the Advisor concludes from the last seconds on screen, and
Enter to apply one finding's change as one journaled step (`u` undoes it).

The controller keeps the last WINDOW samples' counters (it is fed every sample), judges them
with the core's rules on a worker thread when asked, and talks to the App through the Shell
protocol and the Editor's journal calls, like the editor and the benchmark do.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING, ClassVar, Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tuitune.core.docfile import DocumentError
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import Key
from tuitune.core.watch.cadence import COUNT_EVERY
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.sampler import DriverStats, Sample
from tuitune.core.watch.snapshot import Counters
from tuitune.tui.controllers.edit import Editor
from tuitune.tui.controllers.host_wide import ask_host_wide
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.shell import Shell

# The rules (tuitune.core.advise) load on the worker that first judges a window, or on A:
# the live screen's first frame does not wait for them (issue 18).
if TYPE_CHECKING:  # the journal loads with the first change (issue 38)
    from tuitune.core.advise import Advice, ContextKind, Facts
    from tuitune.core.advise.model import Finding
    from tuitune.core.host.conns import Connection
    from tuitune.core.host.platform import Platform
    from tuitune.core.session import Journal
    from tuitune.core.values import Unavailable

# Replay's window: how to judge it (called on a worker) and its words for the title.
Recorded = Callable[["ContextKind"], tuple[Callable[[], "Facts"], str]]

WINDOW = 10  # seconds of samples the findings are judged on (at the default 1 s interval)
RUN_LIMIT = 3600  # samples a benchmark run's window keeps at most (an hour at 1 s)
COUNT_FROM = 5  # samples in the window before the first: 4 steps, not one tick's noise
STYLE = {"bottleneck": "bold red", "risk": "yellow", "hint": "cyan"}


def detail_text(f: Finding) -> Text:
    t = Text()
    t.append(f"{f.id}  ", style=STYLE[f.severity])
    t.append(f.title + "\n\n")
    for line in f.evidence:
        t.append(f"evidence  {line}\n")
    for c in f.change:
        t.append(f"change    {c.key.label} -> {c.value}\n")
    if not f.change:
        t.append("change    none tuitune can make\n")
    elif f.trial:
        t.append("apply     on trial, from the NIC panel (e on the row): it can cut the link\n")
    for s in f.sources:
        t.append(f"source    {s.citation}: {s.measured}\n", style="dim")
    return t


class AdvisorScreen(BoxScreen[str | None]):
    """The findings, worst first; the highlighted one in full below. Enter applies it, c
    changes the context, Esc closes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss_none", "Close"),
        Binding("c", "context", "Context"),
    ]
    DEFAULT_CSS = """
    AdvisorScreen > Vertical { width: 95%; max-width: 120; height: 90%; }
    AdvisorScreen OptionList { height: auto; max-height: 8; padding: 0; }
    AdvisorScreen OptionList, AdvisorScreen OptionList:focus { border: none; }
    AdvisorScreen .hint { color: $text-muted; height: 1; }
    """

    def __init__(
        self,
        advice: Advice,
        context: ContextKind,
        seconds: float,
        of_run: bool = False,
        span: str | None = None,
    ) -> None:
        super().__init__()
        self.advice = advice
        self.context = context
        self.seconds = seconds
        self.of_run = of_run  # the window is a benchmark run's, not the last seconds
        self.span = span  # which window, when it is not the last seconds (replay's)

    def compose(self) -> ComposeResult:
        options = []
        for f in self.advice.findings:
            label = Text()
            label.append(f"{f.severity:<11}", style=STYLE[f.severity])
            label.append(f"{f.id:<19}{f.title}" if len(f.id) < 19 else f"{f.id} {f.title}")
            options.append(Option(label, id=f.id))
        with Vertical() as box:
            span = self.span or (
                ("over the benchmark run" if self.of_run else "over the last")
                + f" {self.seconds:.0f} s"
                if self.seconds >= 1
                else "no window yet: wait a few seconds"
            )
            box.border_title = f"Findings: {len(options)} {span}, context {self.context}"
            if options:
                yield OptionList(*options, id="advisor-list")
            with VerticalScroll():
                yield Static(self._notes(), id="advisor-detail", markup=False)
            yield Static(
                "Enter: apply (one step, u undoes it)   c: context   Esc: close",
                classes="hint",
            )

    def _notes(self) -> Text:
        t = Text()
        if not self.advice.findings:
            t.append("No findings: nothing the rules know holds this interface back.\n\n")
        for n in self.advice.notes:
            t.append(f"not judged: {n.rule}: {n.text}\n", style="dim")
        return t

    def on_mount(self) -> None:
        if self.advice.findings:
            self.query_one(OptionList).focus()
            self._show(self.advice.findings[0])

    def _show(self, f: Finding) -> None:
        self.query_one("#advisor-detail", Static).update(detail_text(f) + "\n" + self._notes())

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        found = [f for f in self.advice.findings if f.id == event.option.id]
        if found:
            self._show(found[0])

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_context(self) -> None:
        self.dismiss("context:")

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


def what_it_does(f: Finding) -> str:
    """The change in a few words, for the runs table: its settings when they are few
    ("eth0 rx-0 rps_cpus 0"), else the title's part after its colon ("spread 8 queue IRQs
    one per NIC-local core")."""
    _, sep, tail = f.title.rpartition(": ")
    if len(f.change) > 3 and sep and tail:
        return tail
    return ", ".join(f"{c.key.label} {c.value}" for c in f.change)


# A sample's rates from the sample before it, and the IRQs they detail ("all": every one).
Known = tuple[Rates, frozenset[str] | Literal["all"]] | None


def known_step(sample: Sample, before: Counters | None) -> Known:
    """The sampler's rates of `sample`, when they are the step from `before` (the window's
    previous sample): the same two counters, so the same rates (core/watch/sampler.py)."""
    rates, detail = sample.rates, sample.rates_detail
    if rates is None or detail is None or before is None or sample.rates_from is not before:
        return None
    return rates, detail


def usable(k: Known, detail: Collection[str] | None) -> Rates | None:
    """The known rates when they detail at least the IRQs the rules need (None: all)."""
    if k is None:
        return None
    rates, has = k
    if has == "all" or (detail is not None and has.issuperset(detail)):
        return rates
    return None


def _judged(make: Callable[[], Facts]) -> Advice | None:
    """The rules on the facts `make` gives (worker thread); None if something failed, so the
    count goes on with the next window instead of stopping."""
    from tuitune.core.advise import advise

    try:
        return advise(make())
    except Exception:
        return None


class Advisor:
    def __init__(
        self,
        shell: Shell,
        editor: Editor,
        contexts: dict[str, str] | None = None,
        remember: Callable[[str, str], None] | None = None,
        applied: Callable[[str, str, frozenset[Key]], None] | None = None,
        count_every: int = COUNT_EVERY,
        recorded: Recorded | None = None,
    ) -> None:
        self.shell = shell
        # Replay: `A` judges the recording's window around the cursor, as `advise
        # --recording --from --to` does (core/record/judge.py), not the samples drawn.
        self.recorded = recorded
        self.count_every = count_every  # samples between two judgements for the header's count
        self.editor = editor
        self.contexts = dict(contexts or {})  # ifname -> context, remembered across runs
        self.remember = remember
        self.applied = applied  # told (id, what it did, keys) after a finding was applied
        self._counters: deque[Counters] = deque(maxlen=WINDOW + 1)
        # ethtool -S read with each of those samples (None: not read): the per-queue rules
        # judge its rise from the window's first sample to its last.
        self._stats: deque[DriverStats | None] = deque(maxlen=WINDOW + 1)
        # The sampler's rates into each of those samples, from the one before, when they are
        # that step's (Known): the window reuses them instead of computing them again.
        self._steps: deque[Known] = deque(maxlen=WINDOW + 1)
        self.advice: Advice | None = None
        self.counted: Advice | None = None  # the last judgement of the moving window, shown
        self._pending: Advice | None = None  # judged on the worker, shown from the next sample
        self._counting = False
        self._since = 0
        # The platform the Host view read last (screens/host.py), and for which interface:
        # the rules judge CPU power, SMT, PCIe and the IOMMU from it (None: not read yet).
        self.platform: tuple[str | None, Platform] | None = None
        self._ifname: str | None = None
        # A benchmark run is when the dynamic rules have something to judge: while it runs the
        # window is the run so far, and after it ends the whole run, for as many samples as it
        # lasted (WINDOW at least). A run shorter than COUNT_FROM samples says too little.
        self._in_run = False
        self._run: deque[Counters] = deque(maxlen=RUN_LIMIT + 1)
        self._run_stats: deque[DriverStats | None] = deque(maxlen=RUN_LIMIT + 1)
        self._run_steps: deque[Known] = deque(maxlen=RUN_LIMIT + 1)
        self._run_left = 0  # samples the ended run's window is still the one judged
        # The connections the sampler read last (the connections view shows the same
        # reading: one inet_diag dump a tick), and the sample it came with; None: not read.
        self.connections: tuple[Connection, ...] | Unavailable | None = None
        self._conns_seq = 0
        self._seq = 0  # the last sample's
        # Every connection seen during the run, its last reading: right after the run the
        # benchmark's sockets are closed, and the run's window still judges them.
        self._run_conns: dict[tuple[str, int, str, int], Connection] = {}

    def run_started(self) -> None:
        self._in_run, self._run_left = True, 0
        self._run_conns.clear()
        self._run.clear()
        self._run_stats.clear()
        self._run_steps.clear()

    def run_ended(self) -> None:
        if self._in_run:
            self._in_run = False
            self._run_left = max(WINDOW, len(self._run))

    @property
    def window_of_run(self) -> bool:
        return (self._in_run or self._run_left > 0) and len(self._run) >= COUNT_FROM

    @property
    def context(self) -> ContextKind:
        ifname = self.shell.selection().ifname
        found = self.contexts.get(ifname or "", "any")
        from tuitune.core.advise.model import CONTEXTS

        return next((c for c in CONTEXTS if c == found), "any")

    def feed(self, sample: Sample) -> None:
        """Every sample the screen draws; a gap (a failed read) or another interface starts
        the window again. Every `count_every` samples the window is judged again on a worker
        thread, for the count the header shows."""
        ifname = self.shell.selection().ifname
        if self._pending is not None:
            # Taken at a sample, never when the worker ends: the header changes with the
            # samples only (what a screen shows after N samples does not race a thread).
            self.counted, self._pending = self._pending, None
        self._seq = sample.seq
        if ifname != self._ifname:
            self.connections, self._run_conns = None, {}
        if sample.connections is not None:
            self.connections, self._conns_seq = sample.connections, sample.seq
            if self._in_run and isinstance(sample.connections, tuple):
                for c in sample.connections:
                    self._run_conns[(c.local, c.lport, c.remote, c.rport)] = c
        if sample.counters is None or ifname != self._ifname:
            self._counters.clear()
            self._stats.clear()
            self._steps.clear()
            self.counted = None
            self._ifname = ifname
            self._run.clear()
            self._run_stats.clear()
            self._run_steps.clear()
        if self._run_left > 0:
            self._run_left -= 1
        if self._in_run and sample.counters is not None:
            self._run_steps.append(known_step(sample, self._run[-1] if self._run else None))
            self._run.append(sample.counters)
            self._run_stats.append(sample.driver_stats)
        if sample.counters is not None and (
            not self._counters or self._counters[-1] is not sample.counters
        ):
            self._steps.append(known_step(sample, self._counters[-1] if self._counters else None))
            self._counters.append(sample.counters)
            self._stats.append(sample.driver_stats)
        self._since += 1
        if self._since < self.count_every or self._counting or len(self._counters) < COUNT_FROM:
            return
        make = self._facts_maker()
        if make is None:
            return
        self._since = 0
        self._counting = True
        # The window's rates are made on the worker too: the steps the sampler computed are
        # reused, but the whole window's (first to last) costs a tick at 1024 CPUs.
        self.shell.in_thread(lambda: _judged(make), self._counted, group="advise-count")

    def _counted(self, advice: Advice | None) -> None:
        self._counting = False
        if advice is not None and self.shell.selection().ifname == self._ifname:
            self._pending = advice

    def counts(self) -> tuple[int, int, int] | None:
        """(bottlenecks, risks, hints) of the moving window, None before its first judgement."""
        if self.counted is None:
            return None
        found = [f.severity for f in self.counted.findings]
        return found.count("bottleneck"), found.count("risk"), found.count("hint")

    def _facts_maker(self, kind: ContextKind | None = None) -> Callable[[], Facts] | None:
        """What the rules need, taken now (UI thread); the window is made when called.
        `kind`: the context to judge in (default: the interface's, `c` in the A view)."""
        sel = self.shell.selection()
        host, nic = sel.host, sel.nic
        if host is None:
            return None
        detail = {q.irq for q in nic.irqs} if nic is not None else None
        samples = list(self._run if self.window_of_run else self._counters)
        stats = list(self._run_stats if self.window_of_run else self._stats)
        steps = list(self._run_steps if self.window_of_run else self._steps)[1:]
        known = [usable(k, detail) for k in steps]
        first, last = (stats[0], stats[-1]) if stats else (None, None)
        held = frozenset(self.shell.session.originals())
        kind = kind or self.context
        read = self.platform
        platform = read[1] if read is not None and read[0] == sel.ifname else None
        conns = self._facts_connections()

        def make() -> Facts:
            from tuitune.core.advise import Context, Facts, window_of

            window = window_of(samples, detail, first, last, known)
            return Facts(
                host, nic, window, Context(kind), held=held, platform=platform, connections=conns
            )

        return make

    def _facts_connections(self) -> tuple[Connection, ...] | None:
        """The connections the rules judge: a run's window, every socket seen during the run
        (each at its last reading); else the last reading, when it is of this window (the
        view is open). None: not read (the rule says so)."""
        got = self.connections
        fresh = isinstance(got, tuple) and self._seq - self._conns_seq < WINDOW
        if self.window_of_run and (self._run_conns or fresh):
            return tuple(self._run_conns.values())
        return got if isinstance(got, tuple) and fresh else None

    def _facts(self) -> Facts | None:
        make = self._facts_maker()
        return make() if make is not None else None

    def judged_in(self, kind: ContextKind) -> Advice | None:
        """The moving window's judgement in context `kind` (T's latency goal judges with the
        latency rules, as `autotune --goal latency`): the one shown when it is the screen's
        context, else judged now; None before the window's first judgement."""
        if self.counted is None or kind in ("any", self.context):
            return self.counted
        from tuitune.core.advise import advise

        make = self._facts_maker(kind)
        return advise(make()) if make is not None else None

    def judge(self) -> tuple[Advice, float] | None:
        from tuitune.core.advise import advise

        facts = self._facts()
        if facts is None:
            return None
        return advise(facts), facts.window.seconds

    def open(self) -> None:
        if self.shell.selection().nic is None:
            self.shell.notify_line("no interface watched: pick one with n", True)
            return

        # The window is taken here, on the UI thread; the rules run on a worker.
        make, of_run, span = self._facts_maker(), self.window_of_run, None
        if self.recorded is not None:
            make, span = self.recorded(self.context)

        def judge() -> tuple[Advice, float] | str | None:
            from tuitune.core.advise import advise

            if make is None:
                return None
            try:
                facts = make()
            except DocumentError as exc:  # a recorded window without a NIC state, or refused
                return str(exc)
            return advise(facts), facts.window.seconds

        def show(result: tuple[Advice, float] | str | None) -> None:
            if result is None or isinstance(result, str):
                self.shell.notify_line(result or "no host state yet: try again in a second", True)
                return
            self.advice, seconds = result
            self.counted = result[0]  # the header's count agrees with what is shown
            screen = AdvisorScreen(result[0], self.context, seconds, of_run, span)
            self.shell.push_screen(screen, self._chosen)

        self.shell.in_thread(judge, show, group="advise")

    def _chosen(self, choice: str | None) -> None:
        if choice == "context:":
            from tuitune.core.advise.model import CONTEXTS

            nxt = CONTEXTS[(CONTEXTS.index(self.context) + 1) % len(CONTEXTS)]
            ifname = self.shell.selection().ifname
            if ifname:
                self.contexts[ifname] = nxt
                if self.remember is not None:
                    self.remember(ifname, nxt)
            self.open()
            return
        found = [f for f in (self.advice.findings if self.advice else ()) if f.id == choice]
        if found:
            self.apply(found[0])

    def apply(self, f: Finding) -> None:
        shell = self.shell
        why = shell.session.read_only
        if why:
            shell.notify_line(f"{f.id}: {why}", True)
            return
        if not f.change:
            shell.notify_line(f"{f.id}: no change tuitune can make (see its evidence)", True)
            return
        if f.trial:
            shell.notify_line(f"{f.id}: apply it on trial from the NIC panel (e on its row)", True)
            return
        # The question every write path of the screen asks (its handler's word on what is the
        # whole host's), once for the finding's changes.
        ask_host_wide(shell, [c.key for c in f.change], lambda: self._gate(f))

    def _gate(self, f: Finding) -> None:
        # A change that stops irqbalance itself (the IRQ moves do, while it runs) needs no gate.
        from tuitune.core.session.kinds.table import handler  # loads every handler: not at start

        stops = any(c.key.kind == "service" for c in f.change)
        if not stops and any(handler(c.key.kind).moved_back_by for c in f.change):
            self.editor.irqbalance.before_move(lambda: self._write(f))
        else:
            self._write(f)

    def _write(self, f: Finding) -> None:
        changes = [(c.key, c.value) for c in f.change]

        def work(j: Journal) -> list[Outcome]:
            return j.apply_all(changes)

        def done(outs: list[Outcome]) -> None:
            self.editor.report(outs)
            if outs and all(o.ok for o in outs):
                self.shell.notify_line(f"applied {f.id} as one step: u undoes it, B measures it")
                if self.applied is not None:
                    self.applied(f.id, what_it_does(f), frozenset(c.key for c in f.change))

        self.editor.run_journal(work, done)
