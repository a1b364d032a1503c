"""The host layer's front door: reads Counters, NicState and HostState for one host.

Every call runs on the host's KernelThread (inside its netns when one is named), so callers in
the UI thread or in a thread worker get the same view and never block an asyncio loop with
pyroute2's own loop. Netlink and ethtool sockets are opened once, on that thread, and reused.
"""

from __future__ import annotations

import dataclasses
import errno
import os
import socket
import sys
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tuitune.core import catalog
from tuitune.core.closing import Closing
from tuitune.core.host.conns import Connection, read_connections
from tuitune.core.host.cpus import TopologyReader
from tuitune.core.host.ethtool import Ethtool
from tuitune.core.host.ethtool_device import EthtoolLike as EthtoolLike  # tests find it here
from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.ethtool_netlink import NetlinkError
from tuitune.core.host.handles import KernelHandles
from tuitune.core.host.ifsummary import InterfaceSummary, interface_summaries
from tuitune.core.host.interrupts import Interrupts, InterruptsParser, IrqRow, parse_interrupts
from tuitune.core.host.irqbalance import read_irqbalance
from tuitune.core.host.irqfiles import IrqFilesCache, read_irq_rows
from tuitune.core.host.irqmap import nic_irqs
from tuitune.core.host.irqs import IrqAffinity, has_irq_debugfs, read_irq_affinity
from tuitune.core.host.keptroot import KeptRoot, keeps_files
from tuitune.core.host.netdev import (
    interface_exists,
    list_interfaces,
    read_counters,
    read_link,
    read_placement,
    read_queues,
)
from tuitune.core.host.netns import KernelThread
from tuitune.core.host.procfs import SoftnetParser, StatParser, parse_softirqs, parse_stat
from tuitune.core.host.qdisc import Qdisc, from_messages
from tuitune.core.host.qdisc_spec import tree_value
from tuitune.core.host.qstats import QstatsNetlink
from tuitune.core.host.queuestats import classify, measure_of
from tuitune.core.host.root import BIG_FILE, HostRoot, KernelFileError, decode_text
from tuitune.core.host.rss import RssState
from tuitune.core.host.rss import read_state as read_rss_state
from tuitune.core.host.rss_netlink import listing_refused
from tuitune.core.host.sysctl import read_sysctl
from tuitune.core.host.tickreads import SoftirqsReader, StatReader
from tuitune.core.values import Unavailable, from_oserror
from tuitune.core.watch.irqaffinity import AffinityRounds
from tuitune.core.watch.snapshot import Counters, HostState, NicState, Snapshot, SysctlValue

# A capture's device state (--root CAPTURE) loads with such a tree only: a live host's screen
# never needs it (issue 38).
if TYPE_CHECKING:
    from tuitune.core.capture.device import CapturedDevice, QueueCounters

# What queue_stats answers: (counter name, value) pairs and their source, or why none.
QueueStatsRead = tuple[tuple[tuple[str, int], ...], str] | Unavailable

NOT_RECORDED = Unavailable("missing", "not recorded in this host tree")


def _not_traffic(name: str) -> bool:
    """An ethtool -S name that is not a queue's packets or bytes (which qstats gives)."""
    got = classify(name)
    if got is None:
        return True
    kind = measure_of(got[2])
    return kind is None or kind[0] not in ("packets", "bytes")


class UnknownInterface(LookupError):
    def __init__(self, ifname: str, known: list[str]) -> None:
        super().__init__(f"no interface {ifname!r}; interfaces here: {', '.join(known) or 'none'}")
        self.ifname = ifname
        self.known = known


def _sysctl_value(
    root: HostRoot,
    e: catalog.SysctlEntry,
    kernel: str,
    host_wide: dict[str, str | Unavailable] | None = None,
) -> SysctlValue:
    """Read one catalog sysctl, saying why an old key is absent or inert on this kernel.
    `host_wide` holds host-scoped values read outside the namespace being watched."""
    if not e.readable:
        return SysctlValue(e.key, Unavailable("unsupported", f"{e.key}: write-only trigger"))
    value = host_wide[e.key] if host_wide and e.key in host_wide else read_sysctl(root, e.key)
    try:
        removed, inert = catalog.removed_on(e, kernel), catalog.noop_on(e, kernel)
    except ValueError:  # a recorded tree without a kernel release
        removed = inert = False
    if isinstance(value, Unavailable) and value.kind == "missing" and removed:
        value = Unavailable("missing", f"{e.key}: removed in Linux {e.removed_in}")
    elif isinstance(value, Unavailable) and value.kind == "missing" and not root.live:
        value = Unavailable("missing", "not recorded")
    note = f"no effect since Linux {e.noop_since}" if inert else None
    return SysctlValue(e.key, value, note)


# The free room read_into keeps in its buffer while it reads (root.py): a buffer this much
# larger than the file is read without being grown.
_READ_ROOM = 1 << 16


class HostReader(Closing):
    """`ethtool` makes the device reader for an interface. Live hosts default to the real
    `Ethtool`; a recorded tree has no device to ask, so its ethtool groups read as "not
    recorded" unless a reader built from captures is given (the TUI's fixture hosts do)."""

    def __init__(
        self,
        root: HostRoot | None = None,
        ethtool: Callable[[str], EthtoolLike] | None = None,
    ) -> None:
        self.root = root or HostRoot()
        self._kt = KernelThread(self.root.netns)
        self._irq_parser = InterruptsParser()  # reuses rows that did not move since last tick
        self._irq_size = 0  # the last whole /proc/interrupts' size: the next one's buffer
        self._named: dict[str, IrqRow] = {}  # the last full read's rows: chips and names
        self._softnet = SoftnetParser()  # converts only the lines that changed
        self._stat = StatParser()  # converts only the /proc/stat columns that moved
        self._stat_text = StatReader()  # reads /proc/stat up to its cpu lines' end
        self._softirqs = SoftirqsReader()  # reads only the NET_TX/NET_RX rows' lines
        self._irq_files = IrqFilesCache()  # last tick's per-IRQ counts: convert what moved
        self._topology = TopologyReader()  # each CPU's files again only after a hotplug
        # The live host's tick files stay open between ticks (keptroot.py), for the tick's
        # (interface, IRQs): another pair, or a whole tick, opens them afresh.
        self._kept = KeptRoot(self.root) if keeps_files(self.root) else None
        self._kept_for: tuple[str | None, frozenset[str]] | None = None
        if ethtool is None and self.root.jail is not None:
            # A capture's tree holds its interface's ethtool state (core/capture/device.py).
            from tuitune.core.capture.device import device_reader

            ethtool = device_reader(Path(self.root.jail))
        # A capture of a namespace says so, as the live host it was taken from did.
        self._tree_netns = _captured_netns(Path(self.root.jail)) if self.root.jail else None
        # Shared with a Session on the same kernel thread (Session(handles=reader.handles)).
        self.handles: KernelHandles[EthtoolLike] = KernelHandles(
            self.root.live, ethtool or (Ethtool if self.root.live else None)
        )
        self._qstats: QstatsNetlink | None = None  # opened at the first queue_stats()
        self._qstats_missing = False  # no netdev family (kernel before 6.10): not asked again
        # (ifname, queue_stats) read with a tick's counters, for the same tick's queue_stats.
        self._kept_queues: tuple[str, QueueStatsRead] | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        self._kt.call(self._forget_files)
        self._kt.call(self.handles.close)
        if self._qstats is not None:
            self._kt.call(self._qstats.close)
        self._kt.close()

    # -- public API (thread-safe: each call hops to the kernel thread) ------------------------
    def interfaces(self) -> list[str]:
        return self._kt.call(list_interfaces, self.root)

    def interface_summaries(self) -> list[InterfaceSummary]:
        return self._kt.call(lambda: interface_summaries(self.root, self._iproute()))

    def check_interface(self, ifname: str) -> None:
        if not self._kt.call(interface_exists, self.root, ifname):
            raise UnknownInterface(ifname, self.interfaces())

    def counters(
        self, ifname: str | None, irqs: Collection[str] | None = None, *, queues: bool = False
    ) -> Counters:
        """`irqs`: read only these IRQs, from /sys/kernel/irq/N/per_cpu_count, instead of the
        whole /proc/interrupts (which is still read when they cannot be: irq_full says which).
        None: read /proc/interrupts. `queues`: also read the interface's per-queue counters
        in the same hand-off to the kernel thread, kept for the next queue_stats(ifname):
        a tick wakes the kernel thread (and waits for it) once, not twice (issue 38)."""
        return self._kt.call(self._counters_then_queues if queues else self._counters, ifname, irqs)

    def nic_state(
        self, ifname: str, with_stats: bool = True, interrupts: Interrupts | None = None
    ) -> NicState:
        """`interrupts`: a /proc/interrupts just parsed for a tick, so that the file (13 MB on
        a 1152-CPU host) is not read and parsed twice."""
        return self._kt.call(self._nic_state, ifname, with_stats, interrupts)

    def driver_stats(self, ifname: str) -> tuple[tuple[str, int], ...] | Unavailable:
        """`ethtool -S` alone: the start of a window whose end is `nic_state(with_stats=True)`
        (per-queue rates, core/host/queuestats.py)."""
        return self._kt.call(self._driver_stats, ifname)

    def _driver_stats(self, ifname: str) -> tuple[tuple[str, int], ...] | Unavailable:
        et = self._eth(ifname)
        return et.stats() if et is not None else NOT_RECORDED

    def captured_queues(self, ifname: str) -> QueueCounters | None:
        """A capture's per-queue counters at its recording's start and end (None: none)."""
        et = self._kt.call(self._eth, ifname)
        dev = _captured(et)
        return dev.dev.queues if not self.root.live and dev is not None else None

    def captured(self, ifname: str) -> bool:
        """The tree is a capture holding `ifname`'s device state (core/capture)."""
        return not self.root.live and _captured(self._kt.call(self._eth, ifname)) is not None

    def rss(self, ifname: str) -> RssState:
        """RSS table, key, hash function and hash fields per flow type (core/host/rss.py)."""
        return self._kt.call(self._rss, ifname)

    def _rss(self, ifname: str) -> RssState:
        if not self.root.live:
            et = self._eth(ifname)  # a capture holds what the ioctls said
            dev = _captured(et)
            if dev is not None and dev.dev.rss is not None:
                return dev.dev.rss
            return RssState(None, {}, "RSS: not recorded in this host tree")
        et = self._eth(ifname)
        driver = et.driver_info() if et is not None else None
        name = getattr(driver, "driver", None) or "this driver"
        io = EthtoolIoctl(ifname)
        try:
            return read_rss_state(io, name, getattr(et, "rss_contexts", None), listing_refused)
        finally:
            io.close()

    def qdiscs(self, ifname: str) -> tuple[Qdisc, ...] | Unavailable:
        """The interface's qdisc tree (core/host/qdisc.py)."""
        return self._kt.call(self._qdiscs, ifname)

    def _qdiscs(self, ifname: str) -> tuple[Qdisc, ...] | Unavailable:
        # The hand-written dump (rtnl_qdisc.py), not pyroute2's: the first frame reads the
        # root qdisc, and pyroute2 would load ~160 modules for it (issue 38 goal 3).
        links = self.handles.link_reader()
        if links is None:
            et = self._eth(ifname)  # a capture holds what netlink said
            dev = _captured(et)
            return dev.dev.qdiscs if dev is not None else NOT_RECORDED
        try:
            return from_messages(links.qdiscs(socket.if_nametoindex(ifname)))
        except OSError as exc:
            return from_oserror(exc, "qdisc")

    def connections(self, ifname: str) -> tuple[Connection, ...] | Unavailable:
        """Established TCP connections on the interface's addresses (core/host/conns.py)."""
        return self._kt.call(self._connections, ifname)

    def _connections(self, ifname: str) -> tuple[Connection, ...] | Unavailable:
        if not self.root.live:
            et = self._eth(ifname)  # a capture holds what inet_diag said (core/capture)
            dev = _captured(et)
            if dev is not None and dev.dev.connections is not None:
                return dev.dev.connections
            return NOT_RECORDED
        from tuitune.core.procs.discover import interface_addresses

        try:
            return read_connections(interface_addresses(self.root, ifname))
        except OSError as exc:
            return from_oserror(exc, "connections (inet_diag)")

    def queue_stats(self, ifname: str) -> tuple[tuple[tuple[str, int], ...], str] | Unavailable:
        """The counters per-queue rates are made of, and where they came from: the kernel's
        netdev qstats (6.10+, drivers that have them) with the NIC-wide counters of
        `ethtool -S`, else `ethtool -S` alone. Those read by counters(queues=True) for this
        interface are handed over (once) without another trip to the kernel thread."""
        kept, self._kept_queues = self._kept_queues, None
        if kept is not None and kept[0] == ifname:
            return kept[1]
        return self._kt.call(self._queue_stats, ifname)

    def _counters_then_queues(self, ifname: str | None, irqs: Collection[str] | None) -> Counters:
        counters = self._counters(ifname, irqs)
        self._kept_queues = None
        if ifname and not counters.link_gone:
            self._kept_queues = (ifname, self._queue_stats(ifname))
        return counters

    def _queue_stats(self, ifname: str) -> tuple[tuple[tuple[str, int], ...], str] | Unavailable:
        stats = self._driver_stats(ifname)
        queues: tuple[tuple[str, int], ...] = ()
        if self.root.live and not self._qstats_missing:
            if self._qstats is None:
                self._qstats = QstatsNetlink()
            try:
                queues = self._qstats.queues(socket.if_nametoindex(ifname))
            except OSError as exc:
                # ENOENT from the family lookup: this kernel has none. EOPNOTSUPP: this driver.
                self._qstats_missing = exc.errno == errno.ENOENT and not isinstance(
                    exc, NetlinkError
                )
        if not queues:
            return stats if isinstance(stats, Unavailable) else (stats, "ethtool -S")
        # Packets and bytes per queue from qstats only (ethtool -S may count them again); the
        # driver's own drop and error counters, and the NIC-wide ones, from ethtool -S.
        rest = () if isinstance(stats, Unavailable) else stats
        kept = tuple(p for p in rest if _not_traffic(p[0]))
        return queues + kept, "qstats" + (" + ethtool -S" if kept else "")

    def host_state(self) -> HostState:
        return self._kt.call(self._host_state, self._host_wide_sysctls())

    def _host_wide_sysctls(self) -> dict[str, str | Unavailable]:
        """Host-wide sysctls as the host sees them. Inside a namespace their files are absent
        (or a read-only copy), so they are read here, on the caller's thread, which lives in
        the host's namespace: the kernel thread could not see them."""
        if not (self.root.live and self.root.netns):
            return {}
        host = HostRoot()
        return {e.key: read_sysctl(host, e.key) for e in catalog.SYSCTLS if e.scope == "host"}

    def snapshot(self, ifname: str | None) -> Snapshot:
        return self._kt.call(self._snapshot, ifname, self._host_wide_sysctls())

    def forget(self, ifname: str) -> None:
        """Drop what is cached about an interface that went away (its device reader knows the
        old device's driver and features): a device that takes the name is read afresh."""
        self._kt.call(self.handles.forget, ifname)
        self._kt.call(self._forget_files)

    def all_affinity(self, counters: Counters) -> dict[str, IrqAffinity]:
        """Every numbered IRQ's affinity, the rows of `counters`' interrupt table (the IRQ
        panel's all-IRQs view, and a recording's `irqs` state)."""
        irqs = [r.irq for r in counters.interrupts.rows if r.irq.isascii() and r.irq.isdigit()]
        return self.affinities(irqs)

    def view_affinities(
        self, irqs: Sequence[str], rounds: AffinityRounds, everything: bool
    ) -> dict[str, IrqAffinity] | None:
        """The all-IRQs view's affinities this tick: a few read from the kernel a tick, in
        rounds (None: nothing new), all of them when `everything`."""
        return rounds.tick(irqs, self.affinities, everything=everything)

    def affinities(
        self, irqs: Sequence[str], known: Mapping[str, IrqAffinity] | None = None
    ) -> dict[str, IrqAffinity]:
        """These IRQs' affinities (the all-IRQs view reads a few a tick, in rounds); of an IRQ
        in `known` only the affinity lists are read again (read_irq_affinity)."""
        return self._kt.call(self._affinities, irqs, known or {}) if irqs else {}

    def _affinities(
        self, irqs: Sequence[str], known: Mapping[str, IrqAffinity]
    ) -> dict[str, IrqAffinity]:
        root = self.root
        debugfs = has_irq_debugfs(root) if len(known) < len(irqs) else False
        return {irq: read_irq_affinity(root, irq, debugfs, known.get(irq)) for irq in irqs}

    def call(self, fn: Any, *args: object) -> Any:
        """Run fn on the kernel thread (the editing layer uses this for writes)."""
        return self._kt.call(fn, *args)

    # -- on the kernel thread ---------------------------------------------------------------
    def _iproute(self) -> Any | None:
        return self.handles.iproute()

    def _eth(self, ifname: str) -> EthtoolLike | None:
        et: EthtoolLike | None = self.handles.ethtool(ifname)
        return et

    def _counters(self, ifname: str | None, irqs: Collection[str] | None = None) -> Counters:
        return self._read_counters(self._tick_root(ifname, irqs), ifname, irqs, time.monotonic())

    def _tick_root(self, ifname: str | None, irqs: Collection[str] | None) -> HostRoot:
        """The root a tick reads: the kept files' (keptroot.py) on the live host. A whole tick
        (irqs None: every full_every ticks, and after a device event) drops them all, and so
        does another interface or IRQ set: a device renamed or re-created is opened afresh."""
        kept = self._kept
        if kept is None:
            return self.root
        if irqs is None:
            kept.forget()
        elif (want := (ifname, frozenset(irqs))) != self._kept_for:
            kept.forget()
            self._kept_for = want
        return kept

    def _forget_files(self) -> None:
        self._kept_for = None
        if self._kept is not None:
            self._kept.forget()

    def _read_counters(
        self, root: HostRoot, ifname: str | None, irqs: Collection[str] | None, now: float
    ) -> Counters:
        """A file that cannot be read counts as empty and is named in `problems`: the other
        files' numbers still reach the screen."""
        problems: list[Unavailable] = []

        def text(got: str | Unavailable) -> str:
            if isinstance(got, Unavailable):
                problems.append(got)
                return ""
            return got

        stat = self._stat.parse(text(self._stat_text.read(root)))
        link = read_counters(root, ifname, self.handles.link_reader) if ifname else None
        interrupts = (
            read_irq_rows(root, irqs, self._named, self._irq_files) if irqs is not None else None
        )
        full = interrupts is None
        if interrupts is None:
            interrupts = self._whole_interrupts(root, problems)
            self._named = interrupts.by_irq()
        # The whole softirqs with the whole table: its header is checked again on that cadence.
        softirqs = self._softirqs.read(root, whole=full)
        if isinstance(softirqs, Unavailable):
            problems.append(softirqs)
            softirqs = parse_softirqs("")
        return Counters(
            time=now,
            stat=stat,
            interrupts=interrupts,
            softirqs=softirqs,
            softnet=self._softnet.parse(
                text(root.net_text("softnet_stat", BIG_FILE)), sorted(stat.ids)
            ),
            link=link,
            link_gone=ifname is not None and link is None,
            problems=tuple(problems),
            irq_full=full,
        )

    def _whole_interrupts(self, root: HostRoot, problems: list[Unavailable]) -> Interrupts:
        """The whole /proc/interrupts, read into a buffer and parsed there (issue 38: 13 MB at
        1000 IRQs x 1152 CPUs); text that is not plain ASCII is decoded as every other file is.

        The buffer lives for this read only, made at the last read's size and the room
        read_into wants, so that it is not grown (doubled) while read: kept between reads and
        grown, it left the process 16 MB larger (issue 38's 80 MB goal, 1152 CPUs). glibc
        keeps the freed block for the next read; handing it back to the kernel each time
        (malloc_trim) saved 12 MB more but cost 5-6 ms a read, its pages faulted in again."""
        buf = bytearray(self._irq_size)
        got = root.proc_into("interrupts", buf, BIG_FILE)
        if isinstance(got, int):
            self._irq_size = got + _READ_ROOM
            parsed = self._irq_parser.parse_ascii(buf, got)
            if parsed is not None:
                return parsed
            try:
                return self._irq_parser.parse(decode_text(buf[:got], "/proc/interrupts"))
            except KernelFileError as exc:
                got = exc.state
        problems.append(got)
        return self._irq_parser.parse("")

    def _nic_state(
        self, ifname: str, with_stats: bool, interrupts: Interrupts | None = None
    ) -> NicState:
        root = self.root
        if not interface_exists(root, ifname):
            raise UnknownInterface(ifname, list_interfaces(root))
        link = read_link(root, ifname, self.handles.link_reader())
        placement = read_placement(root, ifname)
        et = self._eth(ifname)
        if (dev := _captured(et)) is not None:  # what netlink said of the link, when captured
            link = dev.complete(link)
        if et is not None:
            driver = et.driver_info()
            features, rings, coalesce = et.features(), et.rings(), et.coalesce()
            channels, pause = et.channels(), et.pause()
            stats = et.stats() if with_stats else NOT_RECORDED
        else:
            driver = features = rings = coalesce = channels = pause = stats = NOT_RECORDED
        bus = getattr(driver, "bus_info", None) or placement.bus
        if interrupts is None:
            text = root.proc_text("interrupts", BIG_FILE)
            interrupts = parse_interrupts(text if isinstance(text, str) else "")
        debugfs = has_irq_debugfs(root)
        irqs = nic_irqs(
            interrupts,
            ifname,
            msi_irqs=placement.msi_irqs or None,
            bus_info=bus,
            virtio_dev=placement.virtio_dev,
        )
        nic = NicState(
            link=link,
            placement=placement,
            driver=driver,
            features=features,
            rings=rings,
            coalesce=coalesce,
            channels=channels,
            pause=pause,
            queues=read_queues(root, ifname),
            irqs=irqs,
            irq_affinity={i.irq: read_irq_affinity(root, i.irq, debugfs) for i in irqs},
            driver_stats=stats,
            qdisc=self._root_qdisc(ifname),
        )
        return self._with_steering(nic, et)

    def _with_steering(self, nic: NicState, et: object) -> NicState:
        """The RSS table, hash fields and ntuple rules as the journal's values (a device
        without the ioctl, a recorded tree's, has none: no rows; a capture's are its own)."""
        io = getattr(et, "ioctl", None)
        dev = _captured(et)
        if dev is not None and dev.dev.rss is not None:
            st = dev.dev.rss  # what the ioctls said when the capture was taken
        elif io is None:
            return nic
        else:
            driver = getattr(et, "driver_label", None) or "this driver"
            st = read_rss_state(io, driver, getattr(et, "rss_contexts", None), listing_refused)
        rss: str | Unavailable = st.setting or Unavailable("unsupported", st.why or "RSS: none")
        rules = tuple(sorted((st.rules or {}).items()))
        contexts = tuple((c.id, c.setting or c.why or "none") for c in st.contexts)
        return dataclasses.replace(
            nic,
            rss=rss,
            flow_hash=tuple(st.flow_hash.items()),
            ntuple=rules,
            rss_contexts=contexts,
            rss_contexts_note=st.contexts_why or "",
            rss_indir=st.table.indir if st.table is not None else (),
            rss_rings=st.table.rings if st.table is not None else None,
        )

    def _root_qdisc(self, ifname: str) -> str | Unavailable:
        tree = self._qdiscs(ifname)
        return tree if isinstance(tree, Unavailable) else tree_value(tree)

    def _host_state(self, host_wide: dict[str, str | Unavailable] | None = None) -> HostState:
        root = self.root

        def proc_text(rel: str, default: str) -> str:
            text = root.proc_text(rel)
            return text.strip() if isinstance(text, str) else default

        stat = root.proc_text("stat", BIG_FILE)
        stat_cpus = frozenset(parse_stat(stat if isinstance(stat, str) else "").ids)
        kernel = proc_text("sys/kernel/osrelease", "unknown kernel")
        return HostState(
            hostname=proc_text("sys/kernel/hostname", "unknown host"),
            kernel=kernel,
            netns=root.netns or self._tree_netns,
            topology=self._topology.read(root, stat_cpus),
            irqbalance=read_irqbalance(root),
            sysctls=tuple(_sysctl_value(root, e, kernel, host_wide) for e in catalog.SYSCTLS),
            is_root=os.geteuid() == 0,
        )

    def _snapshot(
        self, ifname: str | None, host_wide: dict[str, str | Unavailable] | None = None
    ) -> Snapshot:
        host = self._host_state(host_wide)
        nic = self._nic_state(ifname, True) if ifname else None
        return Snapshot(host, nic, self._counters(ifname))


def _captured(et: object) -> CapturedDevice | None:
    """`et` when it is a capture's device (core/capture/device.py), else None. Such a device
    exists only once that module is loaded (by a capture's tree): a live host never loads it."""
    device = sys.modules.get("tuitune.core.capture.device")
    if device is None or not isinstance(et, device.CapturedDevice):
        return None
    return cast("CapturedDevice", et)


def _captured_netns(tree: Path) -> str | None:
    """The namespace a capture was taken in (None: the host's, or not a capture)."""
    from tuitune.core.capture.device import captured_netns

    return captured_netns(tree)
