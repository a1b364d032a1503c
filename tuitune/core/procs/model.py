"""The read model of the processes that use a NIC: who they are, where they may run (their
affinity), where their threads did run, and how much CPU each CPU gave them.

Everything here came from /proc entries that other users control: a process names itself
(prctl PR_SET_NAME, argv[0] rewritten at will), so `comm` and `cmdline` are hostile text. They
are kept raw (a journal compares them) and go through `printable` wherever they are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tuitune.core.text import SHOWN_MAX as SHOWN_MAX
from tuitune.core.text import printable as printable


@dataclass(frozen=True)
class ProcIdent:
    """One process, told apart from a later one that reuses its PID by `start_ticks`
    (field 22 of /proc/PID/stat: when it started, in clock ticks since boot)."""

    pid: int
    start_ticks: int
    uid: int  # effective uid (as ps shows it), the one the kernel's permission check compares
    comm: str  # raw: see printable()

    @property
    def name(self) -> str:
        """The journal's key name for this process: "PID@START"."""
        return f"{self.pid}@{self.start_ticks}"


@dataclass(frozen=True)
class ThreadRun:
    """One thread (task) of a process at one reading."""

    tid: int
    comm: str  # raw: see printable()
    last_cpu: int  # field 39 of /proc/PID/task/TID/stat: the CPU it last ran on
    allowed: frozenset[int]  # Cpus_allowed_list: its affinity
    ticks: int = 0  # utime + stime (clock ticks): the window's CPU use comes from two of these


@dataclass(frozen=True)
class NicProcess:
    """A process with sockets on a NIC's addresses, over one window (or one reading)."""

    ident: ProcIdent
    cmdline: tuple[str, ...]  # raw argv: see printable()
    allowed: frozenset[int]  # the process's (main thread's) affinity
    threads: tuple[ThreadRun, ...]
    # Percent of one CPU, per CPU, over the window: each thread's utime+stime delta, put on the
    # CPU it was last seen on. Empty for a single reading (no window yet).
    cpu_by_cpu: Mapping[int, float]
    sockets: int  # sockets bound to one of the NIC's addresses
    kernel_thread: bool  # PF_KTHREAD: never moved
    on_nic_node: bool | None  # every thread last ran on a CPU of the NIC's node; None: unknown
    owner_is_caller: bool  # same effective uid as tuitune (else changing it asks first)
    wildcard: int = 0  # sockets bound to any address (0.0.0.0, ::): they serve this NIC too
    unit: str | None = None  # the systemd unit it runs in (/proc/PID/cgroup), when it has one
    unit_user: int | None = None  # whose manager owns `unit`: a uid (user@UID), None the system

    @property
    def shown_unit(self) -> str | None:
        """The unit as shown: a user manager's unit says whose it is."""
        if self.unit is None:
            return None
        name = printable(self.unit, 60)
        return name if self.unit_user is None else f"{name} (user unit of uid {self.unit_user})"

    ran_on: frozenset[int] = field(default_factory=frozenset)  # where its threads last ran

    @property
    def cpu_total(self) -> float:
        """Percent of one CPU over the window, all CPUs together."""
        return sum(self.cpu_by_cpu.values())

    @property
    def shown_name(self) -> str:
        return printable(self.ident.comm)

    @property
    def shown_cmdline(self) -> str:
        return printable(" ".join(self.cmdline) if self.cmdline else f"[{self.ident.comm}]")
