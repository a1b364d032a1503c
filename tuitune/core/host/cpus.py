"""CPU topology from sysfs: online CPUs, package/core/SMT siblings, NUMA node, isolcpus."""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.root import HostRoot, read_int, read_parsed
from tuitune.core.values import Unavailable


@dataclass(frozen=True, slots=True)
class CpuInfo:
    cpu: int
    online: bool
    package: int | None
    core: int | None
    node: int | None
    siblings: frozenset[int]  # SMT threads of the same core, itself included


@dataclass(frozen=True, slots=True)
class Topology:
    cpus: tuple[CpuInfo, ...]  # every possible/present CPU, in topology order
    online: frozenset[int]
    isolated: frozenset[int]  # isolcpus=
    nohz_full: frozenset[int]  # nohz_full=
    nodes: dict[int, frozenset[int]]  # NUMA node -> CPUs
    # How many CPU numbers the kernel can have (max of /sys/.../cpu/possible + 1): the bound of
    # every CPU list typed for this host. None where the file is missing (a recorded tree).
    possible: int | None = None

    def order(self) -> list[int]:
        """CPUs grouped by NUMA node, then package, core and thread: how a tuner reads a host."""
        return [c.cpu for c in self.cpus]

    @property
    def count(self) -> int:
        return len(self.cpus)


def _cpulist(root: HostRoot, rel: str) -> frozenset[int] | None:
    value = read_parsed(root, root.sys_path(rel), rel, parse_cpulist)
    return None if isinstance(value, Unavailable) else value


def possible_cpus(root: HostRoot) -> int | None:
    """nr_cpu_ids of the host (through its tree, so --root works), or None if unknown."""
    found = _cpulist(root, "devices/system/cpu/possible")
    return max(found) + 1 if found else None


def _int(root: HostRoot, rel: str) -> int | None:
    value = read_int(root, root.sys_path(rel), rel)
    return None if isinstance(value, Unavailable) else value


def read_topology(root: HostRoot, stat_cpus: frozenset[int] | None = None) -> Topology:
    """`stat_cpus` (CPUs seen in /proc/stat) is the fallback where sysfs lacks topology."""
    return TopologyReader().read(root, stat_cpus)


class TopologyReader:
    """read_topology for a reader that asks again and again (the host state, every 30 ticks):
    each CPU's three topology files are read again only when the CPU sets (online, present,
    each node's) changed since the last read. On a 1152-CPU host they are 3,456 files, about
    90 ms of CPU, the whole of the host-state tick's cost; a CPU's package, core and siblings
    change only with hotplug (SMT off takes siblings offline), which changes `online`."""

    def __init__(self) -> None:
        self._key: object = None
        self._infos: tuple[CpuInfo, ...] = ()

    def read(self, root: HostRoot, stat_cpus: frozenset[int] | None = None) -> Topology:
        base = "devices/system/cpu"
        online = _cpulist(root, f"{base}/online")
        present = _cpulist(root, f"{base}/present")
        if online is None:
            online = stat_cpus or frozenset()
        nodes = _nodes(root)
        key = (online, present, tuple(sorted(nodes.items())))
        if key != self._key:
            self._infos = _cpu_infos(root, set(present or ()) | set(online), online, nodes)
            self._key = key
        return Topology(
            cpus=self._infos,
            online=online,
            isolated=_cpulist(root, f"{base}/isolated") or frozenset(),
            nohz_full=_cpulist(root, f"{base}/nohz_full") or frozenset(),
            nodes=nodes,
            possible=possible_cpus(root),
        )


def _nodes(root: HostRoot) -> dict[int, frozenset[int]]:
    nodes: dict[int, frozenset[int]] = {}
    try:
        node_dirs = root.listdir(root.sys_path("devices/system/node"))
    except OSError:
        node_dirs = []
    for d in node_dirs:
        if d.startswith("node") and d[4:].isascii() and d[4:].isdigit():
            cpus = _cpulist(root, f"devices/system/node/{d}/cpulist")
            if cpus is not None:
                nodes[int(d[4:])] = cpus
    return nodes


def _cpu_infos(
    root: HostRoot, known: set[int], online: frozenset[int], nodes: dict[int, frozenset[int]]
) -> tuple[CpuInfo, ...]:
    """Each known CPU's place (node, package, core, siblings), in a tuner's order."""
    base = "devices/system/cpu"
    node_of = {cpu: node for node, cpus in nodes.items() for cpu in cpus}
    infos = []
    for cpu in sorted(known):
        topo = f"{base}/cpu{cpu}/topology"
        siblings = _cpulist(root, f"{topo}/thread_siblings_list") or frozenset({cpu})
        infos.append(
            CpuInfo(
                cpu=cpu,
                online=cpu in online,
                package=_int(root, f"{topo}/physical_package_id"),
                core=_int(root, f"{topo}/core_id"),
                node=node_of.get(cpu),
                siblings=siblings,
            )
        )

    def key(c: CpuInfo) -> tuple[int, int, int, int, int]:
        first_sibling = min(c.siblings) if c.siblings else c.cpu
        return (
            c.node if c.node is not None else -1,
            c.package if c.package is not None else -1,
            first_sibling,
            c.core if c.core is not None else -1,
            c.cpu,
        )

    infos.sort(key=key)
    return tuple(infos)
