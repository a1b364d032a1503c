"""CPU power and module parameters in saved states (issue 32): a TOML profile's `[cpu]` and
`[module_params.MODULE]` tables, a `show --json` document's `platform.cpu_power` and
`platform.driver.parameters`, and their resolution into setting keys on one host.

    [cpu]
    cpus = "nic-local"          # "*" (every CPU, the default), "nic-local", or "0-7"
    governor = "performance"    # each cpufreq policy covering one of those CPUs
    epp = "performance"
    boost = "on"                # cpufreq/boost or intel_pstate/no_turbo, whichever the host has
    [cpu.cstates]
    C6 = "off"                  # each CPU's state named C6: disabled
    [module_params.e1000e]
    InterruptThrottleRate = 3   # a parameter the kernel takes at run time

A request names its CPUs as a selector ("*", "nic-local", a CPU list) and, for a C-state,
the state's name after a "|": the policies and state indices are this host's, looked up when
the file is applied. A host without cpufreq still gets a key (policy of the first CPU), so
that the kind's refusal ("no cpufreq here") is a state on the row, and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.cpupower import read_idle, read_policies
from tuitune.core.host.netdev import read_placement
from tuitune.core.session.access import HostAccess
from tuitune.core.session.kinds.boost import boost_key
from tuitune.core.session.profile_model import ProfileError, Request, is_text, plain, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

ALL_CPUS = "*"
NIC_LOCAL = "nic-local"
PLATFORM_REQUESTS: tuple[Kind, ...] = (
    "cpu_governor",
    "cpu_epp",
    "cstate_disable",
    "cpu_boost",
    "module_param",
)
_STATE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_. -]{0,31}")  # POLL, C1E, C6P, "haltpoll idle"
_WORD = re.compile(r"[a-z_]{1,32}")  # a governor's or an EPP's name as the kernel prints it
_MODULE = re.compile(r"[A-Za-z0-9_]{1,64}")
_PARAM_VALUE = re.compile(r"[ -~]{0,256}")  # as kinds/module.py takes it
_SWITCH = {"on": "on", "off": "off", True: "on", False: "off"}
_DISABLED = {"off": "1", "disabled": "1", "on": "0", "enabled": "0", True: "0", False: "1"}


def _selector(value: object, where: str) -> str:
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


def parse_cpu_toml(table: Mapping[str, Any]) -> list[Request]:
    known = {"cpus", "governor", "epp", "boost", "cstates"}
    for key in table:
        if key not in known:
            raise ProfileError(f"[cpu] {plain(key)}: unknown (known: {', '.join(sorted(known))})")
    cstates = table.get("cstates", {})
    if not isinstance(cstates, Mapping):
        raise ProfileError("[cpu] cstates must be a table ([cpu.cstates])")
    cpus = _selector(table.get("cpus", ALL_CPUS), "[cpu] cpus")
    return cpu_requests(cpus, table.get("governor"), table.get("epp"), table.get("boost"), cstates)


def module_request(module: object, param: object, value: object, where: str) -> Request:
    if not isinstance(module, str) or _MODULE.fullmatch(module) is None:
        raise ProfileError(f"{where}: {shown(module)} is not a module's name")
    if not isinstance(param, str) or _MODULE.fullmatch(param) is None:
        raise ProfileError(f"{where}: {shown(param)} is not a parameter's name")
    if isinstance(value, bool):
        text = "Y" if value else "N"  # how the kernel prints a bool parameter
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, str) and _PARAM_VALUE.fullmatch(value):
        text = value
    else:
        raise ProfileError(f"{where}: {shown(value)} is not a parameter's value")
    return Request("module_param", f"{module}/{param}", text, where)


def parse_modules_toml(table: Mapping[str, Any]) -> list[Request]:
    out = []
    for module, params in table.items():
        if not isinstance(params, Mapping):
            raise ProfileError(f"[module_params] {plain(str(module))} must be a table")
        for param, value in params.items():
            where = f"[module_params.{plain(str(module))}] {plain(str(param))}"
            out.append(module_request(module, param, value, where))
    return out


# ---- resolution on a host --------------------------------------------------------------------


def _cpus_of(access: HostAccess, selector: str, ifname: str | None, origin: str) -> frozenset[int]:
    if selector == ALL_CPUS:
        online, _ = access.cpus()
        return online
    if selector == NIC_LOCAL:
        if ifname is None:
            raise ValueError(f"{origin}: nic-local needs an interface (tuitune apply FILE IFACE)")
        cpus = access.run(read_placement, access.root, ifname).local_cpus
        if not cpus:
            raise ValueError(f"{origin}: {ifname} has no local CPUs (a virtual device?)")
        return frozenset(cpus)
    return parse_cpulist(selector)


def resolve_platform(
    access: HostAccess, requests: list[Request], ifname: str | None, errors: list[str]
) -> dict[Key, str]:
    """The keys of this host the platform requests stand for; a request that cannot be
    placed (no such C-state on a CPU) is a line in `errors`."""
    wanted: dict[Key, str] = {}
    policies: tuple[tuple[int, frozenset[int]], ...] | None = None
    idle: dict[int, dict[str, int]] | None = None
    for r in requests:
        if r.kind == "module_param":
            module, _, param = r.name.partition("/")
            wanted[Key.module_param(module, param)] = r.text
            continue
        if r.kind == "cpu_boost":
            key = boost_key(access.root)
            wanted[key or Key.cpu_boost()] = r.text  # none here: the kind says so, as a state
            continue
        selector, _, state = r.name.partition("|")
        try:
            cpus = _cpus_of(access, selector, ifname, r.origin)
        except (ValueError, CpuListError) as exc:
            errors.append(str(exc))
            continue
        if r.kind in ("cpu_governor", "cpu_epp"):
            if policies is None:
                policies = read_policies(access.root)
            numbers = [p for p, covered in policies if covered & cpus] or [min(cpus, default=0)]
            maker = Key.cpu_governor if r.kind == "cpu_governor" else Key.cpu_epp
            wanted.update({maker(p): r.text for p in numbers})
            continue
        if idle is None:
            groups = read_idle(access.root, sorted(access.cpus()[1]))
            idle = (
                {}
                if isinstance(groups, Unavailable)
                else {c: {s.name: s.index for s in g.states} for g in groups for c in g.cpus}
            )
        present = access.cpus()[1]
        for cpu in sorted(cpus & present):  # a CPU this host does not have: nothing to set
            index = idle.get(cpu, {}).get(state)
            if index is None:
                errors.append(f"{r.origin}: CPU {cpu} has no C-state {state!r} on this host")
                break
            wanted[Key.cstate_disable(cpu, index)] = r.text
    return wanted


# ---- a show --json document's platform ---------------------------------------------------


def _is_state(v: object) -> bool:
    return isinstance(v, dict) and "unavailable" in v


def _group_cpus(g: Mapping[str, Any], where: str) -> str:
    cpus = g.get("cpus")
    if not isinstance(cpus, str):
        raise ProfileError(f"{where}.cpus: {shown(cpus)} is not a CPU list")
    return _selector(cpus, f"{where}.cpus")


def _objects(v: object, where: str) -> list[Mapping[str, Any]]:
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise ProfileError(f"{where}: expected an array of objects or a refusal")
    return v


def show_requests(platform: object) -> list[Request]:
    """platform.cpu_power (each group's governor and EPP, boost, each group's C-states'
    disabled) and platform.driver.parameters (the writable ones) of a show document. The
    rest of `platform` reports the host and is not read."""
    if not isinstance(platform, dict):
        return []
    out: list[Request] = []
    power = platform.get("cpu_power")
    if isinstance(power, dict):
        where = "platform.cpu_power"
        freq = power.get("frequency")
        if freq is not None and not _is_state(freq):
            for i, g in enumerate(_objects(freq, f"{where}.frequency")):
                at = f"{where}.frequency[{i}]"
                cpus = _group_cpus(g, at)
                for r in cpu_requests(cpus, g.get("governor"), g.get("epp"), None, {}):
                    out.append(
                        Request(r.kind, r.name, r.text, f"{at}.{r.kind.removeprefix('cpu_')}")
                    )
        boost = power.get("boost")
        if boost is not None:
            out += [
                Request(r.kind, r.name, r.text, f"{where}.boost")
                for r in cpu_requests(ALL_CPUS, None, None, boost, {})
            ]
        idle = power.get("idle")
        if idle is not None and not _is_state(idle):
            for i, g in enumerate(_objects(idle, f"{where}.idle")):
                at = f"{where}.idle[{i}]"
                cpus = _group_cpus(g, at)
                states = _objects(g.get("states", []), f"{at}.states")
                wanted = {}
                for s in states:
                    if s.get("disabled") is None:
                        continue  # the host did not say
                    if not isinstance(s.get("disabled"), bool):
                        raise ProfileError(f"{at}.states: disabled must be true, false or null")
                    wanted[_state(s.get("name"), f"{at}.states")] = not s["disabled"]
                for r in cpu_requests(cpus, None, None, None, wanted):
                    out.append(Request(r.kind, r.name, r.text, f"{at} {r.name.partition('|')[2]}"))
    driver = platform.get("driver")
    if isinstance(driver, dict):
        params = driver.get("parameters")
        module = driver.get("module")
        if params is not None and not _is_state(params) and module is not None:
            for i, p in enumerate(_objects(params, "platform.driver.parameters")):
                at = f"platform.driver.parameters[{i}]"
                if p.get("writable") is not True or not isinstance(p.get("value"), str):
                    continue  # set at load only, or unreadable: nothing to write at run time
                out.append(module_request(module, p.get("name"), p["value"], at))
    return out
