"""The ethtool families' parts of a `tuitune show --json` document (`interface.features`,
`.rings`, `.channels`, `.pause`, `.coalesce`), read back by their handlers' `show_requests`
(kinds/ethtool.py) for `tuitune apply`. A group the host did not report holds a refusal and
asks for nothing."""

from __future__ import annotations

from typing import Any

from tuitune.core.host.ethtool import Feature, Pause
from tuitune.core.session.kinds.showform import (
    UNREPORTED,
    ShowDoc,
    array,
    boolean,
    fields,
    group,
    is_refusal,
    obj,
    once,
    what,
    whole,
)
from tuitune.core.session.profile_model import (
    COALESCE_NAMES,
    ProfileError,
    Request,
    check_name,
    shown,
)
from tuitune.core.session.settings import PAUSE_FIELDS, Kind

_COALESCE = frozenset({"params", "source"})
_FEATURE_FLAGS = ("available", "requested", "never_changed")


def features(doc: ShowDoc) -> list[Request]:
    """Each feature's requested bit (not the active one) where the device lets it change."""
    where = "interface.features"
    if doc.iface is None:
        return []
    v = doc.iface.get("features", [])
    if is_refusal(v, where):
        return []
    out: list[Request] = []
    seen: set[str] = set()
    for i, raw in enumerate(array(v, where)):
        at = f"{where}[{i}]"
        f = obj(raw, at, fields(Feature), ("name", *_FEATURE_FLAGS))
        name = check_name("feature", f["name"], f"{at}.name")
        once(seen, name, f"{at}.name")
        flags = {k: boolean(f[k], f"{at}.{k}") for k in _FEATURE_FLAGS}
        if "active" in f:
            boolean(f["active"], f"{at}.active")
        if "index" in f:
            whole(f["index"], f"{at}.index")
        if flags["available"] and not flags["never_changed"]:  # ethtool's [fixed] otherwise
            state = "on" if flags["requested"] else "off"
            out.append(Request("feature", name, state, f"interface.features {name}"))
    return out


def sizes(
    doc: ShowDoc, kind: Kind, section: str, cls: type, names: tuple[str, ...]
) -> list[Request]:
    """A struct of counts with their maxima (rings, channels): each field the device has."""
    if doc.iface is None:
        return []
    attrs = [n.replace("-", "_") for n in names]
    need = [*attrs, *(f"{a}_max" for a in attrs)]
    where = f"interface.{section}"
    g = group(doc.iface.get(section, UNREPORTED), where, fields(cls), need)
    if g is None:
        return []
    out: list[Request] = []
    for fname, attr in zip(names, attrs, strict=True):
        value = whole(g[attr], f"{where}.{attr}")
        if whole(g[f"{attr}_max"], f"{where}.{attr}_max"):
            # a device without that ring/channel kind has max 0
            out.append(Request(kind, fname, str(value), f"{where}.{attr}"))
    return out


def pause(doc: ShowDoc) -> list[Request]:
    if doc.iface is None:
        return []
    where = "interface.pause"
    got = group(doc.iface.get("pause", UNREPORTED), where, fields(Pause), PAUSE_FIELDS)
    if got is None:
        return []
    out = []
    for fname in PAUSE_FIELDS:
        state = "on" if boolean(got[fname], f"{where}.{fname}") else "off"
        out.append(Request("pause", fname, state, f"{where}.{fname}"))
    return out


def coalesce(doc: ShowDoc) -> list[Request]:
    if doc.iface is None:
        return []
    where = "interface.coalesce"
    got: dict[str, Any] | None = group(
        doc.iface.get("coalesce", UNREPORTED), where, _COALESCE, ("params",)
    )
    if got is None:
        return []
    if got.get("source", "netlink") not in ("netlink", "ioctl"):
        raise ProfileError(f"{where}.source: {what(got['source'])}: netlink or ioctl")
    params = got["params"]
    if not isinstance(params, dict):
        raise ProfileError(f"{where}.params: expected an object, found {what(params)}")
    out = []
    for pname, value in params.items():
        if pname not in COALESCE_NAMES:
            raise ProfileError(f"{where}.params: {shown(pname)} is not a coalescing parameter")
        n = whole(value, f"{where}.params.{pname}")
        out.append(Request("coalesce", pname, str(n), f"interface.coalesce {pname}"))
    return out
