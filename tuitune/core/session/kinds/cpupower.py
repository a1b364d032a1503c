"""CPU power as journaled settings (issue 32): a cpufreq policy's governor and EPP, and one
CPU's C-state `disable`. Host-wide (no interface, no namespace); read from the host's sysfs
(or a --root tree) and written one value to one file, so the journal's original is exactly
what the kernel printed and a restore writes it back.

A governor change moves the EPP with it (intel_pstate and amd-pstate force "performance"
under the performance governor): `related` names both, so the journal keeps the EPP's original
too. A value the kernel does not offer (scaling_available_governors,
energy_performance_available_preferences) is refused before any write, in one line.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.root import read_value
from tuitune.core.session.kinds.base import Form, GroupRead, HostFile, WriteRefused
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    ShowPart,
    ShowSource,
    is_state,
    objects,
    state_or,
)
from tuitune.core.session.profile_model import ProfileError, Request, is_text, plain, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.host.cpupower import FreqGroup, IdleGroup
    from tuitune.core.session.kinds.port import HostPlacing, KernelPort

_CPUFREQ = "devices/system/cpu/cpufreq"
_POLICY = re.compile(r"policy[0-9]{1,5}")
_STATE = re.compile(r"cpu([0-9]{1,5})/state([0-9]{1,3})")
_WORD = re.compile(r"[a-z_]{1,32}")  # a governor's or an EPP's name as the kernel prints it
_FILE = {"cpu_governor": "scaling_governor", "cpu_epp": "energy_performance_preference"}
_OFFERED = {
    "cpu_governor": "scaling_available_governors",
    "cpu_epp": "energy_performance_available_preferences",
}


def _path(key: Key) -> str:
    """The sysfs file of `key` (relative to /sys); WriteRefused for a name that is not one."""
    if key.kind == "cstate_disable":
        m = _STATE.fullmatch(key.name)
        if m is None:
            raise WriteRefused(key, Unavailable("error", f"{key.name!r} is not cpuN/stateM"))
        return f"devices/system/cpu/cpu{m.group(1)}/cpuidle/state{m.group(2)}/disable"
    if _POLICY.fullmatch(key.name) is None:
        raise WriteRefused(key, Unavailable("error", f"{key.name!r} is not a cpufreq policy"))
    return f"{_CPUFREQ}/{key.name}/{_FILE[key.kind]}"


def _has_policies(cpufreq: Path) -> bool:
    try:
        return any(p.name.startswith("policy") for p in cpufreq.iterdir())
    except OSError:
        return False


class CpuPowerKind(HostFile):
    carriers: tuple[str, ...] = ("cpu",)

    def host_wide(self, key: Key) -> str | None:
        if key.kind == "cstate_disable":
            return (
                "C-states are each CPU's of the host, not per namespace: changing them "
                "changes the host's CPUs for every namespace and every process"
            )
        what = "The CPU governor" if key.kind == "cpu_governor" else "The CPU EPP"
        return (
            f"{what} is the host's, one per cpufreq policy, not per namespace: changing it "
            "changes the host's CPUs for every namespace and every process"
        )

    def file(self, acc: KernelPort, key: Key) -> Path:
        return acc.root.sys_path(_path(key))

    def place(self, kind: Kind, r: Request, host: HostPlacing, errors: list[str]) -> dict[Key, str]:
        """ "SELECTOR" (governor, EPP): each cpufreq policy covering one of its CPUs (a host
        without cpufreq: the first CPU's, whose read says so); "SELECTOR|STATE" (C-state):
        the state of that name on each of its CPUs present."""
        selector, _, state = r.name.partition("|")
        try:
            cpus = host.cpus_of(selector, r.origin)
        except (ValueError, CpuListError) as exc:
            errors.append(str(exc))
            return {}
        if kind in ("cpu_governor", "cpu_epp"):
            covering = [p for p, covered in host.policies() if covered & cpus]
            maker = Key.cpu_governor if kind == "cpu_governor" else Key.cpu_epp
            return {maker(p): r.text for p in covering or [min(cpus, default=0)]}
        out: dict[Key, str] = {}
        idle = host.idle()
        for cpu in sorted(cpus & host.present()):  # a CPU this host lacks: nothing to set
            index = idle.get(cpu, {}).get(state)
            if index is None:
                errors.append(f"{r.origin}: CPU {cpu} has no C-state {state!r} on this host")
                break
            out[Key.cstate_disable(cpu, index)] = r.text
        return out

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.cpu_power.frequency (each group's policy: its governor and EPP, at
        cpu_governor's turn) and .idle (each group's C-states, at cstate_disable's)."""
        if src.platform is None:
            return {}
        cpu = src.platform.cpu
        if kind == "cpu_governor":
            return {(*_POWER, "frequency"): _frequency_json(cpu.freq)}
        if kind == "cstate_disable":
            return {(*_POWER, "idle"): _idle_json(cpu.idle)}
        return {}  # cpu_epp: in its group's policy

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """platform.cpu_power's frequency groups (each one's governor and EPP, read at
        cpu_governor's turn) and idle groups (their C-states' `disabled`). Host-wide: not
        read for a namespace."""
        power = doc.platform_part("cpu_power") if doc.host_wide else None
        if power is None:
            return []
        if kind == "cpu_governor":
            return _show_frequency(power.get("frequency"))
        if kind == "cstate_disable":
            return _show_idle(power.get("idle"))
        return []  # cpu_epp: with its group's governor

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        policy = key.kind != "cstate_disable" and _POLICY.fullmatch(key.name) is not None
        if policy and not _has_policies(acc.root.sys_path(_CPUFREQ)):
            # The directory is there without cpufreq too (seen on this KVM host and in the
            # bench's guest): no policy in it is what says so.
            return Unavailable("unsupported", "no cpufreq here (a VM guest, or scaling is off)")
        return super().read(acc, key)

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        acc.current(key)  # present, readable: or refused with the reason
        value = text.strip()
        if key.kind == "cstate_disable":
            if value not in ("0", "1"):
                raise WriteRefused(key, Unavailable("error", "give 1 (disabled) or 0 (enabled)"))
            return value
        offered_rel = f"{_CPUFREQ}/{key.name}/{_OFFERED[key.kind]}"
        offered = read_value(acc.root, acc.root.sys_path(offered_rel), offered_rel)
        words = offered.split() if isinstance(offered, str) else []
        if not _WORD.fullmatch(value) or (words and value not in words):
            choice = ", ".join(words) or "the kernel's names"
            raise WriteRefused(key, Unavailable("error", f"{value[:32]!r}: choose {choice}"))
        return value

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        out: dict[Key, str | None] = {}
        keys = [key]
        if key.kind == "cpu_governor":
            keys.append(Key("cpu_epp", None, key.name))
        for k in keys:
            got = self.read(acc, k)
            out[k] = None if isinstance(got, Unavailable) else got.get(k)
        if key.kind == "cpu_governor" and out.get(keys[1]) is None:
            del out[keys[1]]  # no EPP on this driver: nothing moves with the governor
        return out

    def label(self, key: Key) -> str:
        what = {"cpu_governor": "governor", "cpu_epp": "EPP"}.get(key.kind)
        return f"cpufreq {key.name} {what}" if what else f"{key.name} disable"

    def form(self, key: Key) -> Form:
        return "count" if key.kind == "cstate_disable" else "text"  # the kernel's 0 or 1


# ---- saved states: a TOML profile's [cpu], a show document's platform.cpu_power ----------

ALL_CPUS = "*"
NIC_LOCAL = "nic-local"
_STATE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_. -]{0,31}")  # POLL, C1E, C6P, "haltpoll idle"
_SWITCH = {"on": "on", "off": "off", True: "on", False: "off"}
_DISABLED = {"off": "1", "disabled": "1", "on": "0", "enabled": "0", True: "0", False: "1"}


def selector(value: object, where: str) -> str:
    """The CPUs a request names: "*", "nic-local" or a CPU list (looked up when applied)."""
    if value in (ALL_CPUS, NIC_LOCAL):
        return str(value)
    if isinstance(value, str) and is_text(value, 4096):
        try:
            return format_cpulist(parse_cpulist(value)) or ALL_CPUS
        except CpuListError as exc:
            raise ProfileError(f"{where}: {shown(value)}: {exc}") from None
    raise ProfileError(f'{where}: {shown(value)}: "*", "nic-local" or a CPU list')


def _word(value: object, where: str) -> str:
    if not isinstance(value, str) or _WORD.fullmatch(value) is None:
        raise ProfileError(f"{where}: {shown(value)} is not a governor's or EPP's name")
    return value


def _state(name: object, where: str) -> str:
    if not isinstance(name, str) or _STATE_NAME.fullmatch(name) is None:
        raise ProfileError(f"{where}: {shown(name)} is not a C-state's name")
    return name


def cpu_requests(
    cpus: str, governor: object, epp: object, boost: object, cstates: Mapping[str, object]
) -> list[Request]:
    """The requests of one group of CPUs (a TOML [cpu] table, a show document's group)."""
    out: list[Request] = []
    if governor is not None:
        out.append(Request("cpu_governor", cpus, _word(governor, "cpu governor"), "[cpu] governor"))
    if epp is not None:
        out.append(Request("cpu_epp", cpus, _word(epp, "cpu epp"), "[cpu] epp"))
    if boost is not None:
        if not isinstance(boost, bool | str) or boost not in _SWITCH:  # 1 == True in a dict
            raise ProfileError(f"[cpu] boost: {shown(boost)} is not on or off")
        out.append(Request("cpu_boost", "", _SWITCH[boost], "[cpu] boost"))
    for name, state in cstates.items():
        where = f"[cpu.cstates] {plain(name)}"
        _state(name, where)
        if not isinstance(state, bool | str) or state not in _DISABLED:
            raise ProfileError(f'{where}: {shown(state)} is not "on" or "off"')
        out.append(Request("cstate_disable", f"{cpus}|{name}", _DISABLED[state], where))
    return out


def _group_cpus(g: Mapping[str, Any], where: str) -> str:
    cpus = g.get("cpus")
    if not isinstance(cpus, str):
        raise ProfileError(f"{where}.cpus: {shown(cpus)} is not a CPU list")
    return selector(cpus, f"{where}.cpus")


def _groups(part: object, where: str) -> Iterator[tuple[str, str, Mapping[str, Any]]]:
    """Each CPU group of a platform.cpu_power list (none when null or a state): where it
    stands in the document, its CPUs, the group."""
    if part is None or is_state(part):
        return
    for i, g in enumerate(objects(part, where)):
        at = f"{where}[{i}]"
        yield at, _group_cpus(g, at), g


def _show_frequency(freq: object) -> list[Request]:
    out: list[Request] = []
    for at, cpus, g in _groups(freq, "platform.cpu_power.frequency"):
        for r in cpu_requests(cpus, g.get("governor"), g.get("epp"), None, {}):
            out.append(Request(r.kind, r.name, r.text, f"{at}.{r.kind.removeprefix('cpu_')}"))
    return out


def _show_idle(idle: object) -> list[Request]:
    out: list[Request] = []
    for at, cpus, g in _groups(idle, "platform.cpu_power.idle"):
        states = objects(g.get("states", []), f"{at}.states")
        wanted = {}
        for s in states:
            if s.get("disabled") is None:
                continue  # the host did not say
            if not isinstance(s.get("disabled"), bool):
                raise ProfileError(f"{at}.states: disabled must be true, false or null")
            wanted[_state(s.get("name"), f"{at}.states")] = not s["disabled"]
        for r in cpu_requests(cpus, None, None, None, wanted):
            out.append(Request(r.kind, r.name, r.text, f"{at} {r.name.partition('|')[2]}"))
    return out


_POWER = ("platform", "cpu_power")


def _cpus_text(c: frozenset[int]) -> str:
    return format_cpulist(c) or "-"


def _frequency_json(freq: tuple[FreqGroup, ...] | Unavailable) -> Any:
    if isinstance(freq, Unavailable):
        return state_or(freq)
    return [
        {
            "cpus": _cpus_text(g.cpus),
            "driver": g.policy.driver,
            "governor": g.policy.governor,
            "epp": g.policy.epp,
            "energy_perf_bias": g.policy.epb,
            "min_khz": g.policy.min_khz,
            "max_khz": g.policy.max_khz,
            "hw_min_khz": g.policy.hw_min_khz,
            "hw_max_khz": g.policy.hw_max_khz,
            "cur_khz": list(g.cur_khz) if g.cur_khz else None,
            "governors": list(g.policy.governors),
        }
        for g in freq
    ]


def _idle_json(idle: tuple[IdleGroup, ...] | Unavailable) -> Any:
    if isinstance(idle, Unavailable):
        return state_or(idle)
    return [
        {
            "cpus": _cpus_text(g.cpus),
            "states": [
                {
                    "index": s.index,
                    "name": s.name,
                    "desc": s.desc,
                    "latency_us": s.latency_us,
                    "residency_us": s.residency_us,
                    "disabled": s.disabled,
                }
                for s in g.states
            ],
        }
        for g in idle
    ]
