"""A shipped profile's values scaled to the host it is applied on, each with why.

The reports' values were measured on their own hardware; `profile diff/apply` and `recommend`
show these in their place, before anything is applied:

- **Rings**: a ring value above the device's maximum (`ethtool -g`) becomes the maximum (the
  kernel would refuse it). A WAN profile raises the rx ring to the maximum: NASA (WAN advice)
  expects large rings to absorb bursts on long paths (the catalog's ring entry).
- **Queue count** (LAN throughput profiles): one queue per CPU that should take the NIC's
  receive work, up to the device's maximum (`ethtool -l`); Red Hat (LAN) went from 3696 to
  7171 Mb/s for four flows with a queue per CPU. The CPUs are the NIC-local ones
  (`local_cpulist`) on a host with more than one NUMA node (NASA's and ESnet's placement on the
  NIC's own socket), else every online CPU. Only raised, never lowered: a user who cut the
  queues had a reason. A WAN profile keeps the count (ESnet bound queues per port to one core,
  not one per CPU); a latency profile too (none of the reports measured it).
- **Buffers** (WAN profiles, with a round trip): LOFAR's sizing, the bandwidth-delay product
  (`buffers` below). A LAN profile's buffers are not sized from a round trip.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tuitune.core.catalog import Advice, entry
from tuitune.core.catalog.device import device_help
from tuitune.core.host.ethtool_types import Channels, Rings
from tuitune.core.profiles import Pick, ShippedProfile

INT_MAX = 2**31 - 1  # the kernel keeps socket buffer sizes in an int
BUFFERS = ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem", "net.core.rmem_max", "net.core.wmem_max")


@dataclass(frozen=True, slots=True)
class HostFacts:
    ifname: str
    speed_mbps: int | None  # None: none (a down link; a veth's 10000 is nominal: None too)
    cpus: int  # online
    numa_nodes: int
    nic_node: int | None  # the NIC's NUMA node; None: none (one node, a virtual device)
    nic_cpus: frozenset[int]  # the NIC-local CPUs (its local_cpulist); empty: unknown


@dataclass(frozen=True, slots=True)
class NicLimits:
    """What the device has (None: it reports none: a veth has no rings)."""

    rings: Rings | None
    channels: Channels | None


NO_LIMITS = NicLimits(None, None)


@dataclass(frozen=True, slots=True)
class Scaled:
    setting: str
    value: str
    why: str
    was: str | None = None  # the profile's own value; None: added for this host


@dataclass(frozen=True, slots=True)
class Scaling:
    profile: ShippedProfile  # with the scaled values in place of the report's
    scaled: tuple[Scaled, ...]
    kept: tuple[str, ...]  # what was looked at and left as the report has it, and why


def _advice(catalog: str, source: str, context: str) -> Advice:
    sources = entry(catalog).sources if "." in catalog else device_help(catalog).sources
    return next(a for a in sources if a.source == source and a.context == context)


def _rings(
    prof: ShippedProfile, rings: Rings | None, ifname: str
) -> tuple[list[Pick], list[Scaled], list[str]]:
    picks: list[Pick] = []
    scaled: list[Scaled] = []
    kept: list[str] = []
    have = {p.setting: p for p in prof.picks}
    if rings is None:
        if prof.context == "WAN" or any(s.startswith("rings ") for s in have):
            kept.append(f"{ifname} reports no rings (ethtool -g): nothing to size")
        return picks, scaled, kept
    tops = {"rings rx": rings.rx_max, "rings tx": rings.tx_max}
    for name, top in tops.items():
        pick = have.get(name)
        if pick is not None and top and int(pick.value) > top:
            why = f"the report's {pick.value} is above {ifname}'s maximum {top} (ethtool -g)"
            picks.append(replace(pick, value=str(top)))
            scaled.append(Scaled(name, str(top), why, pick.value))
    if prof.context == "WAN" and rings.rx_max and "rings rx" not in have:
        if rings.rx < rings.rx_max:
            why = (
                f"a WAN path: the rx ring at {ifname}'s maximum {rings.rx_max} (now "
                f"{rings.rx}) to absorb bursts (NASA, WAN advice)"
            )
            picks.append(Pick("rings rx", str(rings.rx_max), _advice("ring", "nasa-40g", "WAN")))
            scaled.append(Scaled("rings rx", str(rings.rx_max), why))
        else:
            kept.append(f"the rx ring is already at {ifname}'s maximum {rings.rx_max}")
    return picks, scaled, kept


def _queues(
    prof: ShippedProfile, ch: Channels | None, ifname: str, cpus: int, local: bool
) -> tuple[list[Pick], list[Scaled], list[str]]:
    if prof.goal != "throughput" or prof.context != "LAN":
        why = (
            "a WAN profile: ESnet bound each port's queues to one core, no queue per CPU"
            if prof.goal == "throughput"
            else "a latency profile: no report measured the queue count for latency"
        )
        return [], [], [f"queue count left as it is ({why})"]
    if ch is None:
        return [], [], [f"{ifname} reports no channels (ethtool -l): queue count left"]
    which = "CPUs local to the NIC" if local else "online CPUs"
    advice = _advice("channels", "redhat-10g", "LAN")
    if ch.combined_max:
        fields = [("channels combined", ch.combined, ch.combined_max)]
    else:
        fields = [("channels rx", ch.rx, ch.rx_max), ("channels tx", ch.tx, ch.tx_max)]
    picks: list[Pick] = []
    scaled: list[Scaled] = []
    kept: list[str] = []
    for name, now, top in fields:
        want = min(cpus, top)
        if not top or now >= want:
            kept.append(f"{name} {now}: already one a CPU ({cpus} {which}, maximum {top})")
            continue
        why = (
            f"one queue per CPU: {cpus} {which}, {ifname}'s maximum {top}, now {now} "
            "(Red Hat, LAN: 3696 -> 7171 Mb/s for four flows with a queue per CPU)"
        )
        picks.append(Pick(name, str(want), advice))
        scaled.append(Scaled(name, str(want), why))
    return picks, scaled, kept


def scale_to_host(
    prof: ShippedProfile,
    facts: HostFacts,
    limits: NicLimits,
    rtt_ms: float | None,
) -> Scaling:
    """`prof` as it would be applied to this host: see the module's note."""
    ring_picks, scaled, kept = _rings(prof, limits.rings, facts.ifname)
    local = facts.numa_nodes > 1 and bool(facts.nic_cpus)
    cpus = len(facts.nic_cpus) if local else facts.cpus
    q_picks, q_scaled, q_kept = _queues(prof, limits.channels, facts.ifname, cpus, local)
    scaled += q_scaled
    kept += q_kept
    extra = [*ring_picks, *q_picks]
    if prof.context != "WAN":
        kept.append(f"{prof.name} is LAN advice: its buffers are not sized from a round trip")
    elif rtt_ms is None:
        kept.append(
            "buffers: the report's own (sized for its path), not re-sized: no round trip "
            "given (--rtt MS) or measured (--peer HOST)"
        )
    elif facts.speed_mbps is None:
        kept.append(
            f"buffers: the report's own (sized for its path), not re-sized for "
            f"{rtt_ms:g} ms: {facts.ifname} has no link speed (a down link; a virtual "
            "device such as a veth reports a nominal one)"
        )
    else:
        have = {p.setting: p for p in prof.picks}
        for s in buffers(prof, facts.speed_mbps, rtt_ms):
            scaled.append(s)
            own = have.get(s.setting)  # the profile's own pick, resized; else LOFAR's
            lofar = Pick(s.setting, s.value, _advice(s.setting, "lofar-wan", "WAN"))
            extra.append(replace(own, value=s.value) if own is not None else lofar)
    by_name = {p.setting: p for p in extra}
    # A scaled value takes the place of the report's pick (keeping its source: the scaled
    # line says why it changed); a value the profile has no pick for is added, cited.
    picks = [by_name.pop(p.setting, p) for p in prof.picks]
    picks += by_name.values()
    return Scaling(replace(prof, picks=tuple(picks)), tuple(scaled), tuple(kept))


def buffers(prof: ShippedProfile, speed_mbps: int, rtt_ms: float) -> list[Scaled]:
    """LOFAR's sizing (WAN): the bandwidth-delay product as tcp_rmem/tcp_wmem's default, twice
    it as their maximum and as rmem_max/wmem_max; never below the profile's own value, never
    above what the kernel takes."""
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
            out.append(Scaled(name, f"{low} {min(bdp, INT_MAX)} {top}", why, have))
        elif have is None or int(have) < top:
            out.append(Scaled(name, str(top), why, have))
    return out


__all__ = ["NO_LIMITS", "HostFacts", "NicLimits", "Scaled", "Scaling", "scale_to_host"]
