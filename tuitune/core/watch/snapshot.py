"""Immutable snapshots of a host: fast counters (every tick) and slow state (on demand).

The TUI never reads /proc itself: it draws these. Counters are cheap and read every tick;
NicState and HostState involve netlink/ioctl round trips and are read at start, after a write,
and on a slower cadence to notice changes made by someone else.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tuitune.core.host.cpus import Topology
from tuitune.core.host.ethtool import Channels, Coalesce, DriverInfo, Feature, Pause, Rings
from tuitune.core.host.interrupts import Interrupts
from tuitune.core.host.irqbalance import IrqbalanceState
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.netdev import Link, LinkCounters, Placement, QueueMasks
from tuitune.core.host.procfs import ProcStat, Softirqs, SoftnetRow
from tuitune.core.values import Unavailable

# Where per-queue counters come from (HostReader.queue_stats): a recording's is one of these,
# never free text (it is shown in titles).
QueueSource = Literal["ethtool -S", "qstats", "qstats + ethtool -S"]
QUEUE_SOURCES: tuple[QueueSource, ...] = typing.get_args(QueueSource)


@dataclass(frozen=True, slots=True)
class Counters:
    """One sampling tick."""

    time: float  # time.monotonic() when the sample was taken
    stat: ProcStat
    interrupts: Interrupts
    softirqs: Softirqs
    softnet: dict[int, SoftnetRow]
    link: LinkCounters | None  # the watched interface's counters, if any
    link_gone: bool = False  # an interface was asked for and is not there (deleted)
    problems: tuple[Unavailable, ...] = ()  # files that could not be read: read as empty
    # False: `interrupts` holds only the IRQs read one by one from /sys/kernel/irq (the NIC's),
    # not every row of /proc/interrupts (docs/sampling.md).
    irq_full: bool = True
    # Interrupts/s per CPU of the rows a partial sample lacks (timer, IPIs, other devices),
    # over the last window between two full reads: compute_rates adds it to the NIC's own.
    other_intr: Mapping[int, float] | None = None
    # A recording's only (core/record/recorder.py): the interface's per-queue and driver
    # counters read with this tick (HostReader.queue_stats: (name, value) pairs) and their
    # source. The live sampler hands them on its Sample (driver_stats) instead.
    queue_stats: tuple[tuple[str, int], ...] | None = None
    queue_source: QueueSource | None = None


@dataclass(frozen=True, slots=True)
class SysctlValue:
    key: str  # dotted name, as in the catalog
    value: str | Unavailable  # raw text as the kernel prints it (tabs folded to spaces)
    note: str | None = None  # e.g. "no effect since Linux 4.14": present but inert


QDISC_NOT_READ = Unavailable("missing", "root qdisc: not read")
RSS_NOT_READ = Unavailable("missing", "RSS table: not read")


@dataclass(frozen=True, slots=True)
class NicState:
    link: Link
    placement: Placement
    driver: DriverInfo | Unavailable
    features: tuple[Feature, ...] | Unavailable
    rings: Rings | Unavailable
    coalesce: Coalesce | Unavailable
    channels: Channels | Unavailable
    pause: Pause | Unavailable
    queues: tuple[QueueMasks, ...]
    irqs: tuple[NicIrq, ...]
    irq_affinity: dict[str, IrqAffinity]
    driver_stats: tuple[tuple[str, int], ...] | Unavailable
    # The root qdisc as the journal's value (core/host/qdisc_spec.py): the NIC panel's row.
    qdisc: str | Unavailable = QDISC_NOT_READ
    # Receive steering as the journal's values (kinds/rss.py, kinds/ntuple.py): the RSS table,
    # the hash fields per flow type, the ntuple rules by location.
    rss: str | Unavailable = RSS_NOT_READ
    flow_hash: tuple[tuple[str, str], ...] = ()
    ntuple: tuple[tuple[int, str], ...] = ()
    # The additional RSS contexts the ntuple rules name, read only: (id, its table as the
    # journal would write it, or why it could not be read).
    rss_contexts: tuple[tuple[int, str], ...] = ()
    # Why that is not every context (a kernel before 6.12 cannot list them); "" when whole.
    rss_contexts_note: str = ""
    # The table itself (slot -> rx queue) and the device's rx rings, for the live advisor's
    # steering rules, which judge slots per queue (the value above is the journal's words).
    rss_indir: tuple[int, ...] = ()
    rss_rings: int | None = None

    @property
    def driver_name(self) -> str:
        if isinstance(self.driver, DriverInfo):
            return self.driver.driver
        return self.link.kind or "unknown driver"


@dataclass(frozen=True, slots=True)
class HostState:
    hostname: str
    kernel: str
    netns: str | None
    topology: Topology
    irqbalance: IrqbalanceState
    sysctls: tuple[SysctlValue, ...]
    is_root: bool


@dataclass(frozen=True, slots=True)
class Snapshot:
    host: HostState
    nic: NicState | None
    counters: Counters
