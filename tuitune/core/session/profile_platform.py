"""CPU power and module parameters in saved states (issue 32): a TOML profile's `[cpu]` and
`[module_params.MODULE]` tables, and their resolution into setting keys on one host. The
checks of a request are the kinds' (kinds/cpupower.py `cpu_requests`, kinds/module.py
`module_request`), whose handlers read a `show --json` document's `platform.cpu_power` and
`platform.driver.parameters` too.

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

from collections.abc import Mapping
from typing import Any

from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.cpupower import read_idle, read_policies
from tuitune.core.host.netdev import read_placement
from tuitune.core.session.access import HostAccess
from tuitune.core.session.kinds.cpupower import ALL_CPUS, NIC_LOCAL, cpu_requests, selector
from tuitune.core.session.kinds.module import module_request
from tuitune.core.session.kinds.table import handler
from tuitune.core.session.profile_model import ProfileError, Request, plain
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

PLATFORM_REQUESTS: tuple[Kind, ...] = (
    "cpu_governor",
    "cpu_epp",
    "cstate_disable",
    "cpu_boost",
    "module_param",
)


def parse_cpu_toml(table: Mapping[str, Any]) -> list[Request]:
    known = {"cpus", "governor", "epp", "boost", "cstates"}
    for key in table:
        if key not in known:
            raise ProfileError(f"[cpu] {plain(key)}: unknown (known: {', '.join(sorted(known))})")
    cstates = table.get("cstates", {})
    if not isinstance(cstates, Mapping):
        raise ProfileError("[cpu] cstates must be a table ([cpu.cstates])")
    cpus = selector(table.get("cpus", ALL_CPUS), "[cpu] cpus")
    return cpu_requests(cpus, table.get("governor"), table.get("epp"), table.get("boost"), cstates)


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


class _Placing:
    """kinds/port.py's HostPlacing on one HostAccess: what is read for placing is read once
    for all the requests, and only when one needs it."""

    def __init__(self, access: HostAccess, ifname: str | None) -> None:
        self.access, self.ifname, self.root = access, ifname, access.root
        self._policies: tuple[tuple[int, frozenset[int]], ...] | None = None
        self._idle: dict[int, dict[str, int]] | None = None

    def cpus_of(self, selector: str, origin: str) -> frozenset[int]:
        return _cpus_of(self.access, selector, self.ifname, origin)

    def policies(self) -> tuple[tuple[int, frozenset[int]], ...]:
        if self._policies is None:
            self._policies = read_policies(self.root)
        return self._policies

    def idle(self) -> dict[int, dict[str, int]]:
        if self._idle is None:
            groups = read_idle(self.root, sorted(self.access.cpus()[1]))
            self._idle = (
                {}
                if isinstance(groups, Unavailable)
                else {c: {s.name: s.index for s in g.states} for g in groups for c in g.cpus}
            )
        return self._idle

    def present(self) -> frozenset[int]:
        return self.access.cpus()[1]


def resolve_platform(
    access: HostAccess, requests: list[Request], ifname: str | None, errors: list[str]
) -> dict[Key, str]:
    """The keys of this host the platform requests stand for (each kind's handler places its
    own: `place`); a request that cannot be placed (no such C-state on a CPU) is a line in
    `errors`."""
    wanted: dict[Key, str] = {}
    host = _Placing(access, ifname)
    for r in requests:
        wanted.update(handler(r.kind).place(r.kind, r, host, errors))
    return wanted
