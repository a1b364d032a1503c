"""The kind table: which handler serves each `Kind`. Adding a kind is one module (or a class
in its family's) and one row here; tests/unit/core/session/test_kind_table.py checks every
kind has one."""

from __future__ import annotations

from tuitune.core.session.kinds.base import KindHandler
from tuitune.core.session.kinds.boost import BoostKind
from tuitune.core.session.kinds.cpupower import CpuPowerKind
from tuitune.core.session.kinds.driver import FecMode, PrivFlags
from tuitune.core.session.kinds.ethtool import (
    ChannelCounts,
    Coalescing,
    Features,
    PauseFrames,
    RingSizes,
)
from tuitune.core.session.kinds.irq import IrqAffinity
from tuitune.core.session.kinds.link import Link
from tuitune.core.session.kinds.module import ModuleParam
from tuitune.core.session.kinds.ntuple import NtupleRule
from tuitune.core.session.kinds.proc_affinity import ProcAffinityKind
from tuitune.core.session.kinds.qdisc import RootQdisc
from tuitune.core.session.kinds.queues import Queues
from tuitune.core.session.kinds.rss import FlowHash, RssIndirection
from tuitune.core.session.kinds.service import Service
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


def handler(kind: Kind) -> KindHandler:
    return HANDLERS[kind]
