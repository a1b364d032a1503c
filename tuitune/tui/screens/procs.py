"""The processes view (`P`): the NIC's processes in a table, the highlighted one in full below,
and the keys that move it. Everything a process says about itself (its name, its argv) is
shown escaped (procs.model.printable): another user chooses it."""

from __future__ import annotations

import pwd
from collections.abc import Callable, Sequence
from typing import ClassVar, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import DataTable, OptionList, SelectionList, Static
from textual.widgets.option_list import Option

from tuitune.core.cpulist import format_cpulist
from tuitune.core.procs.model import NicProcess, printable
from tuitune.tui.controllers.procs import ProcsController, ProcsState, pending_text
from tuitune.tui.panels.sysctlpanel import PROCESS_HELP, device_help
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.screens.dialogs import TextScreen

_T = TypeVar("_T")

KEYS = (
    "l: NIC-local  i: an IRQ's CPU  c: pick CPUs  e: type  g: in the CPU grid  u: undo  "
    "R: revert  Esc: close  h: help (affinity, nice, sendfile)"
)
_HELP = device_help(PROCESS_HELP)
# Columns whose cells outgrow their title: fixed widths, so a redraw never cuts them to it.
_WIDTHS = {"role": 16, "CPU % by cpu": 22}
# "state" (moved, pending, gone) right after the command: at 80 columns the fixed-width role
# and CPU % columns would push a move's own answer off the screen.
COLUMNS = (
    "pid",
    "user",
    "command",
    "state",
    "role",
    "thr",
    "allowed",
    "ran on",
    "CPU % by cpu",
    "node",
)


def user_name(uid: int) -> str:
    try:
        return printable(pwd.getpwuid(uid).pw_name, 12)
    except KeyError:
        return str(uid)


def cpu_use(p: NicProcess, seconds: float) -> str:
    """ "cpu0 45 %, cpu1 3 %" (percent of one CPU, per CPU, over the window); "-" before a
    window. Labelled: "1:47" read like top's TIME+."""
    if not p.cpu_by_cpu:
        return "0 %" if seconds > 0 else "-"
    return ", ".join(f"cpu{c} {v:.0f} %" for c, v in sorted(p.cpu_by_cpu.items()))


# The benchmark tools' own switches for their two ends (iperf3, iperf, netperf's netserver is
# a name of its own, nuttcp, sockperf): what tells a client from a server in the P view.
_SERVER_ARGS = frozenset({"-s", "--server", "-S", "server"})
_CLIENT_ARGS = frozenset({"-c", "--client", "client", "ping-pong", "under-load"})
_BENCH_TOOLS = frozenset({"iperf3", "iperf", "nuttcp", "netperf", "sockperf", "qperf"})


def role(p: NicProcess, peers: frozenset[int] | set[int] = frozenset()) -> str:
    """ "client" or "server" from its command line (iperf3 -c / -s...), "" when it says
    neither; the lab's peer end says so too."""
    args, name = set(p.cmdline[1:]), p.ident.comm
    side = ""
    if name == "netserver":
        side = "server"
    elif name in _BENCH_TOOLS:  # other programs' -s and -c mean other things
        side = "server" if args & _SERVER_ARGS else "client" if args & _CLIENT_ARGS else ""
    if p.ident.pid in peers:
        return f"{side}, peer end" if side else "peer end"
    return side


def node_text(p: NicProcess) -> str:
    return {True: "yes", False: "NO", None: "?"}[p.on_nic_node]


def state_text(p: NicProcess, st: ProcsState) -> str:
    name = p.ident.name
    if name in st.states:
        return st.states[name]
    if p.kernel_thread:
        return "kernel thread"
    pending = pending_text(p) if name in st.moved else None
    if pending:
        return "pending"
    if name in st.moved:
        return f"moved (was {st.moved[name]})"
    return ""


def detail(p: NicProcess | None, st: ProcsState) -> str:
    if p is None:
        return (
            "No process has a socket on this interface's addresses (or serves on every "
            "address).\nStart one (a B run starts iperf3), or wait for the next reading."
        )
    side = role(p, st.peers)
    where = f" ({side})" if side else ""
    owner = "" if p.owner_is_caller else "  - another user's: moving it asks first"
    threads = ", ".join(
        f"{t.tid} {printable(t.comm, 16)} on cpu{t.last_cpu} (allowed {format_cpulist(t.allowed)})"
        for t in p.threads[:6]
    )
    more = f" and {len(p.threads) - 6} more" if len(p.threads) > 6 else ""
    span = f"over {st.seconds:.0f} s" if st.seconds else "no window yet"
    local = format_cpulist(st.local) if st.local else "none known"
    lines = [
        p.shown_cmdline + where,
        f"pid {p.ident.pid}, user {user_name(p.ident.uid)}{owner}; {len(p.threads)} thread(s); "
        f"{p.sockets} socket(s) on the NIC, {p.wildcard} on every address"
        + (f"; unit {p.shown_unit}" if p.unit else ""),
        f"allowed cpu {format_cpulist(p.allowed)}; ran on cpu {format_cpulist(p.ran_on)}; "
        f"CPU % by cpu {cpu_use(p, st.seconds)} ({span}); NIC-local CPUs {local}, "
        f"on them: {node_text(p)}",
        f"threads: {threads}{more}",
    ]
    state = state_text(p, st)
    pending = pending_text(p) if p.ident.name in st.moved else None
    if state == "pending" and pending:
        state = pending
    if state:
        lines.append(f"state: {state}")
    if p.kernel_thread:
        lines.append("a kernel thread: tuitune never moves one")
    lines.append(
        "A process's affinity does not survive its restart: E (on the main screen) previews "
        "a systemd drop-in or a taskset prefix that makes it last"
    )
    return "\n".join(lines)


class ProcsScreen(Screen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,P", "close", "Close"),
        Binding("l", "local", "NIC-local"),
        Binding("i", "irq", "IRQ's CPU"),
        Binding("c", "pick", "Pick CPUs"),
        Binding("g", "grid", "Pick CPUs in the main screen's CPU grid"),
        Binding("e", "type", "Type CPUs"),
        Binding("r", "reread", "Read again", show=False),
        # What a process row explains beyond its affinity: its priority and how it sends.
        Binding("h", "help", "Help: CPU affinity, nice, sendfile", show=False),
        Binding("u", "app.undo", "Undo", show=False),
        Binding("R", "app.revert_all", "Revert all", show=False),
    ]
    DEFAULT_CSS = """
    ProcsScreen { layout: vertical; }
    ProcsScreen #procs-title { height: auto; padding: 0 1; color: $accent; }
    ProcsScreen #procs-note { height: auto; max-height: 2; padding: 0 1; color: $warning; }
    ProcsScreen DataTable { height: 1fr; min-height: 4; }
    ProcsScreen #procs-detail { height: auto; max-height: 12; padding: 0 1;
        border-top: $tt-border $primary 50%; }
    ProcsScreen #procs-keys { height: auto; padding: 0 1; color: $text-muted; }
    """

    def __init__(self, controller: ProcsController, interval: float = 1.0) -> None:
        super().__init__()
        self.controller = controller
        self.interval = interval
        self._names: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("", id="procs-title", markup=False)
        yield Static("", id="procs-note", markup=False)
        table: DataTable[str] = DataTable(id="procs-table", cursor_type="row", zebra_stripes=True)
        for name in COLUMNS:  # the widest cells get their room up front: nothing reflows
            table.add_column(name, width=_WIDTHS.get(name))
        yield table
        yield Static("", id="procs-detail", markup=False)
        yield Static(KEYS, id="procs-keys", markup=False)

    def on_mount(self) -> None:
        self.controller.on_change = self.draw
        self.controller.state.note = ""
        self.draw(self.controller.state)
        self.controller.refresh()
        self.set_interval(self.interval, self.controller.refresh)
        self.query_one(DataTable).focus()

    def on_unmount(self) -> None:
        self.controller.close()

    # -- drawing ---------------------------------------------------------------------------
    def draw(self, st: ProcsState) -> None:
        if not self.is_attached:
            return
        node = f"node {st.node}" if st.node is not None else "no NUMA node"
        local = format_cpulist(st.local) if st.local else "none"
        title = (
            f"Processes using {st.ifname}: {len(st.procs)}  ({node}, NIC-local CPUs {local})"
            if st.ifname is not None
            else "Processes using the NIC: reading..."
        )
        self.query_one("#procs-title", Static).update(title)
        self.query_one("#procs-note", Static).update(st.note)
        table: DataTable[str] = self.query_one(DataTable)
        keep = self.current_name()
        table.clear()
        self._names = []
        for p in st.procs:
            table.add_row(
                str(p.ident.pid),
                user_name(p.ident.uid),
                printable(p.ident.comm, 16),
                state_text(p, st),
                role(p, st.peers),
                str(len(p.threads)),
                format_cpulist(p.allowed),
                format_cpulist(p.ran_on),
                cpu_use(p, st.seconds),
                node_text(p),
            )
            self._names.append(p.ident.name)
        if keep in self._names:
            table.move_cursor(row=self._names.index(keep), animate=False)
        self._draw_detail()

    def current(self) -> NicProcess | None:
        name = self.current_name()
        return next((p for p in self.controller.state.procs if p.ident.name == name), None)

    def current_name(self) -> str | None:
        table: DataTable[str] = self.query_one(DataTable)
        row = table.cursor_row
        return self._names[row] if 0 <= row < len(self._names) else None

    def _draw_detail(self) -> None:
        self.query_one("#procs-detail", Static).update(
            detail(self.current(), self.controller.state)
        )

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._draw_detail()

    # -- keys ------------------------------------------------------------------------------
    def _picked(self) -> NicProcess | None:
        p = self.current()
        if p is None:
            self.app.bell()
            self.controller.shell.notify_line("no process picked", True)
        elif p.kernel_thread:
            self.controller.shell.notify_line("a kernel thread: tuitune never moves one", True)
            return None
        return p

    def action_close(self) -> None:
        self.dismiss(None)

    def action_help(self) -> None:
        self.app.push_screen(TextScreen("processes (" + ", ".join(PROCESS_HELP) + ")", _HELP))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_help()

    def action_reread(self) -> None:
        self.controller.refresh()

    def _picked_to(self, targets: Callable[[], _T | str]) -> tuple[NicProcess, _T] | None:
        """The picked process and where it could go; None (said) when either is missing."""
        p = self._picked()
        if p is None:
            return None
        got = targets()
        if isinstance(got, str):
            self.controller.shell.notify_line(got, True)
            return None
        return p, got

    def action_local(self) -> None:
        if (picked := self._picked_to(self.controller.targets_local)) is not None:
            self.controller.move(*picked)

    def action_irq(self) -> None:
        if (picked := self._picked_to(self.controller.irq_cpus)) is None:
            return
        p, got = picked
        options = [(format_cpulist(c), f"{name}: cpu {format_cpulist(c)}") for name, c in got]

        def chosen(value: str | None) -> None:
            if value is not None:
                self.controller.move(p, frozenset(int(x) for x in _expand(value)))

        self.app.push_screen(ListPickScreen("Beside which IRQ?", options), chosen)

    def action_pick(self) -> None:
        p = self._picked()
        if p is None:
            return
        sel = self.controller.shell.selection()
        online = sorted(sel.host.topology.online) if sel.host is not None else sorted(p.allowed)
        irq_of: dict[int, str] = {}
        got = self.controller.irq_cpus()
        for name, cpus in got if not isinstance(got, str) else ():
            for c in cpus:
                irq_of.setdefault(c, name.split(" ", 1)[0])
        local = self.controller.state.local or frozenset()
        items = []
        for c in online:
            notes = ["NIC-local"] if c in local else []
            if c in irq_of:
                notes.append(f"IRQ {irq_of[c]}")
            label = f"cpu{c}" + (f"  {', '.join(notes)}" if notes else "")
            items.append((label, c, c in p.allowed))

        def chosen(cpus: frozenset[int] | None) -> None:
            if cpus is not None:
                self.controller.move(p, cpus)

        title = f"CPUs for {p.shown_name} (pid {p.ident.pid})"
        self.app.push_screen(CpuPickScreen(title, items), chosen)

    def action_grid(self) -> None:
        p = self._picked()
        if p is None:
            return
        self.dismiss(None)
        self.controller.pick_in_grid(p)

    def action_type(self) -> None:
        p = self._picked()
        if p is not None:
            self.controller.type_list(p)


def _expand(text: str) -> list[int]:
    from tuitune.core.cpulist import parse_cpulist

    return sorted(parse_cpulist(text))


class ListPickScreen(BoxScreen[str | None]):
    """One item from a short list (Enter), Esc cancels."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel")]
    DEFAULT_CSS = """
    ListPickScreen > Vertical { width: 90%; max-width: 80; height: auto; max-height: 90%; }
    ListPickScreen OptionList { height: auto; max-height: 16; }
    """

    def __init__(self, title: str, options: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        self.title_text = title
        self.options = list(options)  # (value, label)

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield OptionList(*[Option(label, id=value) for value, label in self.options])
            yield Static("Enter: move it there   Esc: cancel", markup=False)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class CpuPickScreen(BoxScreen[frozenset[int] | None]):
    """The CPUs as a grid of check boxes (space or a click toggles one), m moves."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel"),
        Binding("m", "done", "Move to the ticked CPUs"),
    ]
    DEFAULT_CSS = """
    CpuPickScreen > Vertical { width: 90%; max-width: 80; height: auto; max-height: 90%; }
    CpuPickScreen SelectionList { height: auto; max-height: 16; }
    """

    def __init__(self, title: str, items: Sequence[tuple[str, int, bool]]) -> None:
        super().__init__()
        self.title_text = title
        self.items = list(items)

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield SelectionList[int](*self.items)
            yield Static("space: tick/untick   m: move it to the ticked CPUs   Esc: cancel")

    def action_done(self) -> None:
        picked = frozenset(self.query_one(SelectionList).selected)
        self.dismiss(picked)

    def action_cancel(self) -> None:
        self.dismiss(None)
