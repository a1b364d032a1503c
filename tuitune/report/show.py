"""`tuitune show` for people: the snapshot as Rich tables (the core stays Rich-free)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.columns import Columns
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from tuitune.core import catalog
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.conns import Connection
from tuitune.core.host.ethtool import Coalesce
from tuitune.core.host.platform import Platform
from tuitune.core.host.qdisc import Qdisc
from tuitune.core.host.queuestats import QueueRates
from tuitune.core.host.rss import RssState
from tuitune.core.procs.model import NicProcess
from tuitune.core.text import printable
from tuitune.core.units import rate
from tuitune.core.values import Unavailable
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.snapshot import NicState, Snapshot
from tuitune.rich_net import Net


def _v(value: Any) -> Text:
    """One cell: refusals dimmed with their reason, CPU sets as lists."""
    if isinstance(value, Unavailable):
        return Text(value.reason, style="dim italic")
    if value is None:
        return Text("-", style="dim")
    if isinstance(value, frozenset):
        return Text(format_cpulist(value) or "(none)")
    if isinstance(value, bool):
        return Text("on" if value else "off", style="green" if value else "red")
    return Text(str(value))


def _rate(x: float) -> str:
    return rate(x, whole=True)


def _header(snap: Snapshot, rates: Rates | None) -> Table:
    h, nic = snap.host, snap.nic
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    t.add_row(
        "host",
        Text(
            printable(f"{h.hostname}  kernel {h.kernel}")
            + (f"  netns {printable(h.netns, 130)}" if h.netns else "")
        ),
    )
    topo = h.topology
    cpus = f"{len(topo.online)} online of {topo.count}"
    if topo.nodes:
        cpus += "  " + "  ".join(
            f"node{n}: {format_cpulist(c)}" for n, c in sorted(topo.nodes.items())
        )
    if topo.isolated:
        cpus += f"  isolcpus {format_cpulist(topo.isolated)}"
    if topo.nohz_full:
        cpus += f"  nohz_full {format_cpulist(topo.nohz_full)}"
    t.add_row("cpus", cpus)
    ib = h.irqbalance
    if ib.running:
        t.add_row(
            "irqbalance", Text("running: it will move IRQs you place by hand", style="yellow")
        )
    else:
        t.add_row("irqbalance", "not running")
    if not h.is_root:
        t.add_row("mode", Text("not root: values that need root are marked", style="yellow"))
    if nic is not None:
        link = nic.link
        d = nic.driver
        drv = (
            f"{d.driver} {d.version}  firmware {d.firmware or '-'}  bus {d.bus_info or '-'}"
            if not isinstance(d, Unavailable)
            else f"{nic.driver_name} ({d.reason})"
        )
        t.add_row("interface", Text(printable(f"{link.ifname}  {drv}", 1000)))
        place = nic.placement
        if place.vendor or place.model:
            model = " ".join(x for x in (place.vendor, place.model) if x)
            t.add_row("model", Text(printable(model, 1000)))
        speed = link.speed_mbps
        speed_s = f"{speed} Mb/s" if isinstance(speed, int) else str(speed)
        carrier = {True: "carrier up", False: "NO CARRIER", None: "carrier ?"}[link.carrier]
        # A refusal names itself ("duplex: not reported"); a value needs its label.
        duplex = link.duplex if isinstance(link.duplex, Unavailable) else f"duplex {link.duplex}"
        t.add_row("link", f"{link.operstate}  {carrier}  {speed_s}  {_v(duplex)}")
        t.add_row(
            "device",
            f"mtu {link.mtu} (min {link.min_mtu or '?'}, max {link.max_mtu or '?'})  "
            f"txqueuelen {link.txqlen}  queues rx {link.num_rx_queues} tx {link.num_tx_queues}  "
            f"numa node {nic.placement.numa_node if nic.placement.numa_node is not None else '-'}"
            f"  local cpus {_v(nic.placement.local_cpus)}",
        )
        if rates is not None and rates.link:
            r = rates.link
            missed = r.get("rx_missed_errors", 0)  # no rx descriptor free: a ring-size signal
            t.add_row(
                "traffic",
                f"rx {_rate(r.get('rx_bytes', 0) * 8)}b/s {_rate(r.get('rx_packets', 0))}p/s  "
                f"tx {_rate(r.get('tx_bytes', 0) * 8)}b/s {_rate(r.get('tx_packets', 0))}p/s  "
                f"drops rx {_rate(r.get('rx_dropped', 0))}/s tx {_rate(r.get('tx_dropped', 0))}/s"
                + (f"  missed {_rate(missed)}/s" if missed else ""),
            )
    return t


def _cpu_table(snap: Snapshot, rates: Rates) -> Table:
    local = snap.nic.placement.local_cpus if snap.nic else None
    t = Table(
        title="CPUs (mpstat -P ALL): % of time, then events per second",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1, 0, 0),
    )
    show_iow = any(c.iowait >= 0.05 for c in rates.cpus.values())
    show_steal = any(c.steal >= 0.05 for c in rates.cpus.values())
    show_guest = any(c.guest + c.gnice >= 0.05 for c in rates.cpus.values())
    show_node = len(snap.host.topology.nodes) > 1
    # mpstat's nice column always: without it the rows do not add up to 100.
    cols = ["cpu"] + (["node"] if show_node else []) + ["usr", "nice", "sys", "irq", "soft"]
    cols += ["iowt"] if show_iow else []
    cols += ["steal"] if show_steal else []
    cols += ["guest"] if show_guest else []
    cols += ["idle", "intr", "netrx", "nettx", "drop", "sqz"]
    for c in cols:
        t.add_column(c, justify="right")
    node_of = {c.cpu: c.node for c in snap.host.topology.cpus}
    for cpu in snap.host.topology.order():
        r = rates.cpus.get(cpu)
        mark = "*" if local and cpu in local else ""
        if r is None:
            t.add_row(f"{cpu}{mark}", "", Text("offline", style="dim"))
            continue
        node = node_of.get(cpu)
        row = [f"{cpu}{mark}"] + ([str(node) if node is not None else "-"] if show_node else [])
        row += [
            f"{r.usr:.1f}",
            f"{r.nice:.1f}",
            f"{r.sys:.1f}",
            f"{r.irq:.1f}",
            f"{r.soft:.1f}",
        ]
        row += [f"{r.iowait:.1f}"] if show_iow else []
        row += [f"{r.steal:.1f}"] if show_steal else []
        row += [f"{r.guest + r.gnice:.1f}"] if show_guest else []
        row += [
            f"{r.idle:.1f}",
            _rate(r.intr),
            _rate(r.net_rx),
            _rate(r.net_tx),
            _rate(r.drops),
            _rate(r.squeezes),
        ]
        style = "bold red" if r.busy >= 90 else ("yellow" if r.busy >= 50 else "")
        t.add_row(*row, style=style)
    if local:
        t.caption = "* CPU local to the NIC"
    return t


def _irq_table(nic: NicState, rates: Rates | None) -> Table:
    t = Table(
        title=f"IRQs of {nic.link.ifname} (/proc/interrupts)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for c in ("queue", "irq", "rate/s", "busiest CPUs", "affinity", "effective", "node"):
        t.add_column(c, justify="right" if c in ("irq", "rate/s") else "left")
    for q in nic.irqs:
        aff = nic.irq_affinity.get(q.irq)
        r = rates.irqs.get(q.irq) if rates else None
        top = ""
        if r is not None and r.per_cpu:
            best = sorted(r.per_cpu.items(), key=lambda kv: -kv[1])[:3]
            top = " ".join(f"cpu{c}:{_rate(v)}" for c, v in best)
        label = q.kind + (f"-{q.index}" if q.index is not None else "")
        t.add_row(
            label,
            q.irq,
            _rate(r.total) if r else "-",
            top,
            _v(aff.smp_affinity) if aff else "-",
            _v(aff.effective) if aff else "-",
            str(aff.node) if aff and aff.node is not None else "-",
        )
    if not nic.irqs:
        t.add_row("(none: this device has no IRQs of its own)", "", "", "", "", "", "")
    return t


def _group(title: str, value: Any) -> Text:
    """One line per ethtool group: "rings: rx 256/4096  tx 256/4096" (current/max)."""
    line = Text(f"{title}: ", style="bold")
    if isinstance(value, Unavailable):
        # reasons already name the group ("pause: not supported by veth")
        return Text(f"{value.reason} ({title.split(' ', 1)[1].strip('()')})", style="dim italic")
    if isinstance(value, Coalesce):
        pairs = [f"{k} {v}" for k, v in value.params]
        return line.append("  ".join(pairs) if pairs else "no parameters reported")
    ordered = [f.name for f in dataclasses.fields(value)]
    names = set(ordered)
    parts = []
    for name in (n for n in ordered if not n.endswith("_max")):
        cur = getattr(value, name)
        if isinstance(cur, bool):
            parts.append(f"{name} {'on' if cur else 'off'}")
        elif f"{name}_max" in names:
            top = getattr(value, name + "_max")
            if cur == 0 and top == 0:
                continue  # a ring or channel kind the device does not have (ethtool: n/a)
            parts.append(f"{name.replace('_', '-')} {cur}/{top}")
        else:
            parts.append(f"{name.replace('_', '-')} {cur}")
    if any(f"{n}_max" in names for n in names):
        parts.append("(current/max)")
    return line.append("  ".join(parts))


def _features(nic: NicState) -> list[Text | Columns]:
    """Changeable features in full; fixed ones folded to those stuck on, as a tuner needs."""
    if isinstance(nic.features, Unavailable):
        return [Text(f"offloads: {nic.features.reason}", style="dim italic")]
    cells = []
    for f in nic.features:
        if f.fixed:
            continue
        cell = Text(f"{f.name} ")
        cell.append("on" if f.active else "off", style="green" if f.active else "red")
        if f.requested != f.active:  # ethtool's "[requested on]": the kernel overrode a wish
            cell.append(f" [requested {'on' if f.requested else 'off'}]", style="yellow")
        cells.append(cell)
    fixed_on = [f.name for f in nic.features if f.fixed and f.active]
    fixed_off = sum(1 for f in nic.features if f.fixed and not f.active)
    out: list[Text | Columns] = [
        Text(f"offloads (ethtool -k): {len(cells)} changeable", style="bold"),
        Columns(cells, column_first=True, padding=(0, 2)),
    ]
    if fixed_on:
        out.append(Text("fixed on: " + ", ".join(fixed_on), style="dim"))
    out.append(Text(f"fixed off: {fixed_off} more (all in --json)", style="dim"))
    return out


def _queues(nic: NicState) -> Table:
    t = Table(
        title="RPS / XPS per queue", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False
    )
    t.add_column("queue")
    t.add_column("cpus")
    t.add_column("rps_flow_cnt", justify="right")
    for q in nic.queues:
        t.add_row(q.name, _v(q.cpus), _v(q.rps_flow_cnt))
    return t


def _rfs(snap: Snapshot, nic: NicState) -> Text:
    """RFS and aRFS in one line (core/rfs.py): both tables, and the ntuple filters."""
    from tuitune.core.rfs import ENTRIES_KEY, rfs_of

    raw = next((s.value for s in snap.host.sysctls if s.key == ENTRIES_KEY), None)
    entries = int(raw) if isinstance(raw, str) and raw.strip().isdigit() else None
    rfs = rfs_of(entries, nic.queues, nic.features)
    return Text(rfs.line(), style="dim" if rfs.state in ("off", "unknown") else "")


def _sysctls(snap: Snapshot) -> Table:
    t = Table(
        title="sysctls (scope: per network namespace, or the whole host)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    t.add_column("key / what it does", no_wrap=False, ratio=3)
    t.add_column("value", ratio=1)
    t.add_column("scope", no_wrap=True)
    for sv in snap.host.sysctls:
        e = catalog.entry(sv.key)
        cell = Text(sv.key, overflow="fold")
        cell.append("\n" + e.summary, style="dim")
        value = _v(sv.value)
        if sv.note:
            value.append(f" ({sv.note})", style="yellow")
        t.add_row(cell, value, e.scope)
    return t


def print_show(
    snap: Snapshot,
    rates: Rates | None,
    console: Console | None = None,
    processes: Sequence[NicProcess] | None = None,
    seconds: float = 0.0,
    platform: Platform | None = None,
    queues: QueueRates | None = None,
    rss: RssState | None = None,
    qdiscs: tuple[Qdisc, ...] | Unavailable | None = None,
    connections: tuple[Connection, ...] | Unavailable | None = None,
    live: bool | None = None,
) -> None:
    """The whole state; `processes` (None: not read) over `seconds` of CPU use; `platform`
    (None: not read) as the Host view's rows; `live` (default: whether there are rates) says
    the processes were read on this machine."""
    con = console or Console()

    def out(renderable: RenderableType) -> None:
        con.print(Net(renderable))  # the last net: nothing hidden reaches the terminal raw

    out(_header(snap, rates))
    if rates is not None:
        out(_cpu_table(snap, rates))
    else:
        out(Text("rates: none (a recorded tree holds one sample)", style="dim"))
    nic = snap.nic
    if nic is not None:
        out(_irq_table(nic, rates))
        if queues is not None:
            from tuitune.report.queues import queues_table

            out(queues_table(nic, queues, rates))
        if rss is not None:
            from tuitune.report.queues import contexts_text, ntuple_text, rss_table

            out(rss_table(rss, queues))
            out(ntuple_text(rss))
            if (ctx := contexts_text(rss)) is not None:
                out(ctx)
        if qdiscs is not None:
            from tuitune.report.queues import qdisc_text

            out(qdisc_text(qdiscs))
        if connections is not None:
            from tuitune.report.queues import connections_table

            out(connections_table(connections, nic.link.ifname))
        for part in _features(nic):
            out(part)
        groups = (
            ("rings (ethtool -g)", nic.rings),
            ("channels (ethtool -l)", nic.channels),
            ("coalescing (ethtool -c)", nic.coalesce),
            ("pause (ethtool -a)", nic.pause),
        )
        for title, value in groups:
            out(_group(title, value))
        out(_queues(nic))
        out(_rfs(snap, nic))
        if processes is not None:
            from tuitune.report.procs import processes_table

            # A recorded tree has no passwd of its own (a capture's rates are its recording's).
            here = rates is not None if live is None else live
            out(processes_table(nic.link.ifname, processes, seconds=seconds, live=here))
        stats = nic.driver_stats
        if isinstance(stats, Unavailable):
            out(Text(f"driver statistics: {stats.reason}", style="dim italic"))
        else:
            nonzero = [Text(printable(f"{k} {v}")) for k, v in stats if v]
            out(
                Text(
                    f"driver statistics (ethtool -S): {len(nonzero)} non-zero of {len(stats)}",
                    style="bold",
                )
            )
            out(Columns(nonzero, column_first=True, padding=(0, 2)))
    out(_sysctls(snap))
    if platform is not None:
        from tuitune.report.platform import platform_table

        out(platform_table(snap, platform))
