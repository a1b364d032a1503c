"""Boost/turbo as a journaled setting (issue 32): `cpufreq/boost` (acpi-cpufreq, amd-pstate:
1 = boost allowed) or `intel_pstate/no_turbo` (1 = turbo off, the inverse), one host-wide
switch. The key names the file the host has (Key.cpu_boost); the value is "on"/"off" as the
user thinks of it, mapped to the file's own 0/1 on read and write, so a restore writes back
exactly the digit that was there. intel_pstate refuses no_turbo writes when the firmware has
turbo off (EPERM): that is the kernel's refusal, a state on the row.
Documentation/admin-guide/pm/cpufreq.rst ("boost") and intel_pstate.rst ("no_turbo"); not
from the seeds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused, switch_word
from tuitune.core.session.kinds.cpupower import ALL_CPUS, cpu_requests
from tuitune.core.session.kinds.showform import ShowDoc, ShowPart, ShowSource
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import Request
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import HostPlacing, KernelPort

# Key name -> (its file under /sys/devices/system/cpu, whether "1" means boost on).
FILES = {"boost": ("cpufreq/boost", True), "no_turbo": ("intel_pstate/no_turbo", False)}


def _file(key: Key) -> tuple[str, bool]:
    got = FILES.get(key.name or "")
    if got is None:
        raise WriteRefused(key, Unavailable("error", f"{key.name!r} is not boost or no_turbo"))
    return f"devices/system/cpu/{got[0]}", got[1]


def boost_key(root: HostRoot) -> Key | None:
    """The boost key of this host: cpufreq/boost where it exists (it wins, as cpupower's
    reading does), else intel_pstate/no_turbo; None when neither file is there."""
    for name, (rel, _) in FILES.items():
        if root.sys_path(f"devices/system/cpu/{rel}").is_file():
            return Key.cpu_boost(name)
    return None


class BoostKind(Family):
    value_form: Form = "switch"
    of_interface = False
    carriers: tuple[str, ...] = ("cpu",)

    def place(self, kind: Kind, r: Request, host: HostPlacing, errors: list[str]) -> dict[Key, str]:
        """This host's boost switch: cpufreq/boost or intel_pstate/no_turbo."""
        key = boost_key(host.root)
        return {key or Key.cpu_boost(): r.text}  # none here: the kind says so, as a state

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.cpu_power.boost: true, false, or null (the host has no boost switch)."""
        if src.platform is None:
            return {}
        return {("platform", "cpu_power", "boost"): src.platform.cpu.boost}

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """platform.cpu_power.boost (true/false, "on"/"off"). Host-wide."""
        power = doc.platform_part("cpu_power") if doc.host_wide else None
        boost = power.get("boost") if power is not None else None
        if boost is None:
            return []
        where = "platform.cpu_power.boost"
        return [
            Request(r.kind, r.name, r.text, where)
            for r in cpu_requests(ALL_CPUS, None, None, boost, {})
        ]

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        try:
            rel, one_is_on = _file(key)
        except WriteRefused as exc:
            return exc.state
        raw = read_value(acc.root, acc.root.sys_path(rel), key.label)
        if isinstance(raw, Unavailable):
            if raw.kind == "missing":
                return Unavailable("unsupported", "no boost control here (no cpufreq, or a VM)")
            return raw
        if raw not in ("0", "1"):
            return Unavailable("error", f"{key.label}: the kernel printed {raw[:16]!r}")
        return {key: "on" if (raw == "1") == one_is_on else "off"}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        acc.current(key)  # present, readable: or refused with the reason
        return v.parse_switch(key, text)

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        rel, one_is_on = _file(key)
        acc.writer(acc.root.sys_path(rel), "1" if (value == "on") == one_is_on else "0")
        return ()

    def label(self, key: Key) -> str:
        return "CPU boost/turbo" + (" (intel_pstate no_turbo)" if key.name == "no_turbo" else "")

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def host_wide(self, key: Key) -> str | None:
        return (
            "CPU boost/turbo is one switch for the whole host, not per namespace: changing it "
            "changes every CPU of the host, for every namespace"
        )

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind,)

    def canonical(self, key: Key, text: str) -> str:
        return switch_word(text)
