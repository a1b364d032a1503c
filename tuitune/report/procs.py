"""`tuitune show`'s "processes" section: who holds sockets on the NIC, where they may run and
where their threads ran. A process names itself (its comm, its argv): every such text goes
through procs.model.printable and into Rich as a Text, never as markup, so "[bold]" or an
escape sequence in a name is shown as the characters it is."""

from __future__ import annotations

import pwd
from collections.abc import Sequence

from rich import box
from rich.table import Table
from rich.text import Text

from tuitune.core.cpulist import format_cpulist
from tuitune.core.procs.model import NicProcess, printable

# Rows shown before "+N more": show is a summary, --json and the P view have every one.
SHOWN_ROWS = 8
COMMAND_WIDTH = 48  # an argv longer than this is elided in the middle


def owner(uid: int, live: bool) -> str:
    """The user's name on a live host; on a recorded tree this machine's passwd would name
    someone else, so the uid alone."""
    if live:
        try:
            return printable(pwd.getpwuid(uid).pw_name, 16)
        except KeyError:
            pass
    return f"uid {uid}"


def _node(p: NicProcess) -> Text:
    if p.on_nic_node is None:
        return Text("?", style="dim")
    return Text("ok", style="green") if p.on_nic_node else Text("remote", style="yellow")


def _cpu(p: NicProcess, seconds: float) -> str:
    """ "45 (cpu0 40, cpu1 5)": percent of one CPU over the interval, its three busiest CPUs;
    "-" without an interval."""
    if seconds <= 0:
        return "-"
    if not p.cpu_by_cpu:
        return "0"
    top = sorted(p.cpu_by_cpu.items(), key=lambda cv: (-cv[1], cv[0]))[:3]  # the busiest
    parts = ", ".join(f"cpu{c} {v:.0f}" for c, v in top)
    more = ", ..." if len(p.cpu_by_cpu) > 3 else ""
    return f"{p.cpu_total:.0f} ({parts}{more})"


def processes_table(
    ifname: str, procs: Sequence[NicProcess], *, seconds: float, live: bool
) -> Table | Text:
    """The section: a table of at most SHOWN_ROWS processes, then "+N more"."""
    title = f"processes with sockets on {ifname} (listening on every address counts)"
    if not procs:
        return Text(f"{title}: none", style="dim")
    t = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("pid", "user", "command", "allowed", "ran on", "node", "CPU %"):
        t.add_column(col, justify="right" if col == "pid" else "left", no_wrap=col != "command")
    for p in procs[:SHOWN_ROWS]:
        cmd = Text(printable(" ".join(p.cmdline), COMMAND_WIDTH) if p.cmdline else "")
        if not p.cmdline:  # a kernel thread, or argv cleared: its comm, as ps shows it
            cmd = Text(f"[{p.shown_name}]", style="dim")
        t.add_row(
            str(p.ident.pid),
            Text(owner(p.ident.uid, live)),
            cmd,
            Text(format_cpulist(p.allowed) or "-"),
            Text(format_cpulist(p.ran_on) or "-"),
            _node(p),
            Text(_cpu(p, seconds)),
        )
    more = len(procs) - SHOWN_ROWS
    notes = ["node: where its threads ran against the NIC's NUMA node"]
    if more > 0:
        notes.insert(0, f"+{more} more (all in --json, or P in the live screen)")
    t.caption = "; ".join(notes)
    t.caption_justify = "left"
    return t
