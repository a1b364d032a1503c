"""What the screen's rows mean to the journal: row key -> setting Key, and how to edit it.

Pure functions (no Textual), so the mapping is tested without a terminal. The journal itself
(tuitune.core.session) does the validating, recording, writing and verifying.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, format_cpulist, format_mask, parse_cpulist
from tuitune.core.host.ethtool import Channels, Rings
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.qdisc_spec import LEAVES
from tuitune.core.session import Key, Outcome
from tuitune.core.session.settings import ring_minimum
from tuitune.core.snapshot import HostState, NicState
from tuitune.core.values import Unavailable

_GROUP = {"rings": "ring", "coalesce": "coalesce", "channels": "channels", "pause": "pause"}
_RING = {"rx": "rx", "rx_mini": "rx-mini", "rx_jumbo": "rx-jumbo", "tx": "tx"}


@dataclass(frozen=True, slots=True)
class EditSpec:
    key: Key
    current: str  # what the row shows now (the editor starts from it)
    hint: str  # bounds or format, shown under the editor
    toggle: str | None = None  # for on/off settings: the value a toggle writes
    cpus: int = 0  # for CPU-list settings: how many CPUs the hex mask beside it covers
    possible: int | None = None  # the host's CPU numbers (nr_cpu_ids): bounds a typed list


def _nic_irq_queue(nic: NicState | None, irq: str) -> str | None:
    if nic is None:
        return None
    for q in nic.irqs:
        if q.irq == irq:
            return q.name
    return None


def edit_spec(
    row_key: str | None,
    ifname: str | None,
    nic: NicState | None,
    host: HostState | None,
    irq_affinity: Mapping[str, IrqAffinity] | None = None,
) -> EditSpec | str:
    """How to edit the setting behind a panel row, or why it cannot be edited.
    `irq_affinity`: what the IRQ panel shows (the host's IRQs too); default: the NIC's."""
    if not row_key or row_key.startswith("§"):
        return "nothing to change on this line"
    kind, _, rest = row_key.partition(":")
    online = host.topology.online if host is not None else frozenset()
    cpus_hint = f"a CPU list like 0-3,8 (online: {format_cpulist(online) or '?'})"
    if kind == "sysctl":
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
    if kind == "irq":
        if not (rest.isascii() and rest.isdigit()):
            # NMI, LOC, TLB...: counted per CPU by the kernel itself; /proc/irq has no entry.
            return f"{rest} is not a device IRQ (the kernel counts it per CPU): no affinity to set"
        if nic is None and ifname is None:
            return "pick an interface first"
        queue = _nic_irq_queue(nic, rest)
        shown = irq_affinity if irq_affinity is not None else (nic.irq_affinity if nic else {})
        aff = shown.get(rest)
        current = ""
        if aff is not None and not isinstance(aff.smp_affinity, Unavailable):
            current = format_cpulist(aff.smp_affinity)
        ncpus = len(host.topology.cpus) if host is not None else 0
        return EditSpec(
            Key.irq(rest, queue, ifname if queue else None),
            current,
            cpus_hint,
            cpus=ncpus,
            possible=host.topology.possible if host is not None else None,
        )
    if ifname is None or nic is None:
        return "pick an interface first"
    if kind == "feature":
        if isinstance(nic.features, Unavailable):
            return nic.features.reason
        f = next((f for f in nic.features if f.name == rest), None)
        if f is None:
            return f"{rest}: no such feature"
        if f.fixed:
            return f"{rest} is fixed by the driver ([fixed] in ethtool -k): it cannot change"
        now = "on" if f.active else "off"
        return EditSpec(Key.feature(ifname, rest), now, "on or off", "off" if f.active else "on")
    if kind in _GROUP:
        group = _GROUP[kind]
        field = rest.replace("_", "-") if group != "ring" else _RING.get(rest, rest)
        value = getattr(nic, {"rings": "rings", "coalesce": "coalesce"}.get(kind, kind))
        if isinstance(value, Unavailable):
            return value.reason
        key = Key.field(ifname, group, field)  # type: ignore[arg-type]
        if kind == "pause" or (kind == "coalesce" and rest.startswith(("adaptive", "cqe"))):
            now = _flag(value, rest)
            return EditSpec(key, now, "on or off", "off" if now == "on" else "on")
        current = str(_field(value, rest))
        hint = "an integer"
        if isinstance(value, (Rings, Channels)):
            top = getattr(value, f"{rest}_max", None)
            low = ring_minimum(field) if isinstance(value, Rings) else 0
            hint = f"{low}..{top} (the device's maximum)" if top is not None else hint
        return EditSpec(key, current, hint)
    if kind == "link":
        if rest == "mtu":
            lo, hi = nic.link.min_mtu, nic.link.max_mtu
            hint = f"{lo}..{hi} bytes" if lo is not None and hi is not None else "bytes"
            return EditSpec(Key.mtu(ifname), str(nic.link.mtu), hint)
        if rest == "txqueuelen":
            return EditSpec(Key.txqueuelen(ifname), str(nic.link.txqlen), "packets, 0..")
        return f"{rest} is read-only"
    if kind == "qdisc":
        if isinstance(nic.qdisc, Unavailable):
            return nic.qdisc.reason
        if nic.qdisc.startswith("other: "):
            return f"the root qdisc is {nic.qdisc[7:]}: tuitune could not build it again exactly"
        multi = (nic.link.num_tx_queues or 0) > 1
        hint = (
            f"default, {'mq, mq LEAF or ' if multi else ''}LEAF: {', '.join(LEAVES)} with "
            "options (fq maxrate 1gbit; tbf rate 1gbit burst 64k); a kind this kernel lacks "
            "is refused"
        )
        return EditSpec(Key.qdisc(ifname), nic.qdisc, hint)
    if kind in ("rss", "flow_hash", "ntuple"):
        return _steering_spec(kind, rest, ifname, nic)
    if kind == "queue":
        q = next((q for q in nic.queues if q.name == rest), None)
        if q is None:
            return f"{rest}: no such queue"
        if isinstance(q.cpus, Unavailable):
            return q.cpus.reason
        key = Key.rps_cpus(ifname, rest) if rest.startswith("rx") else Key.xps_cpus(ifname, rest)
        ncpus = len(host.topology.cpus) if host is not None else 0
        possible = host.topology.possible if host is not None else None
        current = format_cpulist(q.cpus) or "none"
        return EditSpec(key, current, cpus_hint + ", or none", cpus=ncpus, possible=possible)
    return "this line cannot be changed"


def _steering_spec(kind: str, rest: str, ifname: str, nic: NicState) -> EditSpec | str:
    if kind == "rss":
        if isinstance(nic.rss, Unavailable):
            return nic.rss.reason
        hint = "default, equal N, weight W0 W1 ... or table Q*N ... (ethtool -X's words)"
        return EditSpec(Key.rss(ifname), nic.rss, hint)
    if kind == "flow_hash":
        now = dict(nic.flow_hash).get(rest)
        if now is None:
            return f"rx-flow-hash {rest}: not reported by the driver"
        hint = "letters of ethtool -N rx-flow-hash: s d (addresses) f n (ports), t v m"
        return EditSpec(Key.flow_hash(ifname, rest), now, hint)
    rule = dict(nic.ntuple).get(int(rest)) if rest.isdigit() else None
    if rule is None:
        return f"no ntuple rule at location {rest[:8]}"
    hint = (
        "flow-type tcp4|udp4 [src-ip A] [dst-ip A] [src-port P] [dst-port P] action Q|drop, or none"
    )
    return EditSpec(Key.ntuple(ifname, int(rest)), rule, hint)


def _field(value: object, name: str) -> object:
    get = getattr(value, "get", None)
    if callable(get) and not hasattr(value, name):
        return get(name)
    return getattr(value, name)


def _flag(value: object, name: str) -> str:
    raw = _field(value, name)
    return "on" if raw else "off"


_ROW_OF_GROUP = {"ring": "rings", "coalesce": "coalesce", "channels": "channels", "pause": "pause"}


def row_key_of(key: Key) -> str:
    """The panel row that shows a setting (the inverse of edit_spec)."""
    k = key.kind
    if k == "sysctl":
        return f"sysctl:{key.name}"
    if k == "feature":
        return f"feature:{key.name}"
    if k in _ROW_OF_GROUP:
        name = key.name.replace("-", "_") if k == "ring" else key.name
        return f"{_ROW_OF_GROUP[k]}:{name}"
    if k in ("mtu", "txqueuelen"):
        return f"link:{k}"
    if k in ("rps_cpus", "xps_cpus"):
        return f"queue:{key.name}"
    if k == "qdisc":
        return "qdisc:root"
    if k == "rss":
        return "rss:table"
    if k == "irq_affinity":
        return f"irq:{key.name}"
    return f"{k}:{key.name}"


def state_note(out: Outcome, locked: str = "") -> str | None:
    """A kernel refusal that is a lasting state of the setting, as its row says it: a managed
    IRQ is locked, an EOPNOTSUPP is not supported, EPERM needs root. None for anything else
    (a bad value, a busy device: the message line says those)."""
    if out.status != "refused" or out.state is None:
        return None
    reason = out.state.reason
    tail = reason.split(": ", 1)[1] if ": " in reason else reason
    mark = f"{locked} " if locked else ""
    if out.state.kind == "permission":
        return f"{mark}read-only: {tail}"
    if out.state.kind != "unsupported":
        return None
    if "managed by the kernel" in reason or "fixed" in reason:
        return f"{mark}locked: {tail}"
    return mark + (tail if tail.startswith("not supported") else f"not supported: {tail}")


def mask_preview(text: str, ncpus: int, possible: int | None = None) -> str:
    """The hex mask the kernel will show for a typed CPU list (32-bit groups, comma-separated),
    or what is wrong with the list: shown live under the editor, rebuilt on every keystroke, so
    the list is bounded by the host's CPUs before it is expanded, and the line by PREVIEW_MAX
    (a mask of thousands of CPUs would push the editor's error off the screen)."""
    text = text.strip()
    if text in ("", "none"):
        return "mask: 0 (no CPU)"
    try:
        cpus = parse_cpulist(text, possible)
        mask = format_mask(cpus, max(ncpus, max(cpus, default=0) + 1))
    except CpuListError as exc:
        return _clip(f"not a CPU list: {exc}")
    return _clip(f"mask: {mask}")


PREVIEW_MAX = 76  # one line of the editor's box at 80 columns


def _clip(line: str) -> str:
    """Elide the middle: a mask's low CPUs are at its right end, a message's point at its left."""
    if len(line) <= PREVIEW_MAX:
        return line
    head = PREVIEW_MAX // 2
    return line[:head] + "…" + line[-(PREVIEW_MAX - head - 1) :]
