"""The Host view (`H`): the platform under the NIC in ESnet's order (BIOS/platform, firmware,
driver, NIC), one line a row (core/platformview.py); Enter opens the row's catalog help (CPU
power, PCIe link, MSI-X, irqbalance). The platform is read on a worker thread (a big host has
tens of thousands of cpuidle files) and its worst static finding is named in the NIC panel's
title.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from tuitune.core.advise.model import Finding
from tuitune.core.catalog.device import DEVICE_HELP
from tuitune.core.host.platform import Platform
from tuitune.core.platformnote import worst
from tuitune.core.platformview import Row, platform_rows
from tuitune.core.session import Key, Outcome
from tuitune.core.session.kinds.table import PLATFORM_READS
from tuitune.core.session.validate import one_line
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.controllers.procs import nic_local
from tuitune.tui.host_edit import (
    CPU_EDITS,
    CpuContext,
    HostEdit,
    host_edit,
    parse_cpu_edit,
    parse_host_edit,
)
from tuitune.tui.panels.sysctlpanel import device_help
from tuitune.tui.platform_note import nic_note, read_host
from tuitune.tui.screens.box import BoxScreen
from tuitune.tui.screens.dialogs import EditorScreen, TextScreen
from tuitune.tui.shell import Shell

HINT = "Enter: help for the row   e: change it   Esc/q: close"
# What the Host view's `e` runs: the journal's apply (one step for several keys: a governor
# on every NIC-local policy) off the UI thread, then the outcome (one line for all).
Apply = Callable[[Sequence[tuple[Key, str]], Callable[[Outcome], None]], None]
# SMT from the Host view: (key, current, wanted) handed to the screen's editor, on trial.
Trial = Callable[[Key, str, str], None]


def help_body(row: Row) -> tuple[str, str]:
    """(title, text) for Enter on a row: its catalog help, else the row in full."""
    if not row.help or row.help not in DEVICE_HELP:
        return row.label, f"{row.section}: {row.label}\n\n{row.value}"
    return f"{row.label} ({row.help})", f"{row.label}: {row.value}\n\n{device_help((row.help,))}"


def worst_line(found: Finding | None) -> str:
    return "platform: nothing found" if found is None else f"{found.severity}: {found.title}"


class HostScreen(BoxScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,H", "close", "Close"),
        Binding("e", "edit", "Change the row's setting"),
    ]
    # Not a query in on_mount: under load a screen replaced at once (`reopen` after an edit)
    # could get its Mount after its widgets were gone (NoMatches, seen in a TUI test).
    AUTO_FOCUS: ClassVar[str | None] = "OptionList"
    DEFAULT_CSS = """
    HostScreen > Vertical { width: 96%; max-width: 160; height: 96%; }
    HostScreen .worst { height: auto; max-height: 3; }
    HostScreen .hint { color: $text-muted; height: 1; }
    HostScreen #host-notice { height: 1; overflow: hidden; }
    HostScreen OptionList, HostScreen OptionList:focus { height: 1fr; border: none; }
    """

    def __init__(
        self,
        ifname: str | None,
        rows: list[Row],
        found: Finding | None,
        module: str | None = None,
        apply: Apply | None = None,
        reopen: Callable[[str], None] | None = None,
        notice: str = "",
        trial: Trial | None = None,
        cpu: CpuContext | None = None,
    ) -> None:
        super().__init__()
        self.cpu = cpu or CpuContext()
        self.ifname = ifname
        self.rows = rows
        self.found = found
        self.module = module
        self.apply = apply  # None: a read-only screen (a replay)
        self.reopen = reopen  # after a change: read the platform again, show it and `notice`
        self.notice = notice
        self.trial = trial
        self._by_id: dict[str, Row] = {}

    def compose(self) -> ComposeResult:
        options: list[Option] = []
        last = None
        for i, row in enumerate(self.rows):
            if row.section != last:
                options.append(Option(Text(row.section, style="bold underline"), disabled=True))
                last = row.section
            style = "dim italic" if row.unavailable else ""
            prompt = Text.assemble((f"{row.label}: ", "bold"), (row.value, style))
            if row.help:
                prompt.append(" ?", style="dim")
            oid = f"row{i}"
            self._by_id[oid] = row
            options.append(Option(prompt, id=oid))
        with Vertical() as box:
            box.border_title = f"Host: {self.ifname or 'no interface'}"
            warn = "bold" if self.found is not None and self.found.severity != "hint" else ""
            yield Static(Text(worst_line(self.found), style=warn), classes="worst")
            yield OptionList(*options)
            yield Static(one_line(self.notice), id="host-notice", markup=False)
            yield Static(HINT, classes="hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        row = self._by_id.get(event.option.id or "")
        if row is not None:
            title, body = help_body(row)
            self.app.push_screen(TextScreen(title, body))

    def action_close(self) -> None:
        self.dismiss(None)

    def action_edit(self, error: str = "", typed: str | None = None) -> None:
        options = self.query_one(OptionList)
        index = options.highlighted
        oid = options.get_option_at_index(index).id if index is not None else None
        row = self._by_id.get(oid or "")
        if row is None:
            return
        how = host_edit(row, self.ifname, self.module)
        if self.apply is None:
            how = f"{row.label}: read-only here (the header says why): nothing is changed"
        if isinstance(how, str):
            self.say(how, warn=True)
            return
        start = how.current if typed is None else typed
        now = how.shown or how.current or "-"
        screen = EditorScreen(how.label, now, how.hint, error, typed=start)
        self.app.push_screen(screen, lambda text: self._submit(how, text))

    def say(self, text: str, warn: bool = False) -> None:
        """One line under the rows (the screen covers the header, where the App says it),
        and the App's own notice as the record of it."""
        line = one_line(("! " if warn else "") + text)
        self.query_one("#host-notice", Static).update(Text(line, style="bold" if warn else ""))
        self.app.log(line)

    def _submit(self, how: HostEdit, text: str | None) -> None:
        if text is None or self.apply is None:
            return
        if how.edit in CPU_EDITS:
            many = parse_cpu_edit(how.edit, how.cpus, text, self.cpu)
            if isinstance(many, str):
                self.action_edit(error=many, typed=text)
                return
            self._run(many, text)
            return
        got = parse_host_edit(how.edit, self.ifname, self.module, text)
        if isinstance(got, str):
            self.action_edit(error=got, typed=text)
            return
        if how.edit == "smt":  # on trial: the main screen counts down, y keeps it
            if self.trial is None:
                self.say("SMT: read-only here", warn=True)
                return
            self.dismiss(None)
            self.trial(got[0], how.current, got[1])
            return
        self._run([got], text)

    def _run(self, changes: Sequence[tuple[Key, str]], text: str) -> None:
        if self.apply is None:
            return

        def done(out: Outcome) -> None:
            if out.status == "invalid":
                self.action_edit(error=out.reason or "not valid", typed=text)
                return
            ok = out.status in ("changed", "skipped")
            self.say(out.describe(), warn=not ok)
            if out.status == "changed" and self.reopen is not None:
                self.dismiss(None)
                self.reopen(out.describe())

        self.apply(changes, done)


def cpu_context(platform: Platform, host: HostState, nic: NicState | None) -> CpuContext:
    cpu = platform.cpu
    idle = (
        {} if isinstance(cpu.idle, Unavailable) else {c: g.states for g in cpu.idle for c in g.cpus}
    )
    return CpuContext(cpu.policies, idle, nic_local(nic, host), cpu.boost_file)


def refresh_platform(
    shell: Shell,
    reader: HostReader,
    set_nic_title: Callable[[str], None],
    *,
    apply: Apply | None = None,
    notice: str = "",
    trial: Trial | None = None,
    read: Callable[[str | None, Platform], None] | None = None,
) -> None:
    """Read the platform, the host and the NIC off the UI thread (`read(ifname)`: at mount
    the screen has no host state yet); then name the worst finding in the NIC panel's title,
    and open the Host view (the note alone, without the view: tui/platform_note.py)."""
    ifname = shell.selection().ifname

    def done(got: tuple[Platform, HostState, NicState | None]) -> None:
        platform, host, nic = got
        if read is not None:
            read(ifname, platform)
        found = worst(host, nic, platform)
        set_nic_title(nic_note(found))
        rows = platform_rows(platform, host, nic)

        def reopen(said: str) -> None:
            refresh_platform(
                shell,
                reader,
                set_nic_title,
                apply=apply,
                notice=said,
                trial=trial,
                read=read,
            )

        module = platform.driver.module
        cpu = cpu_context(platform, host, nic)
        shell.push_screen(
            HostScreen(ifname, rows, found, module, apply, reopen, notice, trial, cpu)
        )

    shell.in_thread(lambda: read_host(reader, ifname, PLATFORM_READS), done, group="platform")
