"""`tuitune recommend`: which shipped profile fits a host, why, and its buffers scaled to the
host's link speed and the path's round trip.

The choice (each line of `why` says which report it leans on and whether it was LAN or WAN):
a latency goal takes `low-latency` (Red Hat's TCP_RR findings, LAN). For throughput, a round
trip above `WAN_MS` is a WAN path: `wan-100g-dtn` from 40G up (ESnet, WAN), else `wan-10g`
(LOFAR, WAN); a LAN (no RTT given, or a short one) takes `lan-40g` from 25G up (NASA, LAN),
else `lan-10g` (CERN, LAN).

Scaling, for a WAN path only: LOFAR sizes socket buffers from the bandwidth-delay product
(link speed x RTT / 8 bytes) and sets the maximum a little above twice it; ESnet's 64 MiB is
that product for one 10G stream at its 48.6 ms. So tcp_rmem/tcp_wmem get the product as their
default and twice it as their maximum, and rmem_max/wmem_max twice it: never below what the
profile itself says, never above what the kernel takes (an int).
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.cpulist import format_cpulist, parse_cpulist
from tuitune.core.host.root import HostRoot, read_int, read_parsed
from tuitune.core.profiles import ShippedProfile, find
from tuitune.core.values import Unavailable

WAN_MS = 1.0  # above a LAN's switch hops; LOFAR's 3.77 ms path is a WAN
INT_MAX = 2**31 - 1
BUFFERS = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max")


@dataclass(frozen=True, slots=True)
class HostFacts:
    ifname: str
    speed_mbps: int | None  # None: the link reports none (a veth, a down link)
    cpus: int  # online
    numa_nodes: int
    nic_node: int | None  # the NIC's NUMA node; None: none (one node, a virtual device)
    nic_cpus: frozenset[int]  # the NIC-local CPUs (its local_cpulist); empty: unknown


@dataclass(frozen=True, slots=True)
class Scaled:
    setting: str
    value: str
    why: str


@dataclass(frozen=True, slots=True)
class Recommendation:
    profile: ShippedProfile
    why: tuple[str, ...]
    scaled: tuple[Scaled, ...]  # values that replace the profile's on this host


def host_facts(root: HostRoot, ifname: str) -> HostFacts:
    """What `recommend` needs, read from the host (or a recorded tree) through its reader."""
    speed = read_int(root, root.sys_path(f"class/net/{ifname}/speed"), "link speed")
    online = read_parsed(root, root.sys_path("devices/system/cpu/online"), "online", parse_cpulist)
    try:
        names = root.listdir(root.sys_path("devices/system/node"))
    except OSError:
        names = []
    nodes = sum(1 for n in names if n.startswith("node") and n[4:].isdigit())
    node = read_int(root, root.sys_path(f"class/net/{ifname}/device/numa_node"), "numa_node")
    local = read_parsed(
        root, root.sys_path(f"class/net/{ifname}/device/local_cpulist"), "cpus", parse_cpulist
    )
    return HostFacts(
        ifname,
        speed if isinstance(speed, int) and speed > 0 else None,
        len(online) if not isinstance(online, Unavailable) else 1,
        max(nodes, 1),
        node if isinstance(node, int) and node >= 0 else None,
        local if not isinstance(local, Unavailable) else frozenset(),
    )


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


def _buffers(prof: ShippedProfile, speed_mbps: int, rtt_ms: float) -> list[Scaled]:
    bdp = int(speed_mbps * 1e6 * rtt_ms / 1e3 / 8)
    top = min(2 * bdp, INT_MAX)
    why = (
        f"{speed_mbps / 1000:g} Gb/s x {rtt_ms:g} ms / 8 = {bdp} bytes in flight; maximum "
        "twice it (LOFAR's sizing, WAN)"
    )
    picked = {p.setting: p.value for p in prof.picks}
    out = []
    for name in BUFFERS:
        have = picked.get(name)
        if name.startswith("net.ipv4."):
            low, _mid, high = (have or "4096 87380 6291456").split()
            if int(high) >= top:
                continue
            out.append(Scaled(name, f"{low} {min(bdp, INT_MAX)} {top}", why))
        elif have is None or int(have) < top:
            out.append(Scaled(name, str(top), why))
    return out


def scaled_profile(
    prof: ShippedProfile, facts: HostFacts, rtt_ms: float
) -> tuple[ShippedProfile, tuple[Scaled, ...], str | None]:
    """`prof` with its buffers sized for this host and round trip (`profile diff/apply
    --rtt`): the profile to use, what was scaled, and why nothing was (None when scaled or
    already enough). LOFAR's sizing is WAN advice: a LAN profile is left as it is."""
    from dataclasses import replace

    from tuitune.core.catalog import entry
    from tuitune.core.profiles import Pick

    if prof.context != "WAN":
        return prof, (), f"{prof.name} is LAN advice: its buffers are not sized from an RTT"
    if facts.speed_mbps is None:
        return prof, (), f"{facts.ifname} reports no link speed: buffers not scaled"
    scaled = tuple(_buffers(prof, facts.speed_mbps, rtt_ms))
    by_name = {s.setting: s.value for s in scaled}
    picks = [replace(p, value=by_name.pop(p.setting)) if p.setting in by_name else p
             for p in prof.picks]  # fmt: skip
    for name, value in by_name.items():  # a buffer the profile has no pick for: LOFAR's
        advice = next(a for a in entry(name).sources if a.source == "lofar-wan")
        picks.append(Pick(name, value, advice))
    return replace(prof, picks=tuple(picks)), scaled, None


def recommend(facts: HostFacts, rtt_ms: float | None, goal: str) -> Recommendation:
    name, why = _name(facts, rtt_ms, goal)
    prof = find(name)
    assert prof is not None, name  # a shipped name
    why += _placement(facts)
    scaled: list[Scaled] = []
    if prof.context == "WAN" and rtt_ms is not None:
        if facts.speed_mbps is None:
            why.append(
                "no link speed (a veth or a down link reports none): buffers left as the "
                "profile has them"
            )
        else:
            scaled = _buffers(prof, facts.speed_mbps, rtt_ms)
    return Recommendation(prof, tuple(why), tuple(scaled))


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


__all__ = ["HostFacts", "Recommendation", "Scaled", "host_facts", "recommend"]
