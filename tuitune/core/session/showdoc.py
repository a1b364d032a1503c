"""A `tuitune show --json` document read back by `tuitune apply`: strictly (docs/profile.md).

Every field `apply` takes a value from must have its type and range (whole numbers, not 1.5,
true or NaN; finite; CPU numbers; names of the shape their kind has), or the whole document is
refused with one line naming the field. Keys are checked against the snapshot dataclasses the
document is generated from (jsondoc.py), so a field `show` writes is never unknown here and a
field it does not write (a typo, a newer tuitune's setting) is refused rather than skipped.
The parts `apply` does not set are ignored whatever they hold: `tuitune`, `host`, `rates`,
`queue_rates`, `rss` but for `setting`, `flow_hash` and `ntuple`, `qdiscs` (`interface.qdisc`
is applied), `connections`, `platform` but for the driver's private flags, configured FEC
modes and writable module parameters and the CPU power (governor, EPP, boost, C-states
disabled: profile_platform.py), `interface.placement`, `.driver`, `.driver_stats`, the link's
fields other than ifname, mtu and txqlen, and each sysctl's `unavailable`, `note`, `scope` and
`summary`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable
from itertools import pairwise
from typing import Any

from tuitune.core import catalog
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.ethtool import Channels, Feature, Pause, Rings
from tuitune.core.host.ethtool_driver import fec_mask, fec_names
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.netdev import Link, QueueMasks
from tuitune.core.host.rss import FLOW_TYPES as RSS_FLOW_TYPES
from tuitune.core.jsondoc import SCHEMA, SCHEMA_VERSION
from tuitune.core.names import netns_problem
from tuitune.core.session.profile_model import (
    COALESCE_NAMES,
    Profile,
    ProfileError,
    Request,
    check_ifname,
    check_name,
    is_text,
    shown,
)
from tuitune.core.session.profile_platform import show_requests
from tuitune.core.session.settings import CHANNEL_FIELDS, NO_CPUS, PAUSE_FIELDS, RING_FIELDS, Kind
from tuitune.core.watch.snapshot import NicState

U32_MAX = 0xFFFFFFFF
MAX_CPU = 65535  # a sanity bound only; the host's own CPUs are checked when the value is
_REFUSAL_KINDS = ("unsupported", "permission", "missing", "error")  # values.Unavailable kinds


def _fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


_CATALOG_KEYS = frozenset(catalog.keys())
# "processes" is read and not applied: a PID means nothing once its process is gone (a
# profile's [processes] section names them by command instead). "platform" (CPU power, PCIe,
# driver) is a report of the host: only the driver's private flags and configured FEC modes
# are applied from it (settings of the interface); so are "queue_rates" (per-queue
# counters), "qdiscs" and "connections": read, nothing to set ("interface.qdisc",
# "rss.setting", "rss.flow_hash" and "rss.ntuple" are the journal's values, applied).
_TOP = frozenset(
    {"schema", "version", "tuitune", "host", "sysctls", "interface", "rates", "processes"}
    | {"platform", "queue_rates", "rss", "qdiscs", "connections"}
)
_SYSCTL = frozenset({"key", "value", "unavailable", "note", "scope", "summary"})
_COALESCE = frozenset({"params", "source"})
_IRQ_NUMBER = re.compile(r"(0|[1-9][0-9]{0,9})")


def _what(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"the text {shown(v)}"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return shown(v)  # numbers: 1.5, 1e+300


def _obj(v: object, where: str, known: frozenset[str], need: Iterable[str] = ()) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ProfileError(f"{where}: expected an object, found {_what(v)}")
    unknown = sorted(set(v) - known)
    if unknown:
        raise ProfileError(
            f"{where}: unknown field {shown(unknown[0])} (not one `tuitune show` writes)"
        )
    missing = [k for k in need if k not in v]
    if missing:
        raise ProfileError(f"{where}: no {missing[0]!r} field")
    return v


def _group(
    v: object, where: str, known: frozenset[str], need: Iterable[str]
) -> dict[str, Any] | None:
    """An ethtool group, or None when it holds a refusal (the host did not report it)."""
    if isinstance(v, dict) and "unavailable" in v:
        _refusal(v, where)
        return None
    return _obj(v, where, known, need)


def _refusal(v: object, where: str) -> None:
    r = _obj(v, where, frozenset({"unavailable", "reason"}), ("unavailable", "reason"))
    if r["unavailable"] not in _REFUSAL_KINDS or not isinstance(r["reason"], str):
        raise ProfileError(f'{where}: not a refusal ({{"unavailable": KIND, "reason": TEXT}})')


def _is_refusal(v: object, where: str) -> bool:
    if isinstance(v, dict):
        _refusal(v, where)
        return True
    return False


def _int(v: object, where: str, high: int = U32_MAX) -> int:
    # bool is an int to Python, and a float may be 1.0, 1.5, NaN or 1e400: none is a count.
    if not isinstance(v, int) or isinstance(v, bool):
        raise ProfileError(f"{where}: {_what(v)} is not a whole number")
    if not 0 <= v <= high:
        raise ProfileError(f"{where}: {shown(v)} is out of range (0 to {high})")
    return v


def _opt_int(v: object, where: str, high: int = U32_MAX) -> int | None:
    return None if v is None else _int(v, where, high)


def _bool(v: object, where: str) -> bool:
    if not isinstance(v, bool):
        raise ProfileError(f"{where}: {_what(v)} is not true or false")
    return v


def _list(v: object, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise ProfileError(f"{where}: expected an array, found {_what(v)}")
    return v


def _cpus(v: object, where: str) -> list[int]:
    """A CPU set as show writes it: sorted, distinct CPU numbers."""
    cpus = [_int(c, f"{where}[{i}]", MAX_CPU) for i, c in enumerate(_list(v, where))]
    if any(a >= b for a, b in pairwise(cpus)):
        raise ProfileError(f"{where}: CPU numbers must be sorted and listed once")
    return cpus


def _once(seen: set[str], name: str, where: str) -> None:
    if name in seen:
        raise ProfileError(f"{where}: {shown(name)} is listed twice")
    seen.add(name)


# ---- the document ----------------------------------------------------------------------------


def parse_show_json(doc: object, *, netns: str | None = None) -> Profile:
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ProfileError("not a `tuitune show --json` document (no schema tuitune.report.show)")
    version = doc.get("version")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise ProfileError(f"show document version {_what(version)}: this tuitune reads 1")
    try:
        _obj(doc, "the document", _TOP)
        requests = _sysctls(doc.get("sysctls", []), netns)
        iface = doc.get("interface")
        ifname = None
        if iface is not None:
            where = "interface"
            iface = _obj(iface, where, _fields(NicState), ("link",))
            link = _obj(iface["link"], f"{where}.link", _fields(Link), ("ifname",))
            ifname = check_ifname(link["ifname"], f"{where}.link.ifname")
            requests += _interface_requests(iface, link)
            requests += _driver_requests(doc.get("platform"))
            qdisc = iface.get("qdisc")
            if isinstance(qdisc, dict):
                _refusal(qdisc, "interface.qdisc")  # not read on that host: nothing to set
                qdisc = None
            requests += _steering_requests(qdisc, doc.get("rss"))
        if netns is None:  # host-wide: a namespace cannot set them
            requests += show_requests(doc.get("platform"))
    except ProfileError as exc:
        raise ProfileError(f"malformed show document: {exc}") from None
    return Profile(ifname, tuple(requests), "show --json", _saved_netns(doc))


def _saved_netns(doc: dict[str, object]) -> str | None:
    """host.netns of the document when it is a name `ip netns` could hold, else None (the
    file is only a hint here: a bad value is left out, never quoted)."""
    host = doc.get("host")
    netns = host.get("netns") if isinstance(host, dict) else None
    return netns if isinstance(netns, str) and netns_problem(netns) is None else None


def _sysctls(entries: object, netns: str | None) -> list[Request]:
    out: list[Request] = []
    seen: set[str] = set()
    for i, raw in enumerate(_list(entries, "sysctls")):
        where = f"sysctls[{i}]"
        s = _obj(raw, where, _SYSCTL, ("key", "value"))
        key = check_name("sysctl", s["key"], f"{where}.key")
        if key not in _CATALOG_KEYS:
            raise ProfileError(f"{where}.key: {shown(key)} is not in this tuitune's catalog")
        _once(seen, key, f"{where}.key")
        value = s["value"]
        if value is None:
            continue  # unavailable on that host
        if not isinstance(value, str) or not is_text(value):
            raise ProfileError(f"{where}.value: {_what(value)} is not a sysctl's text")
        e = catalog.entry(key)
        if not e.writable or not e.readable or e.kind == "trigger":
            continue
        if netns is not None and e.scope == "host":
            continue  # show lists them; a namespace cannot set them
        out.append(Request("sysctl", key, value, f"sysctls {key}"))
    return out


def _interface_requests(iface: dict[str, Any], link: dict[str, Any]) -> list[Request]:
    out: list[Request] = []
    link_fields: tuple[tuple[Kind, str], ...] = (("mtu", "mtu"), ("txqueuelen", "txqlen"))
    for kind_, name in link_fields:
        value = _opt_int(link.get(name), f"interface.link.{name}")
        if value is not None:
            out.append(Request(kind_, "", str(value), f"interface.link.{name}"))
    out += _features(iface.get("features", []))
    groups: tuple[tuple[Kind, str, type, tuple[str, ...]], ...] = (
        ("ring", "rings", Rings, RING_FIELDS),
        ("channels", "channels", Channels, CHANNEL_FIELDS),
    )
    for kind, section, cls, names in groups:
        attrs = [n.replace("-", "_") for n in names]
        need = [*attrs, *(f"{a}_max" for a in attrs)]
        g = _group(
            iface.get(section, {"unavailable": "missing", "reason": ""}),
            f"interface.{section}",
            _fields(cls),
            need,
        )
        if g is None:
            continue
        for fname, attr in zip(names, attrs, strict=True):
            value = _int(g[attr], f"interface.{section}.{attr}")
            if _int(g[f"{attr}_max"], f"interface.{section}.{attr}_max"):
                # a device without that ring/channel kind has max 0
                out.append(Request(kind, fname, str(value), f"interface.{section}.{attr}"))
    out += _pause_and_coalesce(iface)
    out += _queues(iface.get("queues", []))
    out += _irqs(iface.get("irqs", []), iface.get("irq_affinity", {}))
    return out


def _steering_requests(qdisc: object, rss: object) -> list[Request]:
    """`interface.qdisc` (the root qdisc's line), `rss.setting` (the table), `rss.flow_hash`
    (flow type -> fields) and `rss.ntuple` (location -> rule): the journal's values, checked in
    full when applied; the rest of `rss` reports."""
    out: list[Request] = []
    if qdisc is not None:
        if not isinstance(qdisc, str) or not is_text(qdisc, 4096):
            raise ProfileError(f"interface.qdisc: {_what(qdisc)} is not a qdisc line")
        if not qdisc.startswith("other: "):  # a tree tuitune cannot rebuild: left alone
            out.append(Request("qdisc", "", qdisc, "interface.qdisc"))
    if rss is None:
        return out
    if not isinstance(rss, dict):
        raise ProfileError(f"rss: expected an object, found {_what(rss)}")
    setting = rss.get("setting")
    if setting is not None:
        if not isinstance(setting, str) or not is_text(setting):
            raise ProfileError(f"rss.setting: {_what(setting)} is not an RSS table")
        out.append(Request("rss", "", setting, "rss.setting"))
    hashed = rss.get("flow_hash")
    if hashed is not None:
        if not isinstance(hashed, dict):
            raise ProfileError(f"rss.flow_hash: expected an object, found {_what(hashed)}")
        for flow, fields in hashed.items():
            where = f"rss.flow_hash.{shown(flow)}"
            if flow not in RSS_FLOW_TYPES:
                raise ProfileError(f"{where}: not a flow type ({', '.join(RSS_FLOW_TYPES)})")
            if not isinstance(fields, str) or not is_text(fields, 16):
                raise ProfileError(f"{where}: {_what(fields)} is not hash fields")
            if fields:  # "" is a flow type hashed on nothing: nothing tuitune sets
                out.append(Request("flow_hash", flow, fields, where))
    rules = rss.get("ntuple")
    if rules is None:
        return out
    if not isinstance(rules, dict):
        raise ProfileError(f"rss.ntuple: expected an object, found {_what(rules)}")
    for loc, rule in rules.items():
        where = f"rss.ntuple.{shown(loc)}"
        if not (loc.isascii() and loc.isdigit() and len(loc) <= 7):
            raise ProfileError(f"{where}: not a rule location")
        if not isinstance(rule, str) or not is_text(rule, 512):
            raise ProfileError(f"{where}: {_what(rule)} is not an ntuple rule")
        if rule.startswith("other: "):
            continue  # a rule tuitune does not carry is left as the host has it
        out.append(Request("ntuple", str(int(loc)), rule, where))
    return out


def _driver_requests(platform: object) -> list[Request]:
    """platform.driver's private flags (name -> bool) and fec_configured ("auto rs"), the
    interface's driver settings; the rest of `platform` reports the host and is not read."""
    driver = platform.get("driver") if isinstance(platform, dict) else None
    if not isinstance(driver, dict):
        return []
    where = "platform.driver"
    out: list[Request] = []
    flags = driver.get("private_flags")
    if flags is not None and not (
        isinstance(flags, dict) and "unavailable" in flags and _is_refusal(flags, where)
    ):
        if not isinstance(flags, dict):
            raise ProfileError(f"{where}.private_flags: expected an object, found {_what(flags)}")
        for name, on in flags.items():
            at = f"{where}.private_flags"
            check_name("field", name, at)
            state = "on" if _bool(on, f"{at}.{name}") else "off"
            out.append(Request("priv_flag", name, state, f"{at} {name}"))
    fec = driver.get("fec_configured")
    if fec is not None:
        mask = fec_mask(fec) if isinstance(fec, str) and is_text(fec, 64) else None
        if not mask or mask & 1:  # "none" is what a driver reports, never what it is set to
            if fec == "none":
                return out
            raise ProfileError(f"{where}.fec_configured: {_what(fec)} is not FEC modes")
        out.append(Request("fec", "", fec_names(mask), f"{where}.fec_configured"))
    return out


def _features(v: object) -> list[Request]:
    where = "interface.features"
    if _is_refusal(v, where):
        return []
    out: list[Request] = []
    seen: set[str] = set()
    for i, raw in enumerate(_list(v, where)):
        at = f"{where}[{i}]"
        f = _obj(raw, at, _fields(Feature), ("name", "available", "requested", "never_changed"))
        name = check_name("feature", f["name"], f"{at}.name")
        _once(seen, name, f"{at}.name")
        flags = {k: _bool(f[k], f"{at}.{k}") for k in ("available", "requested", "never_changed")}
        if "active" in f:
            _bool(f["active"], f"{at}.active")
        if "index" in f:
            _int(f["index"], f"{at}.index")
        if flags["available"] and not flags["never_changed"]:  # ethtool's [fixed] otherwise
            state = "on" if flags["requested"] else "off"
            out.append(Request("feature", name, state, f"interface.features {name}"))
    return out


def _pause_and_coalesce(iface: dict[str, Any]) -> list[Request]:
    out = []
    unreported = {"unavailable": "missing", "reason": ""}
    pause = _group(iface.get("pause", unreported), "interface.pause", _fields(Pause), PAUSE_FIELDS)
    if pause is not None:
        for fname in PAUSE_FIELDS:
            state = "on" if _bool(pause[fname], f"interface.pause.{fname}") else "off"
            out.append(Request("pause", fname, state, f"interface.pause.{fname}"))
    where = "interface.coalesce"
    coalesce = _group(iface.get("coalesce", unreported), where, _COALESCE, ("params",))
    if coalesce is not None:
        if coalesce.get("source", "netlink") not in ("netlink", "ioctl"):
            raise ProfileError(f"{where}.source: {_what(coalesce['source'])}: netlink or ioctl")
        params = coalesce["params"]
        if not isinstance(params, dict):
            raise ProfileError(f"{where}.params: expected an object, found {_what(params)}")
        for pname, value in params.items():
            if pname not in COALESCE_NAMES:
                raise ProfileError(f"{where}.params: {shown(pname)} is not a coalescing parameter")
            n = _int(value, f"{where}.params.{pname}")
            out.append(Request("coalesce", pname, str(n), f"interface.coalesce {pname}"))
    return out


def _queues(v: object) -> list[Request]:
    out: list[Request] = []
    seen: set[str] = set()
    for i, raw in enumerate(_list(v, "interface.queues")):
        at = f"interface.queues[{i}]"
        q = _obj(raw, at, _fields(QueueMasks), ("name", "cpus"))
        name = check_name("queue", q["name"], f"{at}.name")
        _once(seen, name, f"{at}.name")
        rx = name.startswith("rx-")
        if not _is_refusal(q["cpus"], f"{at}.cpus"):
            cpus = _cpus(q["cpus"], f"{at}.cpus")
            text = format_cpulist(cpus) if cpus else NO_CPUS
            qkind: Kind = "rps_cpus" if rx else "xps_cpus"
            out.append(Request(qkind, name, text, f"interface.queues {name}"))
        flows = q.get("rps_flow_cnt")
        if flows is None or _is_refusal(flows, f"{at}.rps_flow_cnt"):
            continue
        if not rx:
            raise ProfileError(f"{at}.rps_flow_cnt: a tx queue has none (null)")
        n = _int(flows, f"{at}.rps_flow_cnt")
        out.append(Request("rps_flow_cnt", name, str(n), f"queues {name}"))
    return out


def _irqs(irqs: object, affinity: object) -> list[Request]:
    listed: dict[str, str] = {}  # IRQ number -> its queue name, in the document's order
    for i, raw in enumerate(_list(irqs, "interface.irqs")):
        at = f"interface.irqs[{i}]"
        irq = _obj(raw, at, _fields(NicIrq), ("irq", "name"))
        number = irq["irq"]
        if not isinstance(number, str) or not _IRQ_NUMBER.fullmatch(number):
            raise ProfileError(f'{at}.irq: {_what(number)} is not an IRQ number ("45")')
        if number in listed:
            raise ProfileError(f"{at}.irq: {shown(number)} is listed twice")
        listed[number] = check_name("irq", irq["name"], f"{at}.name")
        if not isinstance(irq.get("kind", ""), str):
            raise ProfileError(f"{at}.kind: {_what(irq['kind'])} is not a queue kind")
        if irq.get("index") is not None:
            _int(irq["index"], f"{at}.index")
    if not isinstance(affinity, dict):
        raise ProfileError(f"interface.irq_affinity: expected an object, found {_what(affinity)}")
    for number in affinity:
        if number not in listed:
            at = f"interface.irq_affinity.{shown(number)}"
            raise ProfileError(f"{at}: not an IRQ of interface.irqs")
    out: list[Request] = []
    wanted: dict[str, str] = {}  # queue name -> CPU list
    for number, name in listed.items():
        if number not in affinity:
            continue
        at = f"interface.irq_affinity.{number}"
        aff = _obj(affinity[number], at, _fields(IrqAffinity), ("smp_affinity",))
        if aff.get("irq", number) != number:
            raise ProfileError(f"{at}.irq: {_what(aff['irq'])} is not {number!r}")
        if _is_refusal(aff["smp_affinity"], f"{at}.smp_affinity"):
            continue
        cpus = _cpus(aff["smp_affinity"], f"{at}.smp_affinity")
        if not cpus:
            raise ProfileError(f"{at}.smp_affinity: an IRQ needs at least one CPU")
        text = format_cpulist(cpus)
        if name in wanted:
            if wanted[name] != text:
                raise ProfileError(f"{at}: two IRQs named {shown(name)} ask for different CPUs")
            continue  # IRQs are set by queue name: one request covers both
        wanted[name] = text
        out.append(Request("irq_affinity", name, text, f"IRQ {number} {name}"))
    return out
