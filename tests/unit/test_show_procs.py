"""Plain `show`'s processes table: another user's argv shown as text (escapes escaped, Rich
markup not applied), the uid on a recorded tree (this machine's passwd names someone else),
the busiest CPUs, and "+N more" past eight rows. End to end on a live namespace in
tests/kernel/test_show_processes.py."""

from __future__ import annotations

from rich.console import Console

from tuitune.core.procs.model import NicProcess, ProcIdent
from tuitune.report.procs import SHOWN_ROWS, processes_table


def proc(pid: int, argv: tuple[str, ...], cpu: dict[int, float]) -> NicProcess:
    return NicProcess(
        ident=ProcIdent(pid, 100 + pid, 65534, argv[0] if argv else "kworker"),
        cmdline=argv,
        allowed=frozenset({0, 1, 2, 3}),
        threads=(),
        cpu_by_cpu=cpu,
        sockets=1,
        kernel_thread=False,
        on_nic_node=False,
        owner_is_caller=False,
        ran_on=frozenset({2}),
    )


def render(procs: list[NicProcess], live: bool) -> str:
    con = Console(width=160, record=True, color_system=None, force_terminal=False)
    con.print(processes_table("eth0", procs, seconds=1.0, live=live))
    return con.export_text()


def test_hostile_argv_uid_busiest_cpus_and_the_cap() -> None:
    hostile = proc(700, ("mover", "[bold]x[/bold]\x1b[2J\u202e"), {0: 1.0, 1: 40.0, 2: 5.0, 3: 3.0})
    rest = [proc(800 + i, ("nuttcp", "-S"), {}) for i in range(SHOWN_ROWS + 1)]
    out = render([hostile, *rest], live=False)
    assert "mover [bold]x[/bold]\\x1b[2J\\u202e" in out
    assert "\x1b" not in out and "\u202e" not in out
    row = next(line for line in out.splitlines() if " 700 " in line)
    assert "uid 65534" in row and "0-3" in row and "remote" in row
    assert "49 (cpu1 40, cpu2 5, cpu3 3, ...)" in row
    assert sum(1 for line in out.splitlines() if "uid 65534" in line) == SHOWN_ROWS
    assert "+2 more (all in --json, or P in the live screen)" in out
    assert "processes with sockets on eth0" in render([], live=True)
