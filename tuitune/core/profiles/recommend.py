"""`tuitune recommend`: which shipped profile fits a host, why, and its buffers scaled to the
host's link speed and the path's round trip.

The choice (each line of `why` says which report it leans on and whether it was LAN or WAN):
a latency goal takes `low-latency` (Red Hat's TCP_RR findings, LAN). For throughput, a round
trip above `WAN_MS` is a WAN path: `wan-100g-dtn` from 40G up (ESnet, WAN), else `wan-10g`
(LOFAR, WAN); a LAN (no RTT given, or a short one) takes `lan-40g` from 25G up (NASA, LAN),
else `lan-10g` (CERN, LAN).

What the host has scales the profile's values (rings, queue count, NIC-local CPUs, link speed
x round trip for a WAN profile's buffers): scale.py, each value with why.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.cpulist import format_cpulist, parse_cpulist
from tuitune.core.host.ethtool_types import Channels, Rings
from tuitune.core.host.netdev import read_placement
from tuitune.core.host.root import HostRoot, read_int, read_parsed
from tuitune.core.profiles import ShippedProfile, find
from tuitune.core.profiles.scale import NO_LIMITS, HostFacts, NicLimits, Scaled, scale_to_host
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader

WAN_MS = 1.0  # above a LAN's switch hops; LOFAR's 3.77 ms path is a WAN


@dataclass(frozen=True, slots=True)
class Recommendation:
    profile: ShippedProfile
    why: tuple[str, ...]
    scaled: tuple[Scaled, ...]  # values that replace (or join) the profile's on this host
    kept: tuple[str, ...] = ()  # what was left as the report has it, and why


def host_facts(root: HostRoot, ifname: str) -> HostFacts:
    """What `recommend` needs, read from the host (or a recorded tree) through its reader."""
    speed = read_int(root, root.sys_path(f"class/net/{ifname}/speed"), "link speed")
    online = read_parsed(root, root.sys_path("devices/system/cpu/online"), "online", parse_cpulist)
    try:
        names = root.listdir(root.sys_path("devices/system/node"))
    except OSError:
        names = []
    nodes = sum(1 for n in names if n.startswith("node") and n[4:].isdigit())
    try:  # a virtual device (a veth) has no device link, and its speed is nominal (10000)
        physical = "device" in root.listdir(root.sys_path(f"class/net/{ifname}"))
    except OSError:
        physical = False
    # The NIC's node and local CPUs as the live screen reads them: a virtio netdev's device
    # is virtioN, whose PCI function (the parent) holds numa_node and local_cpulist.
    place = read_placement(root, ifname)
    return HostFacts(
        ifname,
        speed if physical and isinstance(speed, int) and speed > 0 else None,
        len(online) if not isinstance(online, Unavailable) else 1,
        max(nodes, 1),
        place.numa_node,
        place.local_cpus or frozenset(),
    )


def nic_limits(reader: HostReader, ifname: str) -> NicLimits:
    """The device's ring and channel maxima (ethtool -g/-l), None where it reports none (a
    veth has no rings; a recorded tree without ethtool captures has neither)."""
    nic = reader.nic_state(ifname, with_stats=False)
    rings = nic.rings if isinstance(nic.rings, Rings) else None
    channels = nic.channels if isinstance(nic.channels, Channels) else None
    return NicLimits(rings, channels)


def _name(facts: HostFacts, rtt_ms: float | None, goal: str) -> tuple[str, list[str]]:
    speed = facts.speed_mbps
    link = f"{speed / 1000:g}G" if speed else "of unknown speed"
    if goal == "latency":
        return "low-latency", [
            "the goal is latency: Red Hat's TCP_RR runs (LAN) are the reports' latency advice"
        ]
    if rtt_ms is not None and rtt_ms > WAN_MS:
        path = f"a {rtt_ms:g} ms round trip is a WAN path"
        if speed is not None and speed >= 40000:
            return "wan-100g-dtn", [
                f"{path} and the link is {link}: ESnet's 100G data-transfer node (WAN)"
            ]
        return "wan-10g", [f"{path} and the link is {link}: LOFAR's 1-10G WAN host (WAN)"]
    path = "no round trip given: a LAN is assumed" if rtt_ms is None else f"{rtt_ms:g} ms is a LAN"
    if speed is not None and speed >= 25000:
        return "lan-40g", [f"{path}, the link is {link}: NASA's 40G LAN host (LAN)"]
    return "lan-10g", [f"{path}, the link is {link}: CERN's 10G LAN host (LAN)"]


def _placement(facts: HostFacts) -> list[str]:
    """NUMA and CPUs: where the reports put IRQs and the application."""
    if facts.numa_nodes < 2:
        return [f"{facts.cpus} CPU(s), one NUMA node: no node to choose"]
    where = format_cpulist(facts.nic_cpus) if facts.nic_cpus else "unknown"
    node = f"node {facts.nic_node}" if facts.nic_node is not None else "no node reported"
    return [
        f"{facts.numa_nodes} NUMA nodes, {facts.cpus} CPUs; {facts.ifname} is on {node} "
        f"(CPUs {where}): keep its IRQs and the application there (NASA's Table 4 and "
        "ESnet's one core per NIC, both placing work on the NIC's own socket)"
    ]


def recommend(
    facts: HostFacts, rtt_ms: float | None, goal: str, limits: NicLimits = NO_LIMITS
) -> Recommendation:
    name, why = _name(facts, rtt_ms, goal)
    prof = find(name)
    assert prof is not None, name  # a shipped name
    why += _placement(facts)
    got = scale_to_host(prof, facts, limits, rtt_ms)
    return Recommendation(prof, tuple(why), got.scaled, got.kept)


def parse_rtt(text: str) -> float:
    """`48.6`, `48.6ms`, `3ms`: a round trip in ms; ValueError otherwise."""
    t = text.strip().lower().removesuffix("ms").strip()
    try:
        value = float(t)
    except ValueError:
        raise ValueError(f"{text[:20]!r}: give the round trip in ms, as 3.77 or 48.6ms") from None
    if not 0 < value <= 10_000:
        raise ValueError(f"{text[:20]!r}: a round trip between 0 and 10000 ms")
    return value


__all__ = ["HostFacts", "Recommendation", "Scaled", "host_facts", "nic_limits", "recommend"]
