"""Saved states for `tuitune apply`: a `tuitune show --json` document or a TOML profile
(docs/profile.md). Loading only reads the file; `resolve` turns its requests into setting keys
of one host (feature short names into their members, IRQ queue names into today's IRQ numbers).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tuitune.core.docfile import DocumentError, read_document
from tuitune.core.docfile import shown as shown_path
from tuitune.core.session.access import HostAccess
from tuitune.core.session.journal_queues import makes_queues
from tuitune.core.session.kinds.table import HANDLERS, WRITE_ORDER, handler
from tuitune.core.session.profile_model import (
    ALL_QUEUES,
    Profile,
    ProfileError,
    Request,
    check_ifname,
    check_name,
    is_text,
    one_line,
    plain,
    shown,
    strict_json,
)
from tuitune.core.session.profile_platform import (
    PLATFORM_REQUESTS,
    parse_cpu_toml,
    parse_modules_toml,
    resolve_platform,
)
from tuitune.core.session.profile_procs import parse_processes, resolve_processes
from tuitune.core.session.settings import (
    CHANNEL_FIELDS,
    NO_CPUS,
    QUEUE_KINDS,
    Key,
    Kind,
)
from tuitune.core.session.showdoc import parse_show_json

# [interface]'s tables and values -> the kind of setting they hold, as each kind's handler
# places it (`profile_field`: [interface.rings] rx = 4096, mtu = 9000, fec = "rs").
_FIELDS = {
    f.name: (k, f.table) for k, h in HANDLERS.items() if (f := h.profile_field(k)) is not None
}
_TABLES: dict[str, Kind] = {name: k for name, (k, table) in _FIELDS.items() if table}
_SCALARS: dict[str, Kind] = {name: k for name, (k, table) in _FIELDS.items() if not table}


def load(path: Path, *, netns: str | None = None) -> Profile:
    """Read a TOML profile or a `show --json` document (decided by the content, not the name).
    `netns`: the target is a network namespace, so a show document's host-wide sysctls (which
    `show` lists but a namespace cannot set) are left out. Every problem is a ProfileError of
    one line that names the file."""
    try:
        text = read_document(path)
    except DocumentError as exc:
        raise ProfileError(str(exc)) from None
    name = shown_path(path)
    try:
        if text.lstrip().startswith("{"):
            try:
                doc = strict_json(text)
            except RecursionError:
                raise ProfileError("not valid JSON: nested too deeply") from None
            except ValueError as exc:  # JSONDecodeError, duplicates, NaN, a 5000-digit number
                raise ProfileError(f"not valid JSON: {exc}") from None
            return parse_show_json(doc, netns=netns)
        try:
            data = tomllib.loads(text)
        except RecursionError:
            raise ProfileError("not a TOML profile: nested too deeply") from None
        except ValueError as exc:  # TOMLDecodeError, a 5000-digit number
            raise ProfileError(f"not a TOML profile: {exc}") from None
        return parse_toml(data)
    except ProfileError as exc:
        raise ProfileError(one_line(f"{name}: {exc}")) from None


# ---- TOML profiles ---------------------------------------------------------------------------


def _text(kind: Kind, value: object, origin: str) -> str:
    """A TOML value as the text a user would type."""
    if isinstance(value, bool):
        if kind == "sysctl":
            return "1" if value else "0"
        return "on" if value else "off"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        if not is_text(value):
            raise ProfileError(f"{origin}: {shown(value)} is not one line of text")
        return value
    if isinstance(value, list) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in value
    ):
        sep = " " if kind == "sysctl" else ","
        return sep.join(str(x) for x in value) if value else NO_CPUS
    raise ProfileError(
        f"{origin}: {shown(value)} is not a number, a switch, a name or a list of numbers"
    )


def _table(data: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any]:
    t = data.get(name, {})
    if not isinstance(t, Mapping):
        raise ProfileError(f"{where}{name} must be a table ([{where}{name}])")
    return t


def _check_key(kind: Kind, name: str, origin: str) -> None:
    """The names each table may hold, so that a typo or a hostile name stops at the file."""
    handler(kind).check_profile_name(kind, name, origin)


def parse_toml(data: Mapping[str, Any]) -> Profile:
    unknown = set(data) - {"tuitune", "sysctl", "interface", "processes", "cpu", "module_params"}
    if unknown:
        listed = ", ".join(plain(u) for u in sorted(unknown)[:5])
        raise ProfileError(
            f"unknown table(s) {listed}: expected sysctl, interface, processes, cpu, module_params"
        )
    meta = _table(data, "tuitune", "")
    for key in meta:
        if key != "profile":
            raise ProfileError(f"[tuitune] {plain(key)}: unknown (known: profile)")
    version = meta.get("profile", 1)
    if type(version) is not int or version != 1:
        raise ProfileError(f"profile version {shown(version)}: this tuitune reads version 1")
    requests = []
    for key, value in _table(data, "sysctl", "").items():
        origin = f"[sysctl] {plain(key)}"
        check_name("sysctl", key, origin)
        requests.append(Request("sysctl", key, _text("sysctl", value, origin), origin))
    iface = _table(data, "interface", "")
    ifname = iface.get("name")
    if ifname is not None:
        if not isinstance(ifname, str):
            raise ProfileError("[interface] name must be a string")
        check_ifname(ifname, "[interface] name")
    for field, value in iface.items():
        if field == "name":
            continue
        if field in _SCALARS:
            link_kind = _SCALARS[field]
            origin = f"[interface] {field}"
            requests.append(Request(link_kind, "", _text(link_kind, value, origin), origin))
            continue
        if field not in _TABLES:
            known = ", ".join(["name", *_SCALARS, *_TABLES])
            raise ProfileError(f"[interface] {plain(field)}: unknown (known: {known})")
        kind = _TABLES[field]
        for name, v in _table(iface, field, "interface.").items():
            origin = f"[interface.{field}] {plain(name)}"
            _check_key(kind, name, origin)
            requests.append(Request(kind, name, _text(kind, v, origin), origin))
    requests += parse_processes(_table(data, "processes", ""))
    requests += parse_cpu_toml(_table(data, "cpu", ""))
    requests += parse_modules_toml(_table(data, "module_params", ""))
    return Profile(ifname, tuple(requests), "profile")


# ---- resolution on a host --------------------------------------------------------------------


def resolve(
    access: HostAccess, profile: Profile, ifname: str | None, skipped: list[str] | None = None
) -> tuple[list[tuple[Key, str]], list[str]]:
    """The (key, text) pairs the profile asks for on this host, in write order, and the
    problems found (each a line for the user). Nothing is read beyond what naming needs.
    With `skipped`, an IRQ the device does not have is not a problem but a line there: what
    does not fit this device (fewer queues) is left out, the rest applied."""
    errors: list[str] = []
    wanted: dict[Key, str] = {}
    explicit_features: dict[Key, str] = {}
    named_queues: dict[Key, str] = {}  # queue settings asked for by name -> where
    device_keys: list[Key] | None = None
    processes: list[Request] = []
    platform = [r for r in profile.requests if r.kind in PLATFORM_REQUESTS]
    wanted.update(resolve_platform(access, platform, ifname, errors))
    for r in profile.requests:
        if r.kind in PLATFORM_REQUESTS:
            continue
        if r.kind == "sysctl":
            wanted[Key.sysctl(r.name)] = r.text
            continue
        if r.kind == "proc_affinity":
            processes.append(r)  # after the IRQs: "irq:QUEUE" follows where they go
            continue
        if ifname is None:
            errors.append(f"{r.origin}: no interface: name one (tuitune apply FILE IFACE)")
            continue
        if r.kind == "feature":
            keys = access.feature_keys(ifname, r.name)
            exact = len(keys) == 1 and keys[0].name == r.name
            for key in keys:
                (explicit_features if exact else wanted)[key] = r.text
        elif r.kind in QUEUE_KINDS:
            if r.name == ALL_QUEUES:
                if device_keys is None:
                    device_keys = access.device_keys(ifname)
                for key in device_keys:
                    if key.kind == r.kind:
                        wanted[key] = r.text
            else:
                key = Key(r.kind, ifname, r.name)
                wanted[key] = r.text
                named_queues[key] = r.origin
        elif r.kind == "irq_affinity":
            irq_key = access.irq_key(ifname, r.name)
            if irq_key is None:
                why = f"{r.origin}: no IRQ named {r.name!r} serves {ifname} on this host"
                (errors if skipped is None else skipped).append(why)
            else:
                wanted[irq_key] = r.text
        elif handler(r.kind).profile_field(r.kind) is not None:
            # One of [interface]'s own: a field, flag, flow type or rule by name, or a value.
            wanted[Key(r.kind, ifname, r.name)] = r.text
        else:  # "service" (see kinds/table.py's WRITE_ORDER)
            errors.append(f"{r.origin}: a {r.kind} is not set from a profile")
    wanted.update(explicit_features)  # a full feature name wins over a short name covering it
    if ifname is not None:
        errors += _drop_vanishing_queues(access, ifname, wanted, named_queues, device_keys)
    if processes:
        wanted.update(resolve_processes(access, processes, ifname, wanted, errors, skipped))
    ordered = sorted(wanted.items(), key=lambda kv: WRITE_ORDER.index(kv[0].kind))
    return ordered, errors


def _drop_vanishing_queues(
    access: HostAccess,
    ifname: str,
    wanted: dict[Key, str],
    named: Mapping[Key, str],
    device_keys: list[Key] | None,
) -> list[str]:
    """Channels are written before queue settings (WRITE_ORDER): when they lower the queue count,
    the queues beyond it are gone by the time their turn comes. Found here, before the first
    write: `"*"` covers only the queues that remain, and a queue named outright that will not
    remain is a problem. Raising the count adds queues that cannot be checked yet (apply
    again). Returns the problems; `wanted` loses the settings of queues that go away."""
    queue_keys = [k for k in wanted if k.kind in QUEUE_KINDS]
    if not queue_keys or not any(makes_queues(k) for k in wanted):
        return []
    after = _queues_after(access, ifname, wanted, device_keys or access.device_keys(ifname))
    if not after:
        return []  # channels cannot be read here (their own validation says so) or predicted
    errors = []
    for key in queue_keys:
        side, _, index = key.name.partition("-")
        if side not in after or int(index) < after[side]:
            continue
        del wanted[key]
        if key in named:
            errors.append(
                f"{named[key]}: {ifname} will have {after[side]} {side} queue(s) once its "
                f"channels are changed: {key.name} will not exist"
            )
    return errors


def _queues_after(
    access: HostAccess, ifname: str, wanted: Mapping[Key, str], device_keys: list[Key]
) -> dict[str, int] | None:
    """How many rx and tx queues `ifname` will have once the channel counts in `wanted` are
    written: rx + combined channels (tx + combined), which is how drivers size their queues
    (veth: rx and tx; NICs: combined). A side whose queues do not add up so now (a driver
    with traffic classes, say) is left out: no guess is better than a wrong one."""
    keys = [Key.field(ifname, "channels", f) for f in CHANNEL_FIELDS]
    now = access.read_many(keys)
    old: dict[str, int] = {}
    for key in keys:
        value = now[key]
        if not isinstance(value, str) or not (value.isascii() and value.isdigit()):
            return None
        old[key.name] = int(value)
    new = dict(old)
    for key in keys:
        text = wanted.get(key, "").strip()
        if text.isascii() and text.isdigit():  # anything else fails its own validation
            new[key.name] = int(text)
    queues: dict[str, set[str]] = {"rx": set(), "tx": set()}
    for key in device_keys:
        if key.kind in QUEUE_KINDS:
            queues[key.name.partition("-")[0]].add(key.name)
    return {
        side: new[side] + new["combined"]
        for side in ("rx", "tx")
        if len(queues[side]) == old[side] + old["combined"]
    }


__all__ = [
    "ALL_QUEUES",
    "Profile",
    "ProfileError",
    "Request",
    "load",
    "parse_show_json",
    "parse_toml",
    "resolve",
]
