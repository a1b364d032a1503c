"""What every rule reads: the host, the NIC, the window and the context, with small helpers.

Rules are pure functions of a `Facts`: no reads of their own, so a recorded tree, a replayed
window and a live host give the same findings from the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tuitune.core.advise.model import Context, Finding, Note
from tuitune.core.advise.window import Window
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.procs.model import NicProcess
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import HostState, NicState

if TYPE_CHECKING:
    from tuitune.core.host.conns import Connection
    from tuitune.core.host.pcie_link import PcieLink
    from tuitune.core.host.platform import Platform
    from tuitune.core.host.qdisc import Qdisc
    from tuitune.core.host.rss import RssState, RssTable


@dataclass(frozen=True, slots=True)
class Facts:
    host: HostState
    nic: NicState | None
    window: Window
    context: Context
    pcie: PcieLink | None = None  # the NIC's PCIe link, when read (core/host/pcie_link.py)
    held: frozenset[Key] = frozenset()  # settings tuitune's journal holds for this host
    # The NIC's processes over the window (core/procs), busiest first; None: not read.
    processes: tuple[NicProcess, ...] | None = None
    # CPU power, SMT, the PCIe path, IOMMU, driver (core/host/platform.py); None: not read.
    platform: Platform | None = None
    rss: RssState | None = None  # RSS table and hash fields, when read (core/host/rss.py)
    qdiscs: tuple[Qdisc, ...] | None = None  # the interface's qdisc tree, when read
    connections: tuple[Connection, ...] | None = None  # its TCP connections, when read

    @property
    def ifname(self) -> str:
        return self.nic.link.ifname if self.nic is not None else "?"

    def rss_table(self) -> RssTable | None:
        """The RSS table: the reading's (`show`, `advise`), else the NIC state's (the live
        screen reads it with the NIC state); None: none read."""
        if self.rss is not None:
            return self.rss.table
        nic = self.nic
        if nic is None or not nic.rss_indir:
            return None
        from tuitune.core.host.rss import RssTable

        return RssTable(nic.rss_indir, b"", None, nic.rss_rings)

    def flow_hash(self) -> dict[str, str]:
        """The hash fields per flow type, the reading's else the NIC state's ({}: not read)."""
        if self.rss is not None:
            return dict(self.rss.flow_hash)
        return dict(self.nic.flow_hash) if self.nic is not None else {}

    def rss_why(self) -> str:
        """Why there is no RSS table to judge, in the words the NIC panel shows: the reading's
        own reason (`show`, `advise`), else the NIC state's (the live screen reads the table
        with the NIC state: "RSS table: not supported by veth (...)"), else not read."""
        if self.rss is not None and self.rss.why:
            return self.rss.why
        state = self.nic.rss if self.nic is not None else None
        if isinstance(state, Unavailable) and state.kind != "missing":
            return state.reason
        return "RSS table not read (ethtool -x)"

    def sysctl(self, key: str) -> str | None:
        """A catalog sysctl's value as the kernel prints it, None when it could not be read."""
        for s in self.host.sysctls:
            if s.key == key:
                return None if isinstance(s.value, Unavailable) else s.value
        return None

    def sysctl_ints(self, key: str) -> list[int] | None:
        text = self.sysctl(key)
        if text is None:
            return None
        try:
            return [int(x) for x in text.split()]
        except ValueError:
            return None

    def queue_irqs(self) -> list[NicIrq]:
        """The NIC's queue IRQs (its misc/management vectors left out)."""
        return [q for q in self.nic.irqs if q.kind != "misc"] if self.nic is not None else []

    def local_cpus(self) -> frozenset[int]:
        """The CPUs of the NIC's NUMA node that are online; every online CPU when the device
        has no locality."""
        online = self.host.topology.online
        local = self.nic.placement.local_cpus if self.nic is not None else None
        found = (local & online) if local else online
        return found or online


Outcome = Finding | Note
Rule = Callable[[Facts], Iterable[Outcome]]


def cpus(cpus: Iterable[int]) -> str:
    return format_cpulist(frozenset(cpus)) or "none"


def pct(x: float) -> str:
    return f"{x:.0f} %"


def rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.1f}M/s"
    if x >= 1e4:
        return f"{x / 1e3:.0f}k/s"
    return f"{x:.0f}/s"
