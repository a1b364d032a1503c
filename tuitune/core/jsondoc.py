"""The `tuitune show --json` document: a documented, versioned schema (docs/json-schema.md).

The converter is generic over the snapshot dataclasses so that a new field appears in the JSON
without a second list to keep in step; the schema version changes when a field is renamed or
removed (adding fields keeps the version).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tuitune import __version__
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.conns import Connection
from tuitune.core.host.qdisc import Qdisc
from tuitune.core.host.queuestats import QueueRates, rows_json
from tuitune.core.host.rss import RssState
from tuitune.core.procs.model import NicProcess
from tuitune.core.queueview import nic_queue_rows
from tuitune.core.session.kinds.showform import ShowSource, place
from tuitune.core.session.kinds.showform import jsonable as jsonable  # its old home
from tuitune.core.session.kinds.table import show_parts
from tuitune.core.values import Unavailable
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.snapshot import Snapshot

if TYPE_CHECKING:
    from tuitune.core.host.platform import Platform

SCHEMA = "tuitune.report.show"
SCHEMA_VERSION = 1


def process_json(p: NicProcess) -> dict[str, Any]:
    """One of the NIC's processes. `comm` and `cmdline` are the process's own text, exact
    (JSON escapes control characters; a byte that is not UTF-8 is a lone surrogate, \\udcXX)."""
    return {
        "pid": p.ident.pid,
        "start_ticks": p.ident.start_ticks,
        "key": p.ident.name,
        "uid": p.ident.uid,
        "comm": p.ident.comm,
        "cmdline": list(p.cmdline),
        "unit": p.unit,
        "unit_user": p.unit_user,
        "kernel_thread": p.kernel_thread,
        "owner_is_caller": p.owner_is_caller,
        "sockets": p.sockets,
        "wildcard": p.wildcard,
        "allowed": sorted(p.allowed),
        "ran_on": sorted(p.ran_on),
        "on_nic_node": p.on_nic_node,
        "cpu_percent": {str(c): round(v, 3) for c, v in sorted(p.cpu_by_cpu.items())},
        "threads": [
            {"tid": t.tid, "comm": t.comm, "last_cpu": t.last_cpu, "allowed": sorted(t.allowed)}
            for t in p.threads
        ],
    }


def show_document(
    snap: Snapshot,
    rates: Rates | None,
    processes: Sequence[NicProcess] | None = None,
    platform: Platform | None = None,
    queues: QueueRates | None = None,
    rss: RssState | None = None,
    qdiscs: tuple[Qdisc, ...] | Unavailable | None = None,
    connections: tuple[Connection, ...] | Unavailable | None = None,
) -> dict[str, Any]:
    host = snap.host
    doc: dict[str, Any] = {
        "schema": SCHEMA,
        "version": SCHEMA_VERSION,
        "tuitune": __version__,
        "host": {
            "hostname": host.hostname,
            "kernel": host.kernel,
            "netns": host.netns,
            "is_root": host.is_root,
            "cpus": jsonable(host.topology.cpus),
            "online": format_cpulist(host.topology.online),
            "isolated": format_cpulist(host.topology.isolated),
            "nohz_full": format_cpulist(host.topology.nohz_full),
            "numa_nodes": {str(n): format_cpulist(c) for n, c in host.topology.nodes.items()},
            "irqbalance": jsonable(host.irqbalance),
        },
        "sysctls": None,  # the kinds' parts (each handler's show_json) are put in below
        "interface": None,
        "rates": jsonable(rates) if rates is not None else None,
        "processes": None if processes is None else [process_json(p) for p in processes],
        "platform": None,
    }
    if platform is not None:
        from tuitune.core.platformview import platform_json

        doc["platform"] = platform_json(platform)
    if snap.nic is not None:
        iface = jsonable(snap.nic)
        iface["link"]["counters"] = iface["link"]["counters"]["values"]
        doc["interface"] = iface
        if doc["rates"] is not None:
            # A big host has thousands of IRQs: scripts asking about one NIC get its IRQs only.
            mine = {q.irq for q in snap.nic.irqs}
            doc["rates"]["irqs"] = {k: v for k, v in doc["rates"]["irqs"].items() if k in mine}
    doc["queue_rates"] = _queue_rates(snap, rates, queues)
    doc["rss"] = None
    doc["qdiscs"] = None
    doc["connections"] = None if connections is None or snap.nic is None else jsonable(connections)
    src = ShowSource(host, snap.nic, None, rss, qdiscs)  # the platform's: platform_json's
    place(doc, show_parts(src), ())
    return doc


def _queue_rates(
    snap: Snapshot, rates: Rates | None, queues: QueueRates | None
) -> dict[str, Any] | None:
    """Per-queue rates with each queue's IRQ and busiest CPU (docs/json-schema.md)."""
    if queues is None or snap.nic is None:
        return None
    return rows_json(queues, nic_queue_rows(snap.nic.irqs, queues, rates))
