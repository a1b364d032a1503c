"""CPU power as sysfs gives it: cpufreq (driver, governor, EPP, energy_perf_bias, frequency
limits, boost), cpuidle (driver, each C-state's name, exit latency, target residency and
whether it is disabled), the PM QoS latency request in force (pmqos.py: the global one and
each CPU's resume latency), and SMT control.

CPUs that agree are one group (one line on the screen); each absent feature is a state
("no cpufreq": a VM guest), never an exception. Frequencies are kHz as the kernel prints them.
"""

from __future__ import annotations

import re
from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import TypeVar

from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.pmqos import Holders, LatencyRequest, holders, limit_for, read_request
from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.values import Unavailable

K = TypeVar("K", bound=Hashable)
_NOT_READ = Unavailable("missing", "not read")
_CPU = re.compile(r"^cpu(\d{1,5})$")
_STATE = re.compile(r"^state(\d{1,3})$")
_POLICY = re.compile(r"^policy(\d{1,5})$")


@dataclass(frozen=True, slots=True)
class FreqPolicy:
    """What a group of CPUs share (the current frequency is kept apart: it always moves)."""

    driver: str | None
    governor: str | None
    epp: str | None  # energy_performance_preference (intel_pstate/amd-pstate active mode)
    epb: str | None  # energy_perf_bias (0 performance .. 15 power saving)
    min_khz: int | None  # scaling_min_freq
    max_khz: int | None  # scaling_max_freq
    hw_min_khz: int | None  # cpuinfo_min_freq
    hw_max_khz: int | None  # cpuinfo_max_freq
    governors: tuple[str, ...]  # scaling_available_governors


@dataclass(frozen=True, slots=True)
class FreqGroup:
    cpus: frozenset[int]
    policy: FreqPolicy
    cur_khz: tuple[int, int] | None  # lowest and highest scaling_cur_freq in the group


@dataclass(frozen=True, slots=True)
class IdleState:
    index: int
    name: str
    desc: str
    latency_us: int | None  # exit latency
    residency_us: int | None  # target residency
    disabled: bool | None


@dataclass(frozen=True, slots=True)
class IdleGroup:
    cpus: frozenset[int]
    states: tuple[IdleState, ...]


@dataclass(frozen=True, slots=True)
class CpuPower:
    freq: tuple[FreqGroup, ...] | Unavailable
    boost: str | None  # "on"/"off" (cpufreq/boost, or intel_pstate/no_turbo inverted)
    pstate_status: str | None  # intel_pstate/status: active, passive, off
    idle_driver: str | Unavailable
    idle: tuple[IdleGroup, ...] | Unavailable
    resume_latency: tuple[tuple[frozenset[int], str], ...]  # per-CPU PM QoS, grouped
    pm_qos_note: str
    # Each cpufreq policy's number and CPUs (what a governor or EPP key names: policyN).
    policies: tuple[tuple[int, frozenset[int]], ...] = ()
    boost_file: str | None = None  # "boost" (cpufreq/boost) or "no_turbo": Key.cpu_boost's name
    # The global CPU latency request (/dev/cpu_dma_latency) in us; None: none in force.
    latency_request: LatencyRequest = _NOT_READ
    # Who holds that request, and whether all of /proc was searched; None: not looked for
    # (no request in force, or not a live host).
    latency_holders: tuple[Holders, bool] | None = None


@dataclass(frozen=True, slots=True)
class Smt:
    control: str | Unavailable  # on, off, forceoff, notsupported, notimplemented
    active: bool | None


PM_QOS_NOTE = (
    "the global request is what /dev/cpu_dma_latency reads (root; opening it adds a request at "
    "the no-limit value, which changes nothing); each CPU's pm_qos_resume_latency_us is its own "
    "(0: no limit, n/a: none allowed); a C-state slower to leave than either is not entered"
)


def group(values: dict[int, K]) -> list[tuple[frozenset[int], K]]:
    """CPUs with equal values as one group each, in order of their first CPU."""
    by: dict[K, set[int]] = {}
    for cpu in sorted(values):
        by.setdefault(values[cpu], set()).add(cpu)
    return sorted(((frozenset(c), v) for v, c in by.items()), key=lambda g: min(g[0]))


def _text(root: HostRoot, rel: str) -> str | None:
    value = read_value(root, root.sys_path(rel), rel)
    return value if isinstance(value, str) else None


def _int(root: HostRoot, rel: str) -> int | None:
    text = _text(root, rel)
    return int(text) if text is not None and text.isascii() and text.isdigit() else None


def _numbered(root: HostRoot, rel: str, pattern: re.Pattern[str]) -> list[int]:
    try:
        names = root.listdir(root.sys_path(rel))
    except OSError:
        return []
    return sorted(int(m.group(1)) for n in names if (m := pattern.match(n)))


def _cpus(root: HostRoot) -> list[int]:
    return _numbered(root, "devices/system/cpu", _CPU)


def _policy_cpus(root: HostRoot, p: int) -> frozenset[int]:
    for name in ("related_cpus", "affected_cpus"):
        text = _text(root, f"devices/system/cpu/cpufreq/policy{p}/{name}")
        if text:
            try:
                return parse_cpulist(text.replace(" ", ","))
            except ValueError:
                continue
    return frozenset({p})


def read_policies(root: HostRoot) -> tuple[tuple[int, frozenset[int]], ...]:
    """Each cpufreq policy's number and CPUs (what a governor key names), and nothing else."""
    base = "devices/system/cpu/cpufreq"
    return tuple((p, _policy_cpus(root, p)) for p in _numbered(root, base, _POLICY))


def read_freq(root: HostRoot) -> tuple[FreqGroup, ...] | Unavailable:
    return _read_freq(root)[0]


def _read_freq(
    root: HostRoot,
) -> tuple[tuple[FreqGroup, ...] | Unavailable, tuple[tuple[int, frozenset[int]], ...]]:
    """The groups, and each policy's number and CPUs. The driver and the governors it offers
    are the one cpufreq driver's (drivers/cpufreq/cpufreq.c: one driver a system), read once
    from the first policy; the rest is each policy's own."""
    base = "devices/system/cpu/cpufreq"
    policies = _numbered(root, base, _POLICY)
    if not policies:
        return Unavailable(
            "unsupported", "no cpufreq: frequency is the firmware's or the host's"
        ), ()
    per_cpu: dict[int, FreqPolicy] = {}
    cur: dict[int, int] = {}
    owned: list[tuple[int, frozenset[int]]] = []
    first_rel = f"{base}/policy{policies[0]}"
    driver = _text(root, f"{first_rel}/scaling_driver")
    governors = tuple((_text(root, f"{first_rel}/scaling_available_governors") or "").split())
    for p in policies:
        rel = f"{base}/policy{p}"
        cpus = _policy_cpus(root, p)
        owned.append((p, cpus))
        first = min(cpus) if cpus else p
        policy = FreqPolicy(
            driver=driver,
            governor=_text(root, f"{rel}/scaling_governor"),
            epp=_text(root, f"{rel}/energy_performance_preference"),
            epb=_text(root, f"devices/system/cpu/cpu{first}/power/energy_perf_bias"),
            min_khz=_int(root, f"{rel}/scaling_min_freq"),
            max_khz=_int(root, f"{rel}/scaling_max_freq"),
            hw_min_khz=_int(root, f"{rel}/cpuinfo_min_freq"),
            hw_max_khz=_int(root, f"{rel}/cpuinfo_max_freq"),
            governors=governors,
        )
        now = _int(root, f"{rel}/scaling_cur_freq")
        for cpu in cpus:
            per_cpu[cpu] = policy
            if now is not None:
                cur[cpu] = now
    out = []
    for cpus, policy in group(per_cpu):
        seen = [cur[c] for c in cpus if c in cur]
        out.append(FreqGroup(cpus, policy, (min(seen), max(seen)) if seen else None))
    return tuple(out), tuple(owned)


def _boost(root: HostRoot) -> tuple[str | None, str | None]:
    """("on"/"off", the file's name) or (None, None) without either file."""
    boost = _text(root, "devices/system/cpu/cpufreq/boost")
    if boost in ("0", "1"):
        return ("on" if boost == "1" else "off"), "boost"
    no_turbo = _text(root, "devices/system/cpu/intel_pstate/no_turbo")
    if no_turbo in ("0", "1"):
        return ("off" if no_turbo == "1" else "on"), "no_turbo"
    return None, None


def _states(root: HostRoot, cpu: int) -> tuple[IdleState, ...]:
    rel = f"devices/system/cpu/cpu{cpu}/cpuidle"
    out = []
    for i in _numbered(root, rel, _STATE):
        s = f"{rel}/state{i}"
        disable = _text(root, f"{s}/disable")
        out.append(
            IdleState(
                index=i,
                name=_text(root, f"{s}/name") or f"state{i}",
                desc=_text(root, f"{s}/desc") or "",
                latency_us=_int(root, f"{s}/latency"),
                residency_us=_int(root, f"{s}/residency"),
                disabled=None if disable not in ("0", "1") else disable == "1",
            )
        )
    return tuple(out)


def _disabled(
    root: HostRoot, cpu: int, like: tuple[IdleState, ...]
) -> tuple[IdleState, ...] | None:
    """`like`'s states with this CPU's own `disable`, or None when the CPU lacks one of them
    (then it is read in full). Only `disable` is the CPU's: name, desc, latency and residency
    are the cpuidle driver's state table (drivers/cpuidle/sysfs.c prints them from
    cpuidle_driver.states[], the same for every CPU the driver serves)."""
    out = []
    for st in like:
        raw = read_value(
            root,
            root.sys_path(f"devices/system/cpu/cpu{cpu}/cpuidle/state{st.index}/disable"),
            "disable",
        )
        if isinstance(raw, Unavailable) and raw.kind == "missing":
            return None
        text = raw if isinstance(raw, str) else None
        out.append(replace(st, disabled=None if text not in ("0", "1") else text == "1"))
    return tuple(out)


def read_idle(root: HostRoot, cpus: list[int]) -> tuple[IdleGroup, ...] | Unavailable:
    """Each CPU's C-states, read in full once per cpuidle driver and then only each CPU's
    `disable` (a 1152-CPU host: about 5 000 files instead of 25 000). A host with several
    drivers (CONFIG_CPU_IDLE_MULTIPLE_DRIVERS: big.LITTLE) has cpuN/cpuidle/driver/name;
    each driver's table is read from its first CPU."""
    per_cpu: dict[int, tuple[IdleState, ...]] = {}
    tables: dict[str | None, tuple[IdleState, ...]] = {}
    name = "devices/system/cpu/cpu{}/cpuidle/driver/name"
    multi = bool(cpus) and _text(root, name.format(cpus[0])) is not None
    for c in cpus:
        drv = _text(root, name.format(c)) if multi else None
        like = tables.get(drv)
        got = _disabled(root, c, like) if like else None
        if got is None:
            got = _states(root, c)
            if got:
                tables.setdefault(drv, got)
        if got:
            per_cpu[c] = got
    if not per_cpu:
        return Unavailable("unsupported", "no cpuidle states (idle is the hypervisor's or off)")
    return tuple(IdleGroup(c, st) for c, st in group(per_cpu))


def read_cpu_power(root: HostRoot) -> CpuPower:
    cpus = _cpus(root)
    driver = read_value(
        root, root.sys_path("devices/system/cpu/cpuidle/current_driver"), "cpuidle driver"
    )
    if isinstance(driver, Unavailable):
        driver = Unavailable(driver.kind, "no cpuidle driver")
    resume = {
        c: v
        for c in cpus
        if (v := _text(root, f"devices/system/cpu/cpu{c}/power/pm_qos_resume_latency_us"))
    }
    freq, policies = _read_freq(root)
    boost, boost_file = _boost(root)
    req = read_request(root.live)
    return CpuPower(
        freq=freq,
        boost=boost,
        pstate_status=_text(root, "devices/system/cpu/intel_pstate/status"),
        idle_driver=driver,
        idle=read_idle(root, cpus),
        resume_latency=tuple(group(resume)),
        pm_qos_note=PM_QOS_NOTE,
        policies=policies,
        boost_file=boost_file,
        latency_request=req,
        latency_holders=holders(root) if root.live and isinstance(req, int) else None,
    )


def read_smt(root: HostRoot) -> Smt:
    control = read_value(root, root.sys_path("devices/system/cpu/smt/control"), "smt/control")
    if isinstance(control, Unavailable):
        control = Unavailable(control.kind, "no SMT control (kernel without hotplug SMT)")
    active = _text(root, "devices/system/cpu/smt/active")
    return Smt(control, None if active not in ("0", "1") else active == "1")


def deep_states(
    groups: tuple[IdleGroup, ...], deeper_than_us: int
) -> list[tuple[frozenset[int], IdleState]]:
    """The enabled states whose exit latency is above `deeper_than_us`, per group."""
    return [
        (g.cpus, s)
        for g in groups
        for s in g.states
        if s.disabled is False and s.latency_us is not None and s.latency_us > deeper_than_us
    ]


def entered_deep_states(
    power: CpuPower, deeper_than_us: int
) -> list[tuple[frozenset[int], IdleState]]:
    """`deep_states` the idle governor may still choose: a PM QoS limit (the global request or
    a CPU's own) below a state's exit latency keeps that CPU out of it, as its disable file
    would (cpuidle_governor_latency_req)."""
    if isinstance(power.idle, Unavailable):
        return []
    out = []
    for cpus, st in deep_states(power.idle, deeper_than_us):
        lat = st.latency_us or 0
        free = frozenset(
            c
            for c in cpus
            if (lim := limit_for(c, power.latency_request, power.resume_latency)) is None
            or lat <= lim
        )
        if free:
            out.append((free, st))
    return out
