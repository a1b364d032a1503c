"""`tuitune show` for people: the snapshot as Rich tables (the core stays Rich-free)."""

from __future__ import annotations

import dataclasses
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tuitune.core import catalog
from tuitune.core.cpulist import format_cpulist
from tuitune.core.rates import Rates
from tuitune.core.snapshot import NicState, Snapshot
from tuitune.core.values import Unavailable


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
    if x >= 1e9:
        return f"{x / 1e9:.2f}G"
    if x >= 1e6:
        return f"{x / 1e6:.2f}M"
    if x >= 1e4:
        return f"{x / 1e3:.1f}k"
    return f"{x:.0f}"


def _header(snap: Snapshot, rates: Rates | None) -> Table:
    h, nic = snap.host, snap.nic
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold")
    t.add_column()
    t.add_row(
        "host", f"{h.hostname}  kernel {h.kernel}" + (f"  netns {h.netns}" if h.netns else "")
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
        t.add_row("interface", f"{link.ifname}  {drv}")
        speed = link.speed_mbps
        speed_s = f"{speed} Mb/s" if isinstance(speed, int) else str(speed)
        carrier = {True: "carrier up", False: "NO CARRIER", None: "carrier ?"}[link.carrier]
        t.add_row("link", f"{link.operstate}  {carrier}  {speed_s}  duplex {_v(link.duplex)}")
        t.add_row(
            "device",
            f"mtu {link.mtu} (min {link.min_mtu or '?'}, max {link.max_mtu or '?'})  "
            f"txqueuelen {link.txqlen}  queues rx {link.num_rx_queues} tx {link.num_tx_queues}  "
            f"numa node {nic.placement.numa_node if nic.placement.numa_node is not None else '-'}"
            f"  local cpus {_v(nic.placement.local_cpus)}",
        )
        if rates is not None and rates.link:
            r = rates.link
            t.add_row(
                "traffic",
                f"rx {_rate(r.get('rx_bytes', 0) * 8)}b/s {_rate(r.get('rx_packets', 0))}p/s  "
                f"tx {_rate(r.get('tx_bytes', 0) * 8)}b/s {_rate(r.get('tx_packets', 0))}p/s  "
                f"drops rx {_rate(r.get('rx_dropped', 0))}/s tx {_rate(r.get('tx_dropped', 0))}/s",
            )
    return t


def _cpu_table(snap: Snapshot, rates: Rates) -> Table:
    local = snap.nic.placement.local_cpus if snap.nic else None
    t = Table(title="CPUs (mpstat -P ALL)", title_justify="left")
    show_iow = any(c.iowait >= 0.05 for c in rates.cpus.values())
    show_steal = any(c.steal >= 0.05 for c in rates.cpus.values())
    cols = ["cpu", "node", "%usr", "%sys", "%irq", "%soft"]
    cols += ["%iowait"] if show_iow else []
    cols += ["%steal"] if show_steal else []
    cols += ["%idle", "intr/s", "NET_RX/s", "NET_TX/s", "drops/s", "squeeze/s"]
    for c in cols:
        t.add_column(c, justify="right")
    node_of = {c.cpu: c.node for c in snap.host.topology.cpus}
    for cpu in snap.host.topology.order():
        r = rates.cpus.get(cpu)
        mark = "*" if local and cpu in local else ""
        if r is None:
            t.add_row(f"{cpu}{mark}", "", Text("offline", style="dim"))
            continue
        row = [
            f"{cpu}{mark}",
            str(node_of.get(cpu, "-") if node_of.get(cpu) is not None else "-"),
            f"{r.usr:.1f}",
            f"{r.sys:.1f}",
            f"{r.irq:.1f}",
            f"{r.soft:.1f}",
        ]
        row += [f"{r.iowait:.1f}"] if show_iow else []
        row += [f"{r.steal:.1f}"] if show_steal else []
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
    t = Table(title=f"IRQs of {nic.link.ifname} (/proc/interrupts)", title_justify="left")
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


def _group(title: str, value: Any) -> Table | Text:
    if isinstance(value, Unavailable):
        return Text(f"{title}: {value.reason}", style="dim italic")
    t = Table(title=title, title_justify="left", show_header=False)
    t.add_column("name")
    t.add_column("value", justify="right")
    if dataclasses.is_dataclass(value):
        for f in dataclasses.fields(value):
            t.add_row(f.name.replace("_", "-"), _v(getattr(value, f.name)))
    elif isinstance(value, tuple):
        for name, v in value:
            t.add_row(str(name), _v(v))
    return t


def _features(nic: NicState) -> Table | Text:
    if isinstance(nic.features, Unavailable):
        return Text(f"offloads: {nic.features.reason}", style="dim italic")
    t = Table(title="offloads (ethtool -k)", title_justify="left")
    t.add_column("feature")
    t.add_column("state")
    t.add_column("note")
    for f in nic.features:
        note = []
        if f.fixed:
            note.append("[fixed]")
        if f.requested != f.active:
            note.append(f"[requested {'on' if f.requested else 'off'}]")
        t.add_row(f.name, _v(f.active), " ".join(note), style="dim" if f.fixed else "")
    return t


def _queues(nic: NicState) -> Table:
    t = Table(title="RPS / XPS per queue", title_justify="left")
    t.add_column("queue")
    t.add_column("cpus")
    t.add_column("rps_flow_cnt", justify="right")
    for q in nic.queues:
        t.add_row(q.name, _v(q.cpus), _v(q.rps_flow_cnt))
    return t


def _sysctls(snap: Snapshot) -> Table:
    t = Table(title="sysctls", title_justify="left")
    t.add_column("key")
    t.add_column("value")
    t.add_column("scope")
    t.add_column("what it does")
    for sv in snap.host.sysctls:
        e = catalog.entry(sv.key)
        t.add_row(sv.key, _v(sv.value), e.scope, e.summary)
    return t


def print_show(snap: Snapshot, rates: Rates | None, console: Console | None = None) -> None:
    con = console or Console()
    con.print(_header(snap, rates))
    if rates is not None:
        con.print(_cpu_table(snap, rates))
    else:
        con.print(Text("rates: none (a recorded tree holds one sample)", style="dim"))
    nic = snap.nic
    if nic is not None:
        con.print(_irq_table(nic, rates))
        con.print(_features(nic))
        groups = (
            ("rings (ethtool -g)", nic.rings),
            ("channels (ethtool -l)", nic.channels),
            ("coalescing (ethtool -c)", nic.coalesce),
            ("pause (ethtool -a)", nic.pause),
        )
        for title, value in groups:
            con.print(_group(title, value))
        con.print(_queues(nic))
        stats = nic.driver_stats
        if isinstance(stats, Unavailable):
            con.print(Text(f"driver statistics: {stats.reason}", style="dim italic"))
        else:
            nonzero = [(k, v) for k, v in stats if v]
            st = Table(
                title=f"driver statistics (ethtool -S): {len(nonzero)} non-zero of {len(stats)}",
                title_justify="left",
                show_header=False,
            )
            st.add_column("name")
            st.add_column("value", justify="right")
            for k, v in nonzero:
                st.add_row(k, str(v))
            con.print(st)
    con.print(_sysctls(snap))
