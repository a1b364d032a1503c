"""Picking a process's CPUs in the main screen's CPU grid: `g` in the processes view (`P`)
closes it and starts this pick mode. The grid's cursor moves as usual, space ticks or unticks
the CPU under it (marked on the grid), Enter moves the process to the ticked CPUs as one
journal step (the processes view's own path: another user's process asks first), Esc leaves
and changes nothing. The hint line says which process and what is ticked.

The App draws: this controller keeps the state and posts `GridPick.Changed` when it moves.
"""

from __future__ import annotations

from textual.message import Message

from tuitune.core.cpulist import format_cpulist
from tuitune.core.procs.model import NicProcess, printable
from tuitune.tui.controllers.procs import ProcsController
from tuitune.tui.shell import Shell


class GridPick:
    class Changed(Message):
        """Pick mode started, ticked, applied or cancelled: redraw the grid and the hint."""

        def __init__(self, started: bool = False) -> None:
            super().__init__()
            self.started = started  # the App moves the focus to the CPU grid

    def __init__(self, shell: Shell, procs: ProcsController) -> None:
        self.shell = shell
        self.procs = procs
        self.proc: NicProcess | None = None  # the process whose CPUs are picked; None: off
        self.cpus: frozenset[int] = frozenset()

    @property
    def picking(self) -> bool:
        return self.proc is not None

    def _who(self) -> str:
        p = self.proc
        return f"{printable(p.ident.comm, 16)} (pid {p.ident.pid})" if p is not None else ""

    def hint(self) -> str | None:
        """The hint line's text while picking; None otherwise."""
        if self.proc is None:
            return None
        ticked = format_cpulist(self.cpus) if self.cpus else "none"
        # The keys and the ticked CPUs first: at 80 columns a long name must not push them
        # off the line.
        return f"space: tick  Enter: move  Esc: cancel  ticked: {ticked}  for {self._who()}"

    def start(self, proc: NicProcess) -> None:
        """Pick mode for `proc`, nothing ticked yet."""
        if proc.kernel_thread:
            self.shell.notify_line("a kernel thread: tuitune never moves one", True)
            return
        read_only = self.shell.session.read_only
        if read_only:
            self.shell.notify_line(f"nothing to move: {read_only}", True)
            return
        self.proc, self.cpus = proc, frozenset()
        self.shell.post_message(GridPick.Changed(started=True))

    def toggle(self, cpu: int) -> None:
        if self.proc is None:
            return
        host = self.shell.selection().host
        if host is not None and cpu not in host.topology.online:
            self.shell.notify_line(f"cpu {cpu} is offline: a process cannot run there", True)
            return
        self.cpus = self.cpus ^ {cpu}
        self.shell.post_message(GridPick.Changed())

    def apply(self) -> None:
        """Move the process to the ticked CPUs; with none ticked, say so and keep picking."""
        proc = self.proc
        if proc is None:
            return
        if not self.cpus:
            self.shell.notify_line("no CPU ticked: space ticks the one under the cursor", True)
            return
        cpus, self.proc, self.cpus = self.cpus, None, frozenset()
        self.shell.post_message(GridPick.Changed())
        self.procs.move(proc, cpus)

    def cancel(self) -> None:
        if self.proc is None:
            return
        who = self._who()
        self.proc, self.cpus = None, frozenset()
        self.shell.notify_line(f"nothing moved: {who} keeps its CPUs")
        self.shell.post_message(GridPick.Changed())
