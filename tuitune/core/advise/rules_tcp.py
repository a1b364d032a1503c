"""Rules about TCP: buffers against the bandwidth-delay product, and the TCP options whose
advice differs between a LAN and a WAN."""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.session.settings import Key

MIB = 1 << 20

_LOFAR = SourceRef(
    "lofar-wan",
    "10 Gb/s at 3.77 ms: buffer = bandwidth x RTT = 4,712,500 bytes; rmem/wmem_max and "
    "the third tcp_rmem/tcp_wmem value set to 10,000,000; 240 -> 396 Mb/s with one end tuned, "
    "5.44 Gb/s over 10 s with both (its tcp_mem was written in bytes: that file counts pages)",
)
_ESNET = SourceRef(
    "esnet-100g", "48.6 ms: rmem_max/wmem_max 64 MiB, nuttcp windows of 50 MB per stream"
)


def bdp_bytes(rate_gbits: float, rtt_ms: float) -> int:
    """The bandwidth-delay product: bytes in flight on a full path."""
    return int(rate_gbits * 1e9 / 8 * rtt_ms / 1000)


def buffer_for(bdp: int) -> int:
    """The next power of two of at least one MiB: ESnet's 64 MiB for 10 Gb/s x 48.6 ms
    (60.75 MB) is exactly that, and it leaves LOFAR's "a bit more than measured"."""
    size = MIB
    while size < bdp:
        size *= 2
    return size


def buffers_below_bdp(f: Facts) -> Iterator[Outcome]:
    rule = "buffers-below-bdp"
    ctx = f.context
    if ctx.rate_gbits is None or ctx.rtt_ms is None:
        if ctx.kind == "wan" or ctx.peer is not None:
            yield Note(rule, "needs the path's rate and RTT: --rate GBITS, and --rtt MS or --peer")
        return
    bdp = bdp_bytes(ctx.rate_gbits, ctx.rtt_ms)
    want = buffer_for(bdp)
    evidence = [f"{ctx.rate_gbits:g} Gb/s x {ctx.rtt_ms:g} ms = {bdp:,} bytes in flight"]
    if ctx.peer is not None and ctx.peer.rtt_ms == ctx.rtt_ms:
        evidence.append(ctx.peer.evidence())
    change: list[Change] = []
    low = []
    for key in ("net.core.rmem_max", "net.core.wmem_max"):
        now = f.sysctl_ints(key)
        if now and now[0] < bdp:
            low.append(f"{key} = {now[0]:,}")
            change.append(Change(Key.sysctl(key), str(want)))
    for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
        now = f.sysctl_ints(key)
        if now and len(now) == 3 and now[2] < bdp:
            low.append(f"{key} max = {now[2]:,}")
            change.append(Change(Key.sysctl(key), f"{now[0]} {now[1]} {want}"))
    mem = f.sysctl_ints("net.ipv4.tcp_mem")
    if mem and len(mem) == 3 and mem[2] * ctx.page_size < bdp:
        pages = -(-want // ctx.page_size)
        low.append(f"net.ipv4.tcp_mem max = {mem[2]:,} pages ({mem[2] * ctx.page_size:,} bytes)")
        change.append(Change(Key.sysctl("net.ipv4.tcp_mem"), f"{mem[0]} {mem[1]} {pages}"))
    if not low:
        return
    evidence.append("below it: " + "; ".join(low) + " (/proc/sys)")
    yield Finding(
        id=rule,
        severity="bottleneck" if ctx.kind == "wan" else "risk",
        title=f"socket buffers below the bandwidth-delay product ({bdp / MIB:.1f} MiB): one "
        "TCP stream cannot fill the path",
        evidence=tuple(evidence),
        change=tuple(change),
        sources=(_LOFAR, _ESNET),
        context="wan",
    )


def _switch(f: Facts, rule: str, key: str, bad: str, want: str) -> Change | None:
    value = f.sysctl(key)
    return Change(Key.sysctl(key), want) if value is not None and value.strip() == bad else None


def timestamps_lan(f: Facts) -> Iterator[Outcome]:
    rule = "timestamps-lan"
    change = _switch(f, rule, "net.ipv4.tcp_timestamps", "1", "0")
    if change is None:
        return
    if not f.context.fits("lan"):
        yield Note(rule, "LAN advice only (a WAN keeps timestamps): --context lan to judge it")
        return
    yield Finding(
        id=rule,
        severity="hint",
        title="TCP timestamps on: on a LAN turning them off saved CPU",
        evidence=("net.ipv4.tcp_timestamps = 1 (/proc/sys)",),
        change=(change,),
        sources=(
            SourceRef("nasa-40g", "40 GbE: tcp_timestamps=0 gained 300-400 Mb/s (Table 3)"),
            SourceRef("cern-10g", "its improved kernel settings set tcp_timestamps=0"),
        ),
        context="lan",
    )


def window_scaling_off(f: Facts) -> Iterator[Outcome]:
    rule = "window-scaling-off"
    change = _switch(f, rule, "net.ipv4.tcp_window_scaling", "0", "1")
    if change is None:
        return
    if f.context.fits("lan", "latency"):
        yield Note(rule, "window scaling is off; on a LAN 64 KiB may do: --context wan judges it")
        return
    yield Finding(
        id=rule,
        severity="bottleneck" if f.context.kind == "wan" else "risk",
        title="TCP window scaling off: no window can exceed 64 KiB",
        evidence=("net.ipv4.tcp_window_scaling = 0 (/proc/sys)",),
        change=(change,),
        sources=(
            SourceRef(
                "redhat-10g",
                "10 GbE, netperf for 30 s: window scaling off 2106.40 Mb/s, on 5054.68 Mb/s",
            ),
            _LOFAR,
        ),
        context="wan",
    )


def sack_off(f: Facts) -> Iterator[Outcome]:
    rule = "sack-off"
    change = _switch(f, rule, "net.ipv4.tcp_sack", "0", "1")
    if change is None:
        return
    if not f.context.fits("wan"):
        yield Note(rule, "SACK is off; on a LAN that measured negligible (NASA Table 3)")
        return
    yield Finding(
        id=rule,
        severity="risk",
        title="TCP SACK off: a WAN loss costs a whole window to recover",
        evidence=("net.ipv4.tcp_sack = 0 (/proc/sys)",),
        change=(change,),
        sources=(
            SourceRef("nasa-40g", "tcp_sack=0 negligible (Table 3); WAN needs loss handling"),
            SourceRef("cern-10g", "its improved settings turned SACK off, back to back"),
        ),
        context="wan",
    )
