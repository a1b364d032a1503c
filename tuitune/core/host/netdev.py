"""An interface's link state, counters, device placement and queues (netlink and sysfs).

Live hosts are read through rtnetlink (pyroute2), which also gives the MTU bounds and queue
counts that sysfs lacks; recorded fixture trees fall back to sysfs files. The per-queue RPS/XPS
masks exist only in sysfs.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tuitune.core.cpulist import CpuListError, parse_cpulist, parse_mask
from tuitune.core.host.identity import nic_names
from tuitune.core.host.root import (
    BIG_FILE,
    HostRoot,
    parse_int,
    read_int,
    read_parsed,
    read_value,
)
from tuitune.core.names import ifname_problem
from tuitune.core.values import Unavailable

COUNTER_NAMES = (
    "rx_bytes",
    "tx_bytes",
    "rx_packets",
    "tx_packets",
    "rx_dropped",
    "tx_dropped",
    "rx_errors",
    "tx_errors",
    "rx_missed_errors",
    "rx_fifo_errors",
    "tx_fifo_errors",
    "multicast",
    "collisions",
)


@dataclass(frozen=True, slots=True)
class LinkCounters:
    values: dict[str, int]  # COUNTER_NAMES -> value (64-bit kernel counters)

    def get(self, name: str) -> int:
        return self.values.get(name, 0)


@dataclass(frozen=True, slots=True)
class Link:
    ifname: str
    ifindex: int | None
    kind: str | None  # rtnetlink link kind: "veth", "bond", ... (None for physical NICs)
    address: str | None
    perm_address: str | None  # the burned-in MAC, when the driver reports one
    addr_assign_type: int | None  # 0 = permanent, 3 = set by userspace/random (sysfs)
    operstate: str
    carrier: bool | None
    mtu: int | None
    min_mtu: int | None
    max_mtu: int | None
    txqlen: int | None
    num_rx_queues: int | None  # in use (real_num_*), not allocated
    num_tx_queues: int | None
    speed_mbps: int | Unavailable  # ethtool link speed as sysfs gives it
    duplex: str | Unavailable
    counters: LinkCounters


@dataclass(frozen=True, slots=True)
class Placement:
    """Where the device sits: bus address, NUMA node and CPUs local to it, its MSI vectors."""

    bus: str | None  # e.g. "0000:3b:00.0"
    subsystem: str | None  # "pci", "virtio", ...
    virtio_dev: str | None  # "virtio2" when the netdev's device is a virtio device
    numa_node: int | None  # None when the kernel says -1 (no NUMA affinity)
    local_cpus: frozenset[int] | None
    msi_irqs: tuple[str, ...]  # IRQ numbers from device/msi_irqs (or the PCI parent's)
    vendor: str | None = None  # "Intel Corporation", as udev's hardware database names it
    model: str | None = None  # "82574L Gigabit Network Connection"


@dataclass(frozen=True, slots=True)
class QueueMasks:
    name: str  # "rx-0" or "tx-3"
    cpus: frozenset[int] | Unavailable  # rps_cpus for rx, xps_cpus for tx
    rps_flow_cnt: int | Unavailable | None  # rx only


def _sysfs_counters(root: HostRoot, ifname: str) -> LinkCounters:
    values: dict[str, int] = {}
    for name in COUNTER_NAMES:
        value = read_int(root, root.sys_path(f"class/net/{ifname}/statistics/{name}"), name)
        if isinstance(value, int):
            values[name] = value
    return LinkCounters(values)


def netlink_counters(msg: Any) -> LinkCounters:
    stats = msg.get("stats64") or msg.get("stats") or {}
    return LinkCounters({name: int(stats.get(name, 0)) for name in COUNTER_NAMES if name in stats})


def interface_exists(root: HostRoot, ifname: str) -> bool:
    if ifname_problem(ifname) is not None:  # never a path: 5,000 characters are ENAMETOOLONG
        return False
    return root.sys_path(f"class/net/{ifname}").exists()


def list_interfaces(root: HostRoot) -> list[str]:
    try:
        return sorted(root.listdir(root.sys_path("class/net")))
    except OSError:
        return []


def _opt_int(root: HostRoot, rel: str) -> int | None:
    value = read_int(root, root.sys_path(rel), rel)
    return value if isinstance(value, int) else None


def _speed(root: HostRoot, ifname: str) -> tuple[int | Unavailable, str | Unavailable]:
    # The kernel answers EINVAL for both on links with no notion of speed (veth, down links).
    speed = read_int(root, root.sys_path(f"class/net/{ifname}/speed"), "link speed")
    if isinstance(speed, int) and speed < 0:
        speed = Unavailable("unsupported", "link speed: unknown")
    elif isinstance(speed, Unavailable):
        speed = Unavailable("unsupported", "link speed: not reported")
    duplex = read_value(root, root.sys_path(f"class/net/{ifname}/duplex"), "duplex")
    if isinstance(duplex, Unavailable):
        duplex = Unavailable("unsupported", "duplex: not reported")
    return speed, duplex


def read_link(root: HostRoot, ifname: str, ipr: Any | None = None) -> Link:
    """`ipr` is an open pyroute2 IPRoute in the host's namespace (None: sysfs only)."""
    base = f"class/net/{ifname}"
    speed, duplex = _speed(root, ifname)
    assign = _opt_int(root, f"{base}/addr_assign_type")
    # Active queues (the kernel's real_num_rx/tx_queues): one sysfs directory each. Netlink's
    # num_rx/tx_queues are the allocated ones (a veth: one per possible CPU, 1 in use).
    rxq, txq = queue_names(root, ifname)
    if ipr is not None:
        msg = ipr.link("get", ifname=ifname)[0]
        info = msg.get("linkinfo")
        kind = info.get("kind") if info is not None else None
        carrier = msg.get("carrier")
        return Link(
            ifname=ifname,
            ifindex=int(msg["index"]),
            kind=kind,
            address=msg.get("address"),
            perm_address=msg.get("perm_address"),
            addr_assign_type=assign,
            operstate=str(msg.get("operstate", "UNKNOWN")),
            carrier=None if carrier is None else bool(carrier),
            mtu=msg.get("mtu"),
            min_mtu=msg.get("min_mtu"),
            max_mtu=msg.get("max_mtu"),
            txqlen=msg.get("txqlen"),
            num_rx_queues=len(rxq) or msg.get("num_rx_queues"),
            num_tx_queues=len(txq) or msg.get("num_tx_queues"),
            speed_mbps=speed,
            duplex=duplex,
            counters=netlink_counters(msg),
        )
    carrier_v = _opt_int(root, f"{base}/carrier")
    operstate = read_value(root, root.sys_path(f"{base}/operstate"), "operstate")
    address = read_value(root, root.sys_path(f"{base}/address"), "address")
    return Link(
        ifname=ifname,
        ifindex=_opt_int(root, f"{base}/ifindex"),
        kind=None,
        address=address if isinstance(address, str) else None,
        perm_address=None,
        addr_assign_type=assign,
        operstate=operstate.upper() if isinstance(operstate, str) else "UNKNOWN",
        carrier=None if carrier_v is None else bool(carrier_v),
        mtu=_opt_int(root, f"{base}/mtu"),
        min_mtu=None,
        max_mtu=None,
        txqlen=_opt_int(root, f"{base}/tx_queue_len"),
        num_rx_queues=len(rxq) or None,
        num_tx_queues=len(txq) or None,
        speed_mbps=speed,
        duplex=duplex,
        counters=_sysfs_counters(root, ifname),
    )


# /proc/net/dev columns after "IFACE:" -> counter names (net/core/net-procfs.c). Its rx "drop"
# is rx_dropped + rx_missed_errors, so rx_missed_errors has no column of its own here:
# read_counters takes it from sysfs and splits the column again.
_NET_DEV_COLUMNS: dict[int, str] = {
    0: "rx_bytes",
    1: "rx_packets",
    2: "rx_errors",
    3: "rx_dropped",
    4: "rx_fifo_errors",
    7: "multicast",
    8: "tx_bytes",
    9: "tx_packets",
    10: "tx_errors",
    11: "tx_dropped",
    12: "tx_fifo_errors",
    13: "collisions",
}


def parse_net_dev(text: str, ifname: str) -> LinkCounters | None:
    """One interface's counters from /proc/net/dev; None when it is not listed."""
    for line in text.split("\n"):
        name, sep, rest = line.rpartition(":")  # counts never hold a colon; a name might
        if not sep or name.strip() != ifname:
            continue
        fields = rest.split()
        if len(fields) <= max(_NET_DEV_COLUMNS) or not all(
            fields[i].isascii() and fields[i].isdigit() and len(fields[i]) <= 20
            for i in _NET_DEV_COLUMNS
        ):
            return None
        return LinkCounters({n: int(fields[i]) for i, n in _NET_DEV_COLUMNS.items()})
    return None


def read_counters(
    root: HostRoot, ifname: str, iproute: Callable[[], Any | None] | None = None
) -> LinkCounters | None:
    """The per-tick part of read_link: only the byte/packet/drop counters. None when there is
    no such interface (deleted under the live screen): a state, not an error.

    /proc/net/dev first: one small read, 0.03 ms here against 0.85 ms for a netlink
    RTM_GETLINK through pyroute2, which decodes every attribute of the link each tick.
    `iproute` gives the netlink handle only when /proc/net/dev lacks the interface: opening
    it imports pyroute2 (about 200 modules), which the first frame should not wait for."""
    # One line per interface: a host with thousands of containers' veths has a big one.
    text = root.net_text("dev", BIG_FILE)  # a recorded tree may have none: sysfs then
    counters = parse_net_dev(text, ifname) if isinstance(text, str) else None
    if counters is not None:
        return _with_missed(root, ifname, counters)
    if not interface_exists(root, ifname):
        return None
    ipr = iproute() if iproute is not None else None
    if ipr is not None:
        try:
            msg = ipr.link("get", ifname=ifname)[0]
        except Exception as exc:  # pyroute2's NetlinkError: deleted since the check above
            if getattr(exc, "code", None) == errno.ENODEV:
                return None
            raise
        return netlink_counters(msg)
    return _sysfs_counters(root, ifname)


def _with_missed(root: HostRoot, ifname: str, counters: LinkCounters) -> LinkCounters:
    """/proc/net/dev's counters with rx_missed_errors (the NIC ran out of rx descriptors: the
    ring-size signal) split out of its "drop" column, as netlink and sysfs count them."""
    # sys_text, not read_int's Path: a tick builds no path object (keptroot.py keeps the file).
    text = root.sys_text(f"class/net/{ifname}/statistics/rx_missed_errors")
    missed = text if isinstance(text, Unavailable) else parse_int(text.strip(), "rx_missed_errors")
    if not isinstance(missed, int) or missed < 0:
        return counters
    values = dict(counters.values)
    # Two reads, not one snapshot: a miss counted between them must not make drops negative.
    values["rx_dropped"] = max(0, values.get("rx_dropped", 0) - missed)
    values["rx_missed_errors"] = missed
    return LinkCounters(values)


def read_placement(root: HostRoot, ifname: str) -> Placement:
    dev = root.sys_path(f"class/net/{ifname}/device")
    if not dev.exists():
        return Placement(None, None, None, None, None, ())
    real = dev.resolve()
    sub = dev / "subsystem"
    subsystem = os.path.basename(os.path.realpath(sub)) if sub.exists() else None
    virtio_dev = real.name if real.name.startswith("virtio") else None
    # A virtio netdev's device is virtioN; its PCI function (bus address, NUMA, MSI) is the parent.
    pci = real.parent if virtio_dev else real
    bus = pci.name if ":" in pci.name else None
    node = read_int(root, pci / "numa_node", "numa_node")
    local = read_value(root, pci / "local_cpulist", "local_cpulist")
    local_cpus: frozenset[int] | None = None
    if isinstance(local, str):
        try:
            local_cpus = parse_cpulist(local)
        except CpuListError:
            local_cpus = None
    try:
        msi = tuple(sorted((n for n in root.listdir(pci / "msi_irqs") if _digits(n)), key=int))
    except OSError:
        msi = ()
    vendor, model = nic_names(root, dev)
    return Placement(
        bus=bus,
        subsystem=subsystem,
        virtio_dev=virtio_dev,
        numa_node=node if isinstance(node, int) and node >= 0 else None,
        local_cpus=local_cpus,
        msi_irqs=msi,
        vendor=vendor,
        model=model,
    )


def queue_names(root: HostRoot, ifname: str) -> tuple[list[str], list[str]]:
    try:
        names = root.listdir(root.sys_path(f"class/net/{ifname}/queues"))
    except OSError:
        return [], []

    def idx(n: str) -> int:
        number = n.split("-", 1)[1]
        return int(number) if _digits(number) else 0

    rx = sorted((n for n in names if n.startswith("rx-")), key=idx)
    tx = sorted((n for n in names if n.startswith("tx-")), key=idx)
    return rx, tx


def _mask(root: HostRoot, rel: str, what: str) -> frozenset[int] | Unavailable:
    return read_parsed(root, root.sys_path(rel), what, parse_mask)


def read_queues(root: HostRoot, ifname: str) -> tuple[QueueMasks, ...]:
    rx, tx = queue_names(root, ifname)
    base = f"class/net/{ifname}/queues"
    out = [
        QueueMasks(
            q,
            _mask(root, f"{base}/{q}/rps_cpus", f"{q} rps_cpus"),
            read_int(root, root.sys_path(f"{base}/{q}/rps_flow_cnt"), f"{q} rps_flow_cnt"),
        )
        for q in rx
    ]
    for q in tx:
        xps = _mask(root, f"{base}/{q}/xps_cpus", f"{q} xps_cpus")
        if isinstance(xps, Unavailable) and xps.kind == "missing" and len(tx) == 1:
            # The kernel answers ENOENT for XPS on a device with a single tx queue.
            xps = Unavailable("unsupported", "xps: needs more than one tx queue")
        out.append(QueueMasks(q, xps, None))
    return tuple(out)


def default_route_interface(root: HostRoot) -> str | None:
    """The interface of the IPv4 default route (lowest metric), else the IPv6 one."""
    best: tuple[int, str] | None = None
    # A router's full table is large; past the bound the default route is not looked for.
    text = root.net_text("route", BIG_FILE)
    for line in text.splitlines()[1:] if isinstance(text, str) else ():
        f = line.split()
        if len(f) >= 8 and f[1] == "00000000" and f[7] == "00000000":
            metric = int(f[6]) if _digits(f[6]) and len(f[6]) <= 20 else 0
            if best is None or metric < best[0]:
                best = (metric, f[0])
    if best is not None:
        return best[1]
    text = root.net_text("ipv6_route", BIG_FILE)
    for line in text.splitlines() if isinstance(text, str) else ():
        f = line.split()
        if len(f) >= 10 and f[0] == "0" * 32 and f[1] == "00" and f[9] != "lo":
            return f[9]
    return None


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes "²", which int() refuses."""
    return text.isascii() and text.isdigit()
