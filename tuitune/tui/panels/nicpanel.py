"""Rows of the NIC panel: link, offloads, rings, coalescing, channels, pause, RPS/XPS.

Each setting becomes an Entry with a stable key; the same function run on the baseline's NIC
state gives the values to compare, so whatever changed since the baseline is marked "was X".
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from tuitune.core.cpulist import format_cpulist, format_mask
from tuitune.core.host.ethtool import Coalesce, short_name
from tuitune.core.host.qdisc_spec import LEAVES
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import NicState
from tuitune.tui.look.glyphs import Glyphs
from tuitune.tui.look.palette import Palette
from tuitune.tui.panels.nicsummary import offload_summary
from tuitune.tui.panels.rowview import Column, Row, RowsBuilder

QDISC_ROW = "qdisc:root"
COLUMNS = [
    Column("setting", 28),
    Column("value", 12),
    Column("limit", 14, drop=2),
    Column("note", 10, flex=True, drop=1),
]


@dataclass(frozen=True, slots=True)
class Entry:
    section: str
    key: str
    label: str
    value: str
    limit: str = ""
    note: str = ""
    state: str = ""  # "on" / "off" / "fixed" / "unavailable": how to colour the value


# Which device help explains a feature, by the kernel's feature names.
_FEATURE_HELP = (
    ("tx-tcp", "tso"),
    ("tx-generic-segmentation", "gso"),
    ("rx-gro", "gro"),
    ("rx-lro", "lro"),
    ("rx-checksum", "rx-checksum"),
    ("tx-checksum", "tx-checksum"),
    ("tx-scatter-gather", "sg"),
)


def help_name(key: str) -> str | None:
    """The DEVICE_HELP entry behind a NIC row key, if any."""
    kind, _, rest = key.partition(":")
    if kind == "feature":
        for prefix, name in _FEATURE_HELP:
            if rest.startswith(prefix):
                return name
        return None
    if kind == "coalesce":
        return "adaptive-rx" if rest.startswith("adaptive") else "rx-usecs"
    return {
        "rings": "ring",
        "channels": "channels",
        "pause": "pause",
        "queue": "rps-xps",
        "irq": "irq-affinity",
        # The bus row is the PCIe slot; the queue count is what MSI-X vectors allow.
        "link": {
            "mtu": "mtu",
            "txqueuelen": "txqueuelen",
            "numa": "cpu-affinity",
            "bus": "pcie-link",
            "queues": "msi-x",
        }.get(rest.split(":")[0]),
    }.get(kind)


def _unnamed(reason: str, *names: str) -> str:
    """A reason without the setting's name in front ("xps: needs more than one tx queue"):
    its row names the setting already."""
    head, sep, rest = reason.partition(": ")
    return rest if sep and any(n in head.split() for n in names) else reason


def _group_entries(section: str, value: object) -> list[Entry]:
    if isinstance(value, Unavailable):
        return [
            Entry(
                section,
                f"{section}:unavailable",
                value.reason,  # it names the group already: "rings: not supported by veth"
                "",
                state="unavailable",
            )
        ]
    if isinstance(value, Coalesce):
        out = []
        for name, v in value.params:
            flag = name.startswith(("adaptive", "cqe-mode"))
            out.append(
                Entry(
                    section,
                    f"coalesce:{name}",
                    name,
                    ("on" if v else "off") if flag else str(v),
                    state=("on" if v else "off") if flag else "",
                )
            )
        return out or [Entry(section, "coalesce:none", "no parameters reported", "")]
    assert dataclasses.is_dataclass(value)
    names = [f.name for f in dataclasses.fields(value)]
    out = []
    for name in (n for n in names if not n.endswith("_max")):
        cur = getattr(value, name)
        label = name.replace("_", "-")
        if isinstance(cur, bool):
            out.append(
                Entry(
                    section,
                    f"{section}:{name}",
                    label,
                    "on" if cur else "off",
                    state="on" if cur else "off",
                )
            )
        elif f"{name}_max" in names:
            top = getattr(value, f"{name}_max")
            if cur == 0 and top == 0:
                continue  # a kind of ring or channel this device does not have
            out.append(Entry(section, f"{section}:{name}", label, str(cur), f"max {top}"))
        else:
            out.append(Entry(section, f"{section}:{name}", label, str(cur)))
    return out


def qdisc_entry(value: str | Unavailable) -> Entry:
    """The root qdisc: its kinds in the value column ("mq fq", "tbf", "default"), the options
    in the note (the whole line is the setting: the editor starts from it)."""
    if isinstance(value, Unavailable):
        return Entry("link", QDISC_ROW, "root qdisc", "-", note=value.reason, state="")
    if value.startswith("other: "):
        return Entry("link", QDISC_ROW, "root qdisc", "other", note=value[7:], state="fixed")
    words = value.split()
    kinds = [w for w in words if w in ("mq", *LEAVES) or w == "default"]
    rest = [w for w in words if w not in kinds]
    return Entry("link", QDISC_ROW, "root qdisc", " ".join(kinds), note=" ".join(rest))


def steering_entries(nic: NicState) -> list[Entry]:
    """The RSS table, its hash fields per flow type and the ntuple rules: each a setting the
    journal changes (docs/rss.md). A device tuitune could not ask (a recorded tree) has none."""
    sec = "steering"
    if isinstance(nic.rss, Unavailable):
        if nic.rss.kind == "missing":
            return []
        # A reason, shown as the whole line like "rings: not supported by veth".
        out = [Entry(sec, "rss:table", nic.rss.reason, "", state="unavailable")]
    else:
        head, _, runs = nic.rss.partition(" ")
        shown = nic.rss if head in ("default", "equal") else head
        out = [Entry(sec, "rss:table", "RSS table", shown, note=runs if head == "table" else "")]
    for ctx, value in nic.rss_contexts:
        # Read only: the tables of the contexts ntuple rules steer into (ethtool -x context N).
        if value.startswith("RSS context"):  # why it could not be read
            out.append(Entry(sec, f"rss_context:{ctx}", value, "", state="unavailable"))
            continue
        head, _, runs = value.partition(" ")
        shown = value if head in ("default", "equal") else head
        note = runs if head == "table" else "read only"
        out.append(Entry(sec, f"rss_context:{ctx}", f"RSS context {ctx}", shown, note=note))
    if nic.rss_contexts_note:  # the kernel cannot list them: say so, on a whole line
        out.append(
            Entry(sec, "rss_context:unlisted", nic.rss_contexts_note, "", state="unavailable")
        )
    for flow, fields in nic.flow_hash:
        out.append(Entry(sec, f"flow_hash:{flow}", f"rx-flow-hash {flow}", fields or "none"))
    for loc, rule in nic.ntuple:
        words = rule.split()
        action = " ".join(words[-2:]) if rule.startswith("flow-type") else "other"
        out.append(Entry(sec, f"ntuple:{loc}", f"ntuple loc {loc}", action, note=rule))
    return out


def nic_entries(nic: NicState, ncpus: int) -> list[Entry]:
    link, place = nic.link, nic.placement
    e: list[Entry] = []
    mtu_range = ""
    if link.min_mtu is not None and link.max_mtu is not None:
        mtu_range = f"{link.min_mtu}-{link.max_mtu}"
    e.append(Entry("link", "link:mtu", "mtu", str(link.mtu), mtu_range))
    e.append(Entry("link", "link:txqueuelen", "txqueuelen", str(link.txqlen)))
    if not (isinstance(nic.qdisc, Unavailable) and nic.qdisc.kind == "missing"):
        e.append(qdisc_entry(nic.qdisc))  # a recorded tree without netlink has none
    speed = link.speed_mbps
    e.append(
        Entry(
            "link",
            "link:speed",
            "speed",
            "unknown" if isinstance(speed, Unavailable) else f"{speed} Mb/s",
            note=speed.reason if isinstance(speed, Unavailable) else "",
        )
    )
    e.append(
        Entry(
            "link",
            "link:state",
            "state",
            f"{link.operstate}"
            + ("" if link.carrier is None else " carrier" if link.carrier else " no carrier"),
        )
    )
    e.append(
        Entry("link", "link:queues", "queues (rx/tx)", f"{link.num_rx_queues}/{link.num_tx_queues}")
    )
    numa = "none" if place.numa_node is None else str(place.numa_node)
    local = format_cpulist(place.local_cpus) if place.local_cpus else "all"
    e.append(Entry("link", "link:numa", "NUMA node", numa, note=f"local CPUs {local}"))
    if place.bus:
        e.append(Entry("link", "link:bus", "bus", place.bus, note=place.subsystem or ""))
    e += _group_entries("rings", nic.rings)
    e += _group_entries("coalescing", nic.coalesce)
    e += _group_entries("channels", nic.channels)
    e += _group_entries("pause", nic.pause)
    # After the ethtool groups: on a veth or a VM NIC its one "not supported" line pushed the
    # rings' and coalescing's own off a 48-line first frame (found by test_tui_tmux).
    e += steering_entries(nic)
    for q in nic.queues:
        kind = "rps" if q.name.startswith("rx") else "xps"
        if isinstance(q.cpus, Unavailable):
            e.append(
                Entry(
                    "RPS/XPS",
                    f"queue:{q.name}",
                    f"{q.name} {kind}",
                    _unnamed(q.cpus.reason, kind, q.name),
                    state="unavailable",
                )
            )
            continue
        mask = format_mask(q.cpus, ncpus) if q.cpus else "0"
        note = f"mask {mask}"
        if isinstance(q.rps_flow_cnt, int):
            note += f", rps_flow_cnt {q.rps_flow_cnt}"
        e.append(
            Entry(
                "RPS/XPS",
                f"queue:{q.name}",
                f"{q.name} {kind}",
                format_cpulist(q.cpus) or "off",
                note=note,
            )
        )
    if isinstance(nic.features, Unavailable):
        e += _group_entries("offloads", nic.features)
    else:
        for fixed in (False, True):
            section = "fixed offloads" if fixed else "offloads"
            for f in nic.features:
                if f.fixed != fixed:
                    continue
                # The ethtool -K short name (tso, gso, sg, tx...): what the reports and users
                # call it, shown and searchable (`/tso` finds tx-tcp-segmentation).
                note = short_name(f.name)
                if f.requested != f.active and not fixed:  # ethtool's "[requested on]"
                    asked = f"requested {'on' if f.requested else 'off'}"
                    note = f"{note}; {asked}" if note else asked
                state = "fixed" if fixed else ("on" if f.active else "off")
                e.append(
                    Entry(
                        section,
                        f"feature:{f.name}",
                        f.name,
                        "on" if f.active else "off",
                        "fixed" if fixed else "",
                        note,
                        state,
                    )
                )
    return e


def nic_rows(
    nic: NicState | None,
    baseline: NicState | None,
    ncpus: int,
    g: Glyphs,
    p: Palette,
    width: int = 80,
) -> list[Row]:
    """The rows; `width` (the panel's) packs the offloads at a glance after the link."""
    if nic is None:
        return []
    entries = nic_entries(nic, ncpus)
    before = {x.key: x.value for x in nic_entries(baseline, ncpus)} if baseline else {}
    b = RowsBuilder()
    section = None
    for x in entries:
        if x.section != section:
            if section == "link":  # offloads at a glance, near the top
                b.rows.extend(offload_summary(nic, width, p))
            section = x.section
            b.section(section, section)
        if x.state == "unavailable":
            text = x.label if not x.value else f"{x.label}: {x.value}"
            b.add(x.key, ((text, p.muted),), wide=True)  # a reason, not a setting: whole line
            continue
        style = {"on": p.on, "off": p.off, "fixed": p.locked}.get(x.state)
        value = x.value + (f" {g.locked}" if x.state == "fixed" else "")
        note = x.note
        was = before.get(x.key)
        changed = was is not None and was != x.value
        if changed:
            note = f"was {was}" + (f"; {note}" if note else "")
        b.add(
            x.key,
            ((x.label, p.changed if changed else None),),
            ((value, p.changed if changed else style),),
            x.limit,
            ((note, p.changed if changed else p.muted),),
            search=f"{x.section} {x.label} {x.value} {x.note}",
        )
    return b.rows
