"""The kind table: which handler serves each `Kind`, and the order a profile's writes happen
in. Adding a kind is one module (or a class in its family's) and its rows here;
tests/unit/core/session/test_kind_table.py checks every kind has them."""

from __future__ import annotations

from typing import Any

from tuitune.core.host.platform import KindRead, Platform
from tuitune.core.session.kinds.base import KindHandler
from tuitune.core.session.kinds.boost import BoostKind
from tuitune.core.session.kinds.cpupower import CpuPowerKind
from tuitune.core.session.kinds.driver import PrivFlags
from tuitune.core.session.kinds.ethtool import (
    ChannelCounts,
    Coalescing,
    Features,
    PauseFrames,
    RingSizes,
)
from tuitune.core.session.kinds.fec import FecMode
from tuitune.core.session.kinds.hostrow import Row
from tuitune.core.session.kinds.irq import IrqAffinity
from tuitune.core.session.kinds.link import Link
from tuitune.core.session.kinds.module import ModuleParam
from tuitune.core.session.kinds.ntuple import NtupleRule
from tuitune.core.session.kinds.proc_affinity import ProcAffinityKind
from tuitune.core.session.kinds.qdisc import RootQdisc
from tuitune.core.session.kinds.queues import Queues
from tuitune.core.session.kinds.rss import FlowHash, RssIndirection
from tuitune.core.session.kinds.service import Service
from tuitune.core.session.kinds.showform import ShowPart, ShowSource
from tuitune.core.session.kinds.smt import SmtControl
from tuitune.core.session.kinds.sysctl import Sysctl
from tuitune.core.session.settings import Kind

_LINK, _QUEUES, _CPU = Link(), Queues(), CpuPowerKind()

HANDLERS: dict[Kind, KindHandler] = {
    "sysctl": Sysctl(),
    "feature": Features(),
    "ring": RingSizes(),
    "coalesce": Coalescing(),
    "channels": ChannelCounts(),
    "pause": PauseFrames(),
    "mtu": _LINK,
    "txqueuelen": _LINK,
    "rps_cpus": _QUEUES,
    "xps_cpus": _QUEUES,
    "rps_flow_cnt": _QUEUES,
    "irq_affinity": IrqAffinity(),
    "service": Service(),
    "proc_affinity": ProcAffinityKind(),
    "cpu_governor": _CPU,
    "cpu_epp": _CPU,
    "cstate_disable": _CPU,
    "cpu_boost": BoostKind(),
    "module_param": ModuleParam(),
    "qdisc": RootQdisc(),
    "rss": RssIndirection(),
    "flow_hash": FlowHash(),
    "ntuple": NtupleRule(),
    "priv_flag": PrivFlags(),
    "fec": FecMode(),
    "smt": SmtControl(),
}


# The order a profile's (or a show document's) writes happen in (session/profile.py): the
# device's shape (channels) before its queues, IRQs last.
# No "service": stopping irqbalance is a decision for one session (the TUI asks before the
# first IRQ move), not part of a saved state; no table or show field produces one.
WRITE_ORDER: tuple[Kind, ...] = (
    "module_param",  # host-wide, the driver's and the CPUs' first: the NIC's settings follow
    "cpu_governor",  # before its EPP: a governor may move the EPP
    "cpu_epp",
    "cpu_boost",
    "cstate_disable",
    "sysctl",
    "feature",
    "ring",
    "channels",
    "coalesce",
    "pause",
    "priv_flag",
    "fec",
    "mtu",
    "txqueuelen",
    "qdisc",  # after channels: an mq gets one child per tx queue there is
    "rss",  # after channels: the table names rx queues
    "flow_hash",
    "ntuple",  # after channels: a rule names an rx queue
    "rps_cpus",
    "rps_flow_cnt",
    "xps_cpus",
    "irq_affinity",
    "proc_affinity",  # last: "irq:QUEUE" pairs with the IRQ where the profile puts it
)


# The order `tuitune apply` reads a `show --json` document's parts in (session/showdoc.py
# asks each kind's handler for its requests): the document's own order, the interface's parts
# before the host-wide platform's. A kind not named here is asked after these.
SHOW_ORDER: tuple[Kind, ...] = (
    "sysctl",
    "mtu",
    "txqueuelen",
    "feature",
    "ring",
    "channels",
    "pause",
    "coalesce",
    "rps_cpus",  # with rps_flow_cnt and xps_cpus: interface.queues, queue by queue
    "irq_affinity",
    "priv_flag",
    "fec",
    "qdisc",
    "rss",
    "flow_hash",
    "ntuple",
    "cpu_governor",  # with cpu_epp: platform.cpu_power.frequency, group by group
    "cpu_boost",
    "cstate_disable",
    "module_param",
)


def show_order() -> tuple[Kind, ...]:
    """Every kind once: SHOW_ORDER's, then the rest in the table's order."""
    return (*SHOW_ORDER, *(k for k in HANDLERS if k not in SHOW_ORDER))


def show_parts(src: ShowSource) -> ShowPart:
    """Every kind's part of a `show --json` document (its handler's `show_json`), asked in
    show_order(): core/jsondoc.py and platformview.py put them in the document's frame."""
    out: dict[tuple[str, ...], Any] = {}
    for kind in show_order():
        out.update(HANDLERS[kind].show_json(kind, src))
    return out


# What the kinds read of the interface themselves for the platform snapshot (each handler's
# `platform_read`, once): host/platform.py's read_platform and read_driver run them.
PLATFORM_READS: tuple[KindRead, ...] = tuple(
    {id(r): r for h in HANDLERS.values() if (r := h.platform_read) is not None}.values()
)


def host_rows(platform: Platform) -> list[Row]:
    """Every kind's own Host view rows (its handler's `host_rows`, asked once a handler, with
    its first kind), in the table's order: core/platformview.py puts each at the end of its
    section."""
    out: list[Row] = []
    seen: set[int] = set()
    for kind, h in HANDLERS.items():
        if id(h) not in seen:
            seen.add(id(h))
            out.extend(h.host_rows(kind, platform))
    return out


def handler(kind: Kind) -> KindHandler:
    return HANDLERS[kind]
