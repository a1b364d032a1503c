"""Saved states for `tuitune apply`: a `tuitune show --json` document or a TOML profile
(docs/profile.md). Loading only reads the file; `resolve` turns its requests into setting keys
of one host (feature short names into their members, IRQ queue names into today's IRQ numbers).
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuitune.core import catalog
from tuitune.core.cpulist import format_cpulist
from tuitune.core.session.access import HostAccess
from tuitune.core.session.settings import (
    CHANNEL_FIELDS,
    ETHTOOL_GROUPS,
    NO_CPUS,
    PAUSE_FIELDS,
    QUEUE_KINDS,
    RING_FIELDS,
    Key,
    Kind,
)

ALL_QUEUES = "*"
# Profile tables under [interface] -> the kind of setting they hold.
_TABLES: dict[str, Kind] = {
    "features": "feature",
    "rings": "ring",
    "coalesce": "coalesce",
    "channels": "channels",
    "pause": "pause",
    "rps_cpus": "rps_cpus",
    "xps_cpus": "xps_cpus",
    "rps_flow_cnt": "rps_flow_cnt",
    "irq_affinity": "irq_affinity",
}
# The order writes happen in: the device's shape (channels) before its queues, IRQs last.
# No "service": stopping irqbalance is a decision for one session (the TUI asks before the
# first IRQ move), not part of a saved state; no table or show field produces one.
_ORDER: tuple[Kind, ...] = (
    "sysctl",
    "feature",
    "ring",
    "channels",
    "coalesce",
    "pause",
    "mtu",
    "txqueuelen",
    "rps_cpus",
    "rps_flow_cnt",
    "xps_cpus",
    "irq_affinity",
)


class ProfileError(ValueError):
    """The file is not a profile or a show document, or holds something unreadable."""


@dataclass(frozen=True, slots=True)
class Request:
    kind: Kind
    name: str  # sysctl key, feature (or ethtool -K short name), field, queue, IRQ queue name
    text: str  # the value as text, checked later by the setting's own validation
    origin: str  # where it came from, for messages: "[interface.rings] rx"


@dataclass(frozen=True, slots=True)
class Profile:
    ifname: str | None  # the interface the file names, if any
    requests: tuple[Request, ...]
    source: str  # "profile" or "show --json"

    @property
    def needs_interface(self) -> bool:
        return any(r.kind != "sysctl" for r in self.requests)


def load(path: Path, *, netns: str | None = None) -> Profile:
    """Read a TOML profile or a `show --json` document (decided by the content, not the name).
    `netns`: the target is a network namespace, so a show document's host-wide sysctls (which
    `show` lists but a namespace cannot set) are left out."""
    try:
        text = path.read_text()
    except OSError as exc:
        raise ProfileError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if text.lstrip().startswith("{"):
        try:
            doc = json.loads(text)
        except ValueError as exc:
            raise ProfileError(f"{path}: not valid JSON: {exc}") from exc
        return parse_show_json(doc, netns=netns)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ProfileError(f"{path}: not a TOML profile: {exc}") from exc
    return parse_toml(data)


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
        return value
    if isinstance(value, list) and all(
        isinstance(x, int) and not isinstance(x, bool) for x in value
    ):
        sep = " " if kind == "sysctl" else ","
        return sep.join(str(x) for x in value) if value else NO_CPUS
    raise ProfileError(
        f"{origin}: {value!r} is not a number, a switch, a name or a list of numbers"
    )


def _table(data: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any]:
    t = data.get(name, {})
    if not isinstance(t, Mapping):
        raise ProfileError(f"{where}{name} must be a table ([{where}{name}])")
    return t


def parse_toml(data: Mapping[str, Any]) -> Profile:
    unknown = set(data) - {"tuitune", "sysctl", "interface"}
    if unknown:
        raise ProfileError(
            f"unknown table(s) {', '.join(sorted(unknown))}: expected sysctl, interface"
        )
    meta = _table(data, "tuitune", "")
    if meta.get("profile", 1) != 1:
        raise ProfileError(f"profile version {meta.get('profile')!r}: this tuitune reads version 1")
    requests = [
        Request("sysctl", key, _text("sysctl", value, f"[sysctl] {key}"), f"[sysctl] {key}")
        for key, value in _table(data, "sysctl", "").items()
    ]
    iface = _table(data, "interface", "")
    ifname = iface.get("name")
    if ifname is not None and not isinstance(ifname, str):
        raise ProfileError("[interface] name must be a string")
    for field, value in iface.items():
        if field == "name":
            continue
        if field in ("mtu", "txqueuelen"):
            link_kind: Kind = "mtu" if field == "mtu" else "txqueuelen"
            origin = f"[interface] {field}"
            requests.append(Request(link_kind, "", _text(link_kind, value, origin), origin))
            continue
        if field not in _TABLES:
            known = ", ".join(["name", "mtu", "txqueuelen", *_TABLES])
            raise ProfileError(f"[interface] {field}: unknown (known: {known})")
        kind = _TABLES[field]
        for name, v in _table(iface, field, "interface.").items():
            origin = f"[interface.{field}] {name}"
            requests.append(Request(kind, name, _text(kind, v, origin), origin))
    return Profile(ifname, tuple(requests), "profile")


# ---- show --json documents -------------------------------------------------------------------


def _group(iface: Mapping[str, Any], section: str) -> Mapping[str, Any] | None:
    """A group of a show document, or None when it was unavailable on that host."""
    value = iface.get(section)
    if isinstance(value, Mapping) and "unavailable" not in value:
        return value
    return None


def parse_show_json(doc: object, *, netns: str | None = None) -> Profile:
    if not isinstance(doc, Mapping) or doc.get("schema") != "tuitune.show":
        raise ProfileError("not a `tuitune show --json` document (no schema tuitune.show)")
    if doc.get("version") != 1:
        raise ProfileError(f"show document version {doc.get('version')!r}: this tuitune reads 1")
    requests: list[Request] = []
    try:
        for s in doc.get("sysctls") or ():
            key, value = s["key"], s["value"]
            try:
                e = catalog.entry(key)
            except KeyError:
                continue
            if value is None or not e.writable or not e.readable or e.kind == "trigger":
                continue
            if netns is not None and e.scope == "host":
                continue  # show lists them; a namespace cannot set them
            requests.append(Request("sysctl", key, str(value), f"sysctls {key}"))
        iface = doc.get("interface")
        ifname = None
        if isinstance(iface, Mapping):
            ifname = iface["link"]["ifname"]
            requests += _interface_requests(iface)
    except (KeyError, TypeError) as exc:
        raise ProfileError(
            f"malformed show document: {exc!r} missing or of the wrong type"
        ) from exc
    return Profile(ifname, tuple(requests), "show --json")


def _interface_requests(iface: Mapping[str, Any]) -> list[Request]:
    out: list[Request] = []
    link = iface["link"]
    link_fields: tuple[tuple[Kind, str], ...] = (("mtu", "mtu"), ("txqueuelen", "txqlen"))
    for kind_, name in link_fields:
        if isinstance(link.get(name), int):
            out.append(Request(kind_, "", str(link[name]), f"interface.link.{name}"))
    feats = iface.get("features")
    if isinstance(feats, list):
        for f in feats:
            if f["available"] and not f["never_changed"]:  # ethtool's [fixed] otherwise
                state = "on" if f["requested"] else "off"
                out.append(Request("feature", f["name"], state, f"interface.features {f['name']}"))
    groups: tuple[tuple[Kind, str, tuple[str, ...]], ...] = (
        ("ring", "rings", RING_FIELDS),
        ("channels", "channels", CHANNEL_FIELDS),
    )
    for kind, section, fields in groups:
        g = _group(iface, section)
        if g is not None:
            for fname in fields:
                attr = fname.replace("-", "_")
                if g.get(f"{attr}_max"):  # a device without that ring/channel kind: max 0
                    out.append(Request(kind, fname, str(g[attr]), f"interface.{section}.{attr}"))
    pause = _group(iface, "pause")
    if pause is not None:
        for fname in PAUSE_FIELDS:
            state = "on" if pause[fname] else "off"
            out.append(Request("pause", fname, state, f"interface.pause.{fname}"))
    coalesce = _group(iface, "coalesce")
    if coalesce is not None:
        for pname, value in coalesce["params"].items():
            out.append(Request("coalesce", pname, str(value), f"interface.coalesce {pname}"))
    for q in iface.get("queues") or ():
        cpus = q["cpus"]
        if isinstance(cpus, list):
            qkind: Kind = "rps_cpus" if q["name"].startswith("rx-") else "xps_cpus"
            text = format_cpulist(cpus) if cpus else NO_CPUS
            out.append(Request(qkind, q["name"], text, f"interface.queues {q['name']}"))
        if isinstance(q.get("rps_flow_cnt"), int):
            out.append(
                Request("rps_flow_cnt", q["name"], str(q["rps_flow_cnt"]), f"queues {q['name']}")
            )
    affinity = iface.get("irq_affinity") or {}
    for irq in iface.get("irqs") or ():
        aff = affinity.get(irq["irq"])
        if aff is not None and isinstance(aff.get("smp_affinity"), list) and aff["smp_affinity"]:
            text = format_cpulist(aff["smp_affinity"])
            out.append(
                Request("irq_affinity", irq["name"], text, f"IRQ {irq['irq']} {irq['name']}")
            )
    return out


# ---- resolution on a host --------------------------------------------------------------------


def resolve(
    access: HostAccess, profile: Profile, ifname: str | None
) -> tuple[list[tuple[Key, str]], list[str]]:
    """The (key, text) pairs the profile asks for on this host, in write order, and the
    problems found (each a line for the user). Nothing is read beyond what naming needs."""
    errors: list[str] = []
    wanted: dict[Key, str] = {}
    explicit_features: dict[Key, str] = {}
    device_keys: list[Key] | None = None
    for r in profile.requests:
        if r.kind == "sysctl":
            wanted[Key.sysctl(r.name)] = r.text
            continue
        if ifname is None:
            errors.append(f"{r.origin}: no interface: name one (tuitune apply FILE IFACE)")
            continue
        if r.kind == "feature":
            keys = access.feature_keys(ifname, r.name)
            exact = len(keys) == 1 and keys[0].name == r.name
            for key in keys:
                (explicit_features if exact else wanted)[key] = r.text
        elif r.kind in ETHTOOL_GROUPS:
            wanted[Key.field(ifname, r.kind, r.name)] = r.text
        elif r.kind in ("mtu", "txqueuelen"):
            wanted[Key(r.kind, ifname)] = r.text
        elif r.kind in QUEUE_KINDS:
            if r.name == ALL_QUEUES:
                if device_keys is None:
                    device_keys = access.device_keys(ifname)
                for key in device_keys:
                    if key.kind == r.kind:
                        wanted[key] = r.text
            else:
                wanted[Key(r.kind, ifname, r.name)] = r.text
        elif r.kind == "irq_affinity":
            irq_key = access.irq_key(ifname, r.name)
            if irq_key is None:
                errors.append(f"{r.origin}: no IRQ named {r.name!r} serves {ifname} on this host")
            else:
                wanted[irq_key] = r.text
        else:  # "service" (see _ORDER)
            errors.append(f"{r.origin}: a {r.kind} is not set from a profile")
    wanted.update(explicit_features)  # a full feature name wins over a short name covering it
    ordered = sorted(wanted.items(), key=lambda kv: _ORDER.index(kv[0].kind))
    return ordered, errors
