"""Sysctls: one /proc/sys file each, checked against the catalog's entry."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.host.sysctl import read_sysctl, sysctl_path
from tuitune.core.session import kernel_said
from tuitune.core.session import validate as v
from tuitune.core.session.kernel_said import ALLOWED_CC, CONGESTION, value_refused
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused, refusal
from tuitune.core.session.kinds.edit import EditContext, EditSpec
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    ShowPart,
    ShowSource,
    array,
    obj,
    once,
    state_or,
    what,
)
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, check_name, is_text, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.host.root import HostRoot
    from tuitune.core.session.kinds.port import KernelPort


# Sysctls the kernel rounds up to a power of two (net/core/sysctl_net_core.c,
# rps_sock_flow_sysctl: roundup_pow_of_two), with their largest value.
POWER_OF_TWO: dict[str, int] = {"net.core.rps_sock_flow_entries": 1 << 29}


class Sysctl(Family):
    value_form: Form = "text"  # the kernel judges it
    of_interface = False
    rows: tuple[str, ...] = ("sysctl",)
    carriers: tuple[str, ...] = ("sysctl",)

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        host = ctx.host
        e = catalog.entry(rest)
        value = next((v.value for v in host.sysctls if v.key == rest), None) if host else None
        if not e.writable:
            return f"{rest} cannot be written"
        if not isinstance(value, str):
            return f"{rest}: {value.reason if isinstance(value, Unavailable) else 'not read'}"
        hint = {
            "int": "an integer",
            "bool": "0 or 1",
            "int_triple": f"three integers: {' '.join(e.parts)}",
            "choice": "one of the values the kernel lists",
            "string": "a value",
        }.get(e.kind, "a value")
        if e.minimum is not None or e.maximum is not None:
            hint += f", {e.minimum if e.minimum is not None else ''}..{e.maximum or ''}"
        if e.unit:
            hint += f" ({e.unit})"
        if e.choices_key and host is not None:
            choices = next((v.value for v in host.sysctls if v.key == e.choices_key), None)
            if isinstance(choices, str):
                hint = f"one of: {choices}"
        toggle = ("0" if value.strip() == "1" else "1") if e.kind == "bool" else None
        return EditSpec(Key.sysctl(rest), value, hint, toggle)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        raw = read_sysctl(acc.root, key.name)
        if isinstance(raw, Unavailable):
            return raw
        try:
            entry = catalog.entry(key.name)
        except KeyError:
            return {key: raw}
        return {key: v.canonical_sysctl(entry, raw)}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        try:
            entry = catalog.entry(key.name)
        except KeyError as exc:
            raise v.InvalidValue(key, str(exc.args[0])) from None
        if not entry.writable or entry.kind == "trigger" or not entry.readable:
            why = "a write-only trigger" if entry.kind == "trigger" else "read-only"
            raise WriteRefused(
                key, Unavailable("unsupported", f"{key.label}: {why}; tuitune does not change it")
            )
        acc.current(key)
        choices = accepted_choices(acc.root, entry)
        refused = _refused_here(acc.root, entry, text, choices)
        if refused:
            raise v.InvalidValue(key, refused)
        value = v.parse_sysctl(key, entry, text, choices)
        if key.name in POWER_OF_TWO:  # else the value read back would not be the one written
            return v.parse_power_of_two(key, value, POWER_OF_TWO[key.name])
        return value

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        try:
            acc.writer(acc.root.proc_path(sysctl_path(key.name)), value)
        except OSError as exc:
            if key.name == CONGESTION and exc.errno == errno.EPERM:
                raise WriteRefused(key, _congestion_refused(acc, key, value)) from exc
            raise
        return ()

    def label(self, key: Key) -> str:
        return key.name

    def scope(self, key: Key) -> catalog.Scope:
        try:
            return catalog.entry(key.name).scope
        except KeyError:
            return "host"  # unknown keys: assume the wider blast radius

    def host_wide(self, key: Key) -> str | None:
        # A key the catalog does not know is never written (validation refuses it).
        try:
            wide = catalog.entry(key.name).scope == "host"
        except KeyError:
            return None
        return (
            f"{key.name} is one value for the whole host, not one per namespace: changing it "
            "changes every namespace"
            if wide
            else None
        )

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name, key.queue)

    def canonical(self, key: Key, text: str) -> str:
        try:
            entry = catalog.entry(key.name)
            return catalog.format_value(entry, catalog.parse_value(entry, text))
        except (KeyError, ValueError):
            return text

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """`sysctls`: each catalog key the host read, with its catalog scope and summary."""
        if src.host is None:
            return {}
        sysctls = []
        for sv in src.host.sysctls:
            entry, gone = catalog.entry(sv.key), isinstance(sv.value, Unavailable)
            sysctls.append(
                {
                    "key": sv.key,
                    "value": None if gone else sv.value,
                    "unavailable": state_or(sv.value) if gone else None,
                    "note": sv.note,
                    "scope": entry.scope,
                    "summary": entry.summary,
                }
            )
        return {("sysctls",): sysctls}

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """`sysctls`: each catalog key's value; each entry's `unavailable`, `note`, `scope`
        and `summary` report. Into a namespace, the host-wide ones are left out (show lists
        them; a namespace cannot set them)."""
        out: list[Request] = []
        seen: set[str] = set()
        for i, raw in enumerate(array(doc.doc.get("sysctls", []), "sysctls")):
            where = f"sysctls[{i}]"
            s = obj(raw, where, _SHOW_FIELDS, ("key", "value"))
            key = check_name("sysctl", s["key"], f"{where}.key")
            if key not in _CATALOG_KEYS:
                raise ProfileError(f"{where}.key: {shown(key)} is not in this tuitune's catalog")
            once(seen, key, f"{where}.key")
            value = s["value"]
            if value is None:
                continue  # unavailable on that host
            if not isinstance(value, str) or not is_text(value):
                raise ProfileError(f"{where}.value: {what(value)} is not a sysctl's text")
            e = catalog.entry(key)
            if not e.writable or not e.readable or e.kind == "trigger":
                continue
            if doc.netns is not None and e.scope == "host":
                continue
            out.append(Request("sysctl", key, value, f"sysctls {key}"))
        return out


_CATALOG_KEYS = frozenset(catalog.keys())
_SHOW_FIELDS = frozenset({"key", "value", "unavailable", "note", "scope", "summary"})


def _congestion_refused(acc: KernelPort, key: Key, value: str) -> Unavailable:
    """EPERM on tcp_congestion_control: the namespace's allowed list, named."""
    if not kernel_said.privileged():
        return refusal(key, OSError(errno.EPERM, "not permitted"), value)
    allowed = read_sysctl(acc.root, ALLOWED_CC)
    listed = allowed if isinstance(allowed, str) else None
    return Unavailable("error", value_refused(key, errno.EPERM, value, listed))


def accepted_choices(root: HostRoot, entry: catalog.SysctlEntry) -> tuple[str, ...] | None:
    """The names the kernel accepts for a choice sysctl where `root` is, in its order; None
    when the list cannot be read. tcp_congestion_control takes any loaded algorithm on the
    host, but inside another namespace only those in tcp_allowed_congestion_control: the
    kernel refuses the rest with EPERM even to root (tcp_set_default_congestion_control,
    net/ipv4/tcp_cong.c)."""
    if not entry.choices_key:
        return None
    listed = read_sysctl(root, entry.choices_key)
    if not isinstance(listed, str):
        return None
    options = catalog.split_choices(listed)
    if entry.key == CONGESTION and root.netns is not None:
        allowed = read_sysctl(root, ALLOWED_CC)
        if isinstance(allowed, str):
            permitted = set(allowed.split())
            options = tuple(o for o in options if o in permitted)
    return options


def _refused_here(
    root: HostRoot, entry: catalog.SysctlEntry, text: str, choices: tuple[str, ...] | None
) -> str:
    """Why a loaded algorithm is refused in this namespace, or "" (the catalog's own parser
    words every other refusal)."""
    name = text.strip()
    if entry.key != CONGESTION or root.netns is None or choices is None or name in choices:
        return ""
    listed = read_sysctl(root, entry.choices_key or "")
    if not isinstance(listed, str) or name not in listed.split():
        return ""
    return (
        f"{entry.name}: {name!r} is loaded but namespace {root.netns} accepts only "
        f"tcp_allowed_congestion_control ({', '.join(choices) or 'none'})"
    )
