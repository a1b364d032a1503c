"""The far end of a link from a `tuitune show --json` file made on the other host, for
`tuitune export IFACE --ansible --peer-json FILE`: its changes and its export context.

Which settings the far end's role carries: the ones this end's export names (the journal
says which settings the user tuned for this link), each with the far end's own value as the
file shows it. Not the file's every setting: a snapshot holds hundreds of defaults (each
feature, each sysctl), and pinning them all in files would freeze the far host's kernel
defaults, not carry a tuning. IRQ queue names are the driver's own and differ between two
NIC models, so when this end pins IRQs the far role pins every IRQ the file lists for its
NIC, by its own queue names, to the CPUs the file shows. A setting the file does not show
(a feature fixed on that NIC, a queue it lacks) is named in one line and left out.

The file is hostile input (another user may have written it, or swapped it): it is read
only if it is a regular file (a symbolic link is refused, not followed) of at most
MAX_BYTES, as strict JSON (no duplicate keys, no NaN) of schema `tuitune.report.show` and the
version this tuitune writes, checked field by field (`showdoc.parse_show_json`). Its host
facts are checked here (hostname, netns, CPUs, MAC, driver, bus position), and every value
again by the generators' safe.* checks before a file is written. Any problem is one line
(PeerFileError) and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from tuitune.core.docfile import DocumentError, read_document
from tuitune.core.docfile import shown as shown_path
from tuitune.core.export.context import ExportContext
from tuitune.core.export.device import DeviceMatch, MatchKind
from tuitune.core.export.model import Change
from tuitune.core.session.kinds import safe
from tuitune.core.session.profile_model import ProfileError, Request, one_line, shown, strict_json
from tuitune.core.session.settings import ETHTOOL_GROUPS, QUEUE_KINDS, Key
from tuitune.core.session.showdoc import parse_show_json

MAX_BYTES = 4 * 1024 * 1024  # a show document of a 1152-CPU host is ~1 MB
MAX_CPUS = 8192
# A name for the inventory: a DNS name or an address; no space, quote, '#', ':' or '/'.
HOST = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,252}")
_PCI = re.compile(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]")


class PeerFileError(ValueError):
    """The far end's file cannot be used; one line naming the file and why."""


@dataclass(frozen=True, slots=True)
class FarEnd:
    """The far end as the file shows it: its changes (the far end's values of the settings
    this end exports), the context to export them in, and one line per setting left out."""

    changes: tuple[Change, ...]
    ctx: ExportContext
    missing: tuple[str, ...]


def host_name(text: object, what: str = "--peer-host") -> str:
    """A host name for the inventory; UnsafeValue (one line) otherwise."""
    if not isinstance(text, str) or not HOST.fullmatch(text):
        raise safe.UnsafeValue(
            f"{what}: {shown(text)} is not a host name (letters, digits, '_', '.' and '-')"
        )
    return text


def load(path: Path) -> dict[str, Any]:
    """The file as a checked show document (PeerFileError otherwise)."""
    name = shown_path(path)
    try:
        text = read_document(path, limit=MAX_BYTES, follow_links=False)
    except DocumentError as exc:
        raise PeerFileError(f"--peer-json: {exc}") from None
    try:
        doc = strict_json(text)
    except RecursionError:
        raise PeerFileError(f"--peer-json {name}: not valid JSON: nested too deeply") from None
    except ValueError as exc:
        raise PeerFileError(one_line(f"--peer-json {name}: not valid JSON: {exc}")) from None
    if not isinstance(doc, dict):
        raise PeerFileError(f"--peer-json {name}: not a `tuitune show --json` document")
    return doc


def far_end(
    path: Path,
    near: Sequence[Change],
    near_ctx: ExportContext,
    match_kind: MatchKind,
    host: str | None = None,
) -> FarEnd:
    """The far end from the file at `path`. `near`: this end's changes (which settings to
    carry); `near_ctx`: this end's context, whose tools (ethtool, tuitune, systemd version,
    .link policy) the far host is taken to share; `host`: --peer-host, else the file's own."""
    doc = load(path)
    name = shown_path(path)
    try:
        profile = parse_show_json(doc)
        facts = _facts(doc, host)
    except (ProfileError, safe.UnsafeValue) as exc:
        raise PeerFileError(one_line(f"--peer-json {name}: {exc}")) from None
    if profile.ifname is None:
        raise PeerFileError(
            f"--peer-json {name}: the file shows no interface; make it with "
            "`tuitune show --json IFACE` on the far host"
        )
    ifname = profile.ifname
    try:
        match = _match(doc["interface"], ifname, match_kind)
    except safe.UnsafeValue as exc:
        raise PeerFileError(one_line(f"--peer-json {name}: {exc}")) from None
    values: dict[tuple[str, str], Request] = {(r.kind, r.name): r for r in profile.requests}
    changes, missing = _carried(near, values, ifname, doc["interface"])
    device = {_far_key(r, ifname): r.text for r in profile.requests if r.kind != "irq_affinity"}
    ctx = replace(
        near_ctx,
        ifname=ifname,
        match=match,
        netns=facts["netns"],
        host=facts["host"],
        etc=Path("/etc"),  # the far host's own, whatever --root this end was read from
        ncpus=facts["ncpus"],
        network_manager=False,  # not in the file: --format link,nm asks for them
        networkd=False,
        irqbalance=None,
        irqbalance_config=None,
        device={k: v for k, v in device.items() if k is not None},
        mem_total=None,
        page_size=4096,
        processes={},
    )
    return FarEnd(tuple(changes), ctx, tuple(missing))


def _facts(doc: Mapping[str, Any], host: str | None) -> dict[str, Any]:
    """The host object's facts the export uses, each checked."""
    h = doc.get("host")
    if not isinstance(h, dict):
        raise ProfileError("host: expected an object")
    hostname = h.get("hostname")
    chosen = host if host is not None else host_name(hostname, "host.hostname")
    netns = h.get("netns")
    if netns is not None:
        safe.netns(netns)
    cpus = h.get("cpus")
    ncpus = 1
    if isinstance(cpus, list) and cpus:
        numbers = [c.get("cpu") if isinstance(c, dict) else None for c in cpus]
        if not all(type(n) is int and 0 <= n < MAX_CPUS for n in numbers):
            raise ProfileError(f"host.cpus: each CPU's number from 0 to {MAX_CPUS - 1}")
        ncpus = max(n for n in numbers if isinstance(n, int)) + 1
    return {"host": chosen, "netns": netns, "ncpus": ncpus}


def _match(iface: Mapping[str, Any], ifname: str, kind: MatchKind) -> DeviceMatch:
    """The far NIC's match of the kind this end uses, from what the file shows."""
    if kind == "name":
        return DeviceMatch("name", safe.ifname(ifname))
    if kind == "mac":
        link = iface["link"]
        perm = link.get("perm_address")
        if link.get("addr_assign_type") != 0 or not isinstance(perm, str) or not perm.strip("0:"):
            raise safe.UnsafeValue(f"{ifname} has no permanent MAC in the file")
        return DeviceMatch("mac", safe.mac(perm))
    if kind == "driver":
        drv = iface.get("driver")
        got = drv.get("driver") if isinstance(drv, dict) else None
        if not isinstance(got, str):
            raise safe.UnsafeValue(f"the file names no driver for {ifname}")
        return DeviceMatch("driver", safe.driver(got))
    placement = iface.get("placement")
    bus = placement.get("bus") if isinstance(placement, dict) else None
    if not isinstance(bus, str) or not _PCI.fullmatch(bus):
        raise safe.UnsafeValue(
            f"the file shows no PCI position for {ifname} (its ID_PATH): "
            "use --match mac, name or driver"
        )
    # udev's path_id names a PCI function (and a virtio device on one) by its own address.
    return DeviceMatch("path", safe.id_path(f"pci-{bus}"))


def _far_key(r: Request, ifname: str) -> Key | None:
    if r.kind == "sysctl":
        return Key.sysctl(r.name)
    if r.kind in ("mtu", "txqueuelen"):
        return Key(r.kind, ifname)
    if r.kind == "feature" or r.kind in ETHTOOL_GROUPS or r.kind in QUEUE_KINDS:
        return Key(r.kind, ifname, r.name)
    return None


def _near_name(key: Key) -> tuple[str, str] | None:
    """The (kind, name) a show document's request has for this end's key."""
    if key.kind == "sysctl":
        return ("sysctl", key.name)
    if key.kind in ("mtu", "txqueuelen"):
        return (key.kind, "")
    if key.kind == "feature" or key.kind in ETHTOOL_GROUPS or key.kind in QUEUE_KINDS:
        return (key.kind, key.name)
    return None


def _carried(
    near: Sequence[Change],
    values: Mapping[tuple[str, str], Request],
    ifname: str,
    iface: Mapping[str, Any],
) -> tuple[list[Change], list[str]]:
    changes: list[Change] = []
    missing: list[str] = []
    irqs = False
    for c in near:
        if c.key.kind == "irq_affinity":
            irqs = True
            continue
        wanted = _near_name(c.key)
        r = values.get(wanted) if wanted is not None else None
        if r is None:
            missing.append(f"{c.key.label}: not in the far end's file, left out there")
            continue
        far = _far_key(r, ifname)
        if far is not None:
            changes.append(Change(far, None, r.text, known=False))
    if irqs:
        by_queue = {str(q.get("name")): str(q.get("irq")) for q in iface.get("irqs", [])}
        pinned = [r for r in values.values() if r.kind == "irq_affinity"]
        for r in pinned:
            key = Key("irq_affinity", ifname, by_queue.get(r.name, ""), r.name)
            changes.append(Change(key, None, r.text, known=False))
        if not pinned:
            missing.append("IRQ affinity: the far end's file shows none, left out there")
    return changes, missing
