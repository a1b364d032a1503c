"""A throughput profile's platform settings on the host: the CPU frequency governor, and what
the reports say of irqbalance.

The governor: Red Hat (LAN) replaces the ondemand governor with `performance` for its
throughput runs, and ESnet (WAN) switched frequency scaling and power saving off in the BIOS
of its 98 Gb/s hosts; neither measured it alone (the catalog's `cpu-power` entry). What a
profile can set of that on a running host is the cpufreq governor: `performance` on every
CPU (`[cpu] governor`'s request, resolved per cpufreq policy when applied, issue 32's kind,
host-wide). Only where the host has cpufreq and offers `performance`; a VM guest usually has
none (then a line says so and nothing is asked). Not for a latency profile: Red Hat's TCP_RR
runs changed the coalescing only.

irqbalance: NASA (LAN), Red Hat (LAN) and ESnet (WAN) stop it before they place IRQs. A
stopped service is never part of a saved state in tuitune (session/kinds/service.py: a
decision for one session, asked by the live screen before its first IRQ move), so a profile
says it in a line, and its IRQ placement waits for irqbalance to be stopped (placement.py).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.profiles import ShippedProfile
from tuitune.core.profiles.scale import Scaled
from tuitune.core.session.kinds.cpupower import ALL_CPUS
from tuitune.core.session.profile_model import Request
from tuitune.core.watch.snapshot import HostState

GOVERNOR = "performance"
WHY = (
    "the performance governor: Red Hat's throughput runs (LAN) replace ondemand with it, "
    "ESnet (WAN) switched frequency scaling off; neither measured it alone"
)
IRQBALANCE = "NASA (LAN), Red Hat (LAN) and ESnet (WAN) stop it before placing IRQs"
_CPUFREQ = "devices/system/cpu/cpufreq"


@dataclass(frozen=True, slots=True)
class Governors:
    """The host's cpufreq policies: the governors they run, and whether each offers
    `performance` (an empty `now`: no cpufreq here)."""

    now: tuple[str, ...]  # one a policy, sorted by policy number
    offered: bool  # every policy offers the performance governor


def governors(root: HostRoot) -> Governors:
    """Read on the host (or a recorded tree), through its reader's thread."""
    try:
        names = root.listdir(root.sys_path(_CPUFREQ))
    except OSError:
        return Governors((), False)
    policies = sorted(
        (n for n in names if n.startswith("policy") and n[6:].isdigit()), key=lambda n: int(n[6:])
    )
    now: list[str] = []
    offered = bool(policies)
    for p in policies:
        gov = read_value(root, root.sys_path(f"{_CPUFREQ}/{p}/scaling_governor"), "governor")
        avail = read_value(
            root, root.sys_path(f"{_CPUFREQ}/{p}/scaling_available_governors"), "governors"
        )
        if isinstance(gov, str):
            now.append(gov)
        offered = offered and isinstance(avail, str) and GOVERNOR in avail.split()
    return Governors(tuple(now), offered)


def platform_settings(
    prof: ShippedProfile, govs: Governors, host: HostState | None, netns: str | None = None
) -> tuple[tuple[Request, ...], list[Scaled], list[str]]:
    """The governor request (after the picks, with the IRQ placement), its scaled line with
    the governors now, and what was left and why (irqbalance among it). Never for a
    namespace: the CPUs are the whole machine's, and a namespace's session has no host-wide
    gate for them (a lab's profile must not move the machine's governor)."""
    kept: list[str] = []
    if host is not None and prof.goal == "throughput":
        if host.irqbalance.running:
            kept.append(
                f"irqbalance: running; {IRQBALANCE}: `systemctl stop irqbalance` (a profile "
                "never stops a service: one session's decision, the live screen asks)"
            )
        else:
            kept.append(f"irqbalance: not running, as the reports have it ({IRQBALANCE})")
    if prof.goal != "throughput":
        return (), [], [*kept, "CPU governor left: a latency profile (no report set it for one)"]
    if netns is not None:
        return (), [], [*kept, "CPU governor left: the whole machine's, not the namespace's"]
    if not govs.now:
        return (), [], [*kept, "CPU governor left: no cpufreq here (a VM guest, or scaling off)"]
    if not govs.offered:
        return (), [], [*kept, f"CPU governor left: not every cpufreq policy offers {GOVERNOR}"]
    if set(govs.now) == {GOVERNOR}:
        return (), [], [*kept, f"CPU governor: already {GOVERNOR} ({WHY})"]
    request = Request("cpu_governor", ALL_CPUS, GOVERNOR, f"profile {prof.name}: cpu governor")
    was = ",".join(sorted(set(govs.now)))
    return (request,), [Scaled("cpu governor (every CPU)", GOVERNOR, WHY, was)], kept


def with_platform(
    prof: ShippedProfile, govs: Governors, host: HostState | None, netns: str | None = None
) -> tuple[ShippedProfile, list[Scaled], list[str]]:
    """`prof` with its platform request before its IRQ placement (as `tuitune apply` writes
    the CPUs' settings first), and the lines that say it."""
    requests, scaled, kept = platform_settings(prof, govs, host, netns)
    return replace(prof, extra=(*requests, *prof.extra)), scaled, kept


def extra_parts(prof: ShippedProfile) -> list[tuple[str, str, tuple[Request, ...]]]:
    """The host's additions to a profile, each a part `profile diff` prints and autotune tries
    as one candidate: (its name, its sources, its requests)."""
    parts = [
        ("cpu-governor", "redhat-10g LAN, esnet-100g WAN", "cpu_governor"),
        ("irqs", "nasa-40g LAN, esnet-100g WAN", "irq_affinity"),
    ]
    by_kind: dict[str, list[Request]] = {}
    for r in prof.extra:
        by_kind.setdefault(r.kind, []).append(r)
    return [(name, cite, tuple(by_kind[kind])) for name, cite, kind in parts if kind in by_kind]
