"""`tuitune show`: the per-queue table (a queue, its IRQ, its CPU, its rates: one row)."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from tuitune.core.host.conns import Connection
from tuitune.core.host.qdisc import Qdisc, tree_text
from tuitune.core.host.queuestats import QueueRates
from tuitune.core.host.rss import RssState, table_vs_traffic
from tuitune.core.procs.model import printable
from tuitune.core.queueview import nic_queue_rows
from tuitune.core.units import bitrate, rate, size
from tuitune.core.values import Unavailable
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.snapshot import NicState


def _r(x: float | None) -> str:
    return "-" if x is None else rate(x, whole=True)


def _b(x: float | None) -> str:
    return "-" if x is None else size(x)


def queues_table(nic: NicState, qr: QueueRates, rates: Rates | None) -> Table | Text:
    """Per-queue rates; a driver whose names no scheme knows gets its raw rises instead."""
    rows = nic_queue_rows(nic.irqs, qr, rates)
    if not rows:
        if qr.unknown:
            # Driver-chosen names: escaped like any string from outside (core/procs/model.py).
            shown = ", ".join(f"{printable(k, 64)} +{v}" for k, v in list(qr.unknown.items())[:12])
            return Text(
                f"per-queue counters: {nic.driver_name}'s ethtool -S names are not known here; "
                f"what rose in {qr.seconds:.1f} s: {shown}",
                style="dim",
            )
        return Text("per-queue counters: none in ethtool -S", style="dim italic")
    t = Table(
        title=f"queues of {nic.link.ifname} ({qr.source}, per second over {qr.seconds:.1f} s)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for c in ("queue", "irq", "cpu", "rx pkt", "rx B", "tx pkt", "tx B", "drops", "errors"):
        t.add_column(c, justify="left" if c in ("queue", "irq") else "right")
    for r in rows:
        t.add_row(
            str(r.queue),
            "/".join(r.irqs) or "-",
            "-" if r.cpu is None else str(r.cpu),
            _r(r.rx.get("packets")),
            _b(r.rx.get("bytes")),
            _r(r.tx.get("packets")),
            _b(r.tx.get("bytes")),
            _r(r.drops),
            _r(r.errors),
            style="red" if r.drops > 0 else None,
        )
    if qr.nic_drops:
        t.caption = "NIC-wide drops/s: " + ", ".join(
            f"{k} {_r(v)}" for k, v in qr.nic_drops.items()
        )
    return t


def rss_table(st: RssState, qr: QueueRates | None) -> Table | Text:
    """Where the table sends flows beside where the packets went: slots per queue, and each
    queue's share of slots against its share of the received packets."""
    hashing = "  ".join(f"{k} {v or '-'}" for k, v in st.flow_hash.items())
    fields = f"hashed on (ethtool -n rx-flow-hash): {hashing}" if hashing else ""
    t = st.table
    if t is None:
        return Text(f"{st.why or 'RSS: not read'}" + (f"; {fields}" if fields else ""), style="dim")
    packets = (
        {r.queue: r.per_s.get("packets", 0.0) for r in qr.queues if r.direction == "rx"}
        if qr
        else {}
    )
    rows = table_vs_traffic(t, packets, range(t.rings) if t.rings else None)
    out = Table(
        title=(
            f"RSS (ethtool -x): {len(t.indir)} slots, {t.hfunc or 'hash ?'}, key {len(t.key)} bytes"
        ),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        caption=fields or None,
        caption_justify="left",
    )
    for c in ("rx queue", "slots", "of table", "of packets"):
        out.add_column(c, justify="left" if c == "rx queue" else "right")
    slots = t.slots_per_queue()
    for q, table_share, pkt_share in rows:
        out.add_row(
            str(q),
            str(slots.get(q, 0)),
            f"{table_share * 100:.0f} %",
            f"{pkt_share * 100:.0f} %" if packets else "-",
            style="red" if slots.get(q, 0) == 0 else None,
        )
    return out


def contexts_text(st: RssState) -> Text | None:
    """The additional RSS contexts (`ethtool -x IF context N`), read only: each one's table in
    the journal's words and its slots per queue, and why the list may not be whole (a kernel
    before 6.12 cannot list them: only those ntuple rules name are read). None: nothing to
    say (no table, or the kernel listed none)."""
    if not st.contexts and not st.contexts_why:
        return None
    line = Text("additional RSS contexts (ethtool -x context N, read only):", style="bold")
    for c in st.contexts:
        t = c.table
        line.append("\n  ")
        if t is None:
            line.append(printable(c.why or f"context {c.id}: not read", 200), style="dim")
            continue
        per = ", ".join(f"q{q} {n}" for q, n in t.slots_per_queue().items())
        text = f"context {c.id}: {len(t.indir)} slots, {c.setting}; slots per queue: {per}"
        line.append(printable(text, 400), style="")
    if st.contexts_why:
        line.append("\n  " + printable(st.contexts_why, 200), style="dim")
    elif not st.contexts:
        line.append("\n  none", style="dim")
    return line


def _rule_context(rule: str, st: RssState) -> str:
    """A rule steering into an RSS context gets that context's table beside it."""
    _, found, rest = rule.partition("rss context ")
    ident = rest.split(",", 1)[0].split()[0] if found and rest.split() else ""
    for c in st.contexts:
        if ident == str(c.id):
            return f"  [context {c.id}: {c.setting or 'not read'}]"
    return f"  [context {ident}: not read]" if ident else ""


def ntuple_text(st: RssState) -> Text:
    """The ntuple rules (`ethtool -n`) by location, as `ethtool -N` words; a rule into an
    RSS context with that context's table."""
    if st.rules is None:
        return Text("ntuple rules: none readable (no ntuple table, or filtering off)", style="dim")
    if not st.rules:
        return Text("ntuple rules (ethtool -n): none", style="dim")
    line = Text("ntuple rules (ethtool -n):", style="bold")
    for loc, rule in st.rules.items():
        line.append(f"\n  loc {loc}: {printable(rule + _rule_context(rule, st), 260)}", style="")
    return line


def qdisc_text(qs: tuple[Qdisc, ...] | Unavailable) -> Text:
    """The qdisc tree in one line per qdisc (a mq's children folded when alike)."""
    if isinstance(qs, Unavailable):
        return Text(f"qdisc: {qs.reason}", style="dim italic")
    line = Text("qdisc (tc qdisc show): ", style="bold")
    if not qs:
        return line.append("none (noqueue)")
    children = [q for q in qs if q.parent != "root"]
    kinds = {q.kind for q in children}
    if len(children) > 4 and len(kinds) == 1:
        roots = tree_text(q for q in qs if q.parent == "root")
        paced = " (pacing)" if children[0].paces else ""
        head = f"{roots}; {len(children)} x {children[0].kind}{paced}: "
        return line.append(printable(head + tree_text(children[:1]), 400))
    return line.append(printable(tree_text(qs), 400))


def connections_table(conns: tuple[Connection, ...] | Unavailable, ifname: str) -> Table | Text:
    """`ss -ti` for the interface's addresses: what each connection's sender is doing."""
    if isinstance(conns, Unavailable):
        return Text(f"connections: {conns.reason}", style="dim italic")
    if not conns:
        return Text(f"connections on {ifname}: no established TCP connection", style="dim")
    t = Table(
        title=f"TCP connections on {ifname}'s addresses (inet_diag)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    for title in ("local", "remote", "cc", "cwnd", "rtt ms", "retr", "pacing", "deliv", "mss",
                  "sack", "wscale"):  # fmt: skip
        t.add_column(title, justify="left" if title in ("local", "remote", "cc") else "right")
    for c in conns:
        t.add_row(
            f"{c.local}:{c.lport}",
            f"{c.remote}:{c.rport}",
            Text(printable(c.cc, 16)) if c.cc else "-",
            "-" if c.cwnd is None else str(c.cwnd),
            "-" if c.rtt_ms is None else f"{c.rtt_ms:.2f}",
            "-" if c.retrans is None else str(c.retrans),
            "-" if c.pacing_bps is None else bitrate(c.pacing_bps / 8),
            "-" if c.delivery_bps is None else bitrate(c.delivery_bps / 8),
            "-" if c.mss is None else str(c.mss),
            "-" if c.sack is None else ("on" if c.sack else "off"),
            "off" if c.wscale is None else f"{c.wscale[0]},{c.wscale[1]}",
            style="yellow" if c.wscale_off else None,
        )
    return t
