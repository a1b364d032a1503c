"""What a kind handler is given: `KernelPort`, the kernel calls of one host it may make.

`HostAccess` satisfies it (mypy checks that structurally where access.py hands itself to a
handler); a test may hand a handler anything else that does. Handlers never import access.py:
the port names exactly what they use, so the arrow runs one way (access -> kinds) and a new
kind's needs show up here, in one reviewed list, rather than as a reach into HostAccess.
Every call runs on the host's kernel thread, inside its network namespace.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tuitune.core.host.ethtool_device import EthtoolLike
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.host.irqmap import NicIrq
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session.proc_affinity import ProcAffinity
    from tuitune.core.session.service import Services
    from tuitune.core.session.validate import HostCpus

Values = dict[Key, str]
GroupRead = Values | Unavailable
FileWriter = Callable[[Path, str], None]


class KernelPort(Protocol):
    """The host's kernel, as the kind handlers see it.

    `root`: the tree every path is under (a live host's /proc and /sys, or a recorded one).
    `writer`: the one write(2) of a /proc or /sys value (a fake in tests).
    `irq_parts`: IRQ -> its queue names, shared by the reads of one `read_many` (None: not
    parsed yet; {}: outside one, parse now). `procs`, `services`: processes' CPU affinity and
    systemd services, each with its own reader and writer.
    """

    root: HostRoot
    writer: FileWriter
    irq_parts: dict[str, list[str]] | None
    procs: ProcAffinity
    services: Services

    def read_group(self, key: Key) -> GroupRead:
        """Every value of `key`'s group, read by its handler."""
        ...

    def current(self, key: Key) -> str:
        """The current value; raises WriteRefused with the reason it cannot be read."""
        ...

    def ethtool(self, ifname: str) -> EthtoolLike | None:
        """The interface's ethtool device (None: a recorded tree without one)."""
        ...

    def iproute(self) -> Any:
        """The namespace's rtnetlink socket (pyroute2's IPRoute)."""
        ...

    def cpus(self) -> tuple[frozenset[int], frozenset[int]]:
        """(online, present) CPUs."""
        ...

    def possible(self) -> int | None:
        """nr_cpu_ids: the bound of a typed CPU list."""
        ...

    def host_cpus(self) -> HostCpus:
        """What a typed CPU list is checked against, read now."""
        ...

    def nic_irqs(self, ifname: str) -> list[NicIrq]:
        """The interface's IRQs with their queue names, from /proc/interrupts."""
        ...


class HostPlacing(Protocol):
    """What a handler places a profile's host-wide request with (`place`; session/
    profile_platform.py gives it, reading each thing once for all the requests): this host's
    CPUs of a selector ("*", "nic-local", "0-7"; ValueError or CpuListError when it names
    none), its cpufreq policies (number, CPUs), each CPU's C-state names -> indices, the CPUs
    present."""

    root: HostRoot

    def cpus_of(self, selector: str, origin: str) -> frozenset[int]: ...
    def policies(self) -> tuple[tuple[int, frozenset[int]], ...]: ...
    def idle(self) -> dict[int, dict[str, int]]: ...
    def present(self) -> frozenset[int]: ...
