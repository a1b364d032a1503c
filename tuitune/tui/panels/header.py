"""The header: what host and NIC this is, how fast it moves now, and what needs attention."""

from __future__ import annotations

from dataclasses import dataclass

from rich.style import Style
from rich.text import Text

from tuitune.core.host.ethtool import DriverInfo
from tuitune.core.text import printable
from tuitune.core.units import bitrate, duration, rate, size
from tuitune.core.values import Unavailable
from tuitune.core.watch.rates import Rates
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.look.palette import Palette


@dataclass(frozen=True, slots=True)
class HeaderData:
    host: HostState | None
    nic: NicState | None
    ifname: str | None
    rates: Rates | None  # the last tick
    since_baseline: Rates | None
    paused: bool
    interval: float
    cost_ms: float | None  # the last sample's read+compute time; None hides it
    error: str | None
    notice: str | None  # one-off message (theme saved, filter cleared...)
    read_only: str | None = None  # why nothing can be changed, if so
    trial: str | None = None  # the countdown of a trial change
    changes: int = 0  # settings that differ from what tuitune found
    gone: bool = False  # the interface was deleted: waiting for it to come back
    findings: tuple[int, int, int] | None = None  # the Advisor's (bottlenecks, risks, hints)
    recording: str | None = None  # "REC 41.2 KiB" while a recording runs (w stops it)


def _findings(d: HeaderData, p: Palette) -> Text:
    """ "2 bottlenecks, 1 risk (A)": what the Advisor finds in the moving window, so a finding
    that appears or clears is seen without opening anything. Nothing before its first look."""
    t = Text()
    if d.findings is None:
        return t
    parts = [
        (n, word, style)
        for n, word, style in zip(
            d.findings, ("bottleneck", "risk", "hint"), (p.warn, p.section, p.muted), strict=True
        )
        if n
    ]
    if not parts:
        return t.append("no findings (A)  ", style=p.muted)
    for i, (n, word, style) in enumerate(parts):
        t.append(", " if i else "")
        t.append(f"{n} {word}{'s' if n != 1 else ''}", style=style)
    return t.append(" (A)  ", style=p.muted)


def _link_line(d: HeaderData, p: Palette) -> Text:
    t = Text()
    nic = d.nic
    if d.ifname is None:
        t.append("no interface: press ", style=p.muted).append("n", style="bold")
        t.append(" to pick one", style=p.muted)
        return t
    t.append(d.ifname, style="bold")
    if d.gone:
        return t.append("  GONE: the interface was deleted; waiting for it to come back", p.warn)
    if nic is None:
        return t.append("  reading...", style=p.muted)
    drv = nic.driver
    if isinstance(drv, DriverInfo):  # a --root tree's, or a driver's: escaped
        t.append(f"  {printable(drv.driver, 40)}")
        if drv.version:
            t.append(f" {printable(drv.version, 40)}")
        if drv.firmware and drv.firmware not in ("N/A", "n/a"):
            t.append(f" fw {printable(drv.firmware, 60)}")
    else:
        t.append(f"  {printable(nic.driver_name, 40)}")
    speed = nic.link.speed_mbps
    if not isinstance(speed, Unavailable) and speed > 0:
        t.append(f"  {speed // 1000} Gb/s" if speed >= 1000 else f"  {speed} Mb/s")
    if nic.link.carrier is False:
        t.append("  NO CARRIER", style=p.warn)
    else:
        t.append(f"  {nic.link.operstate}")
    node = nic.placement.numa_node
    t.append(f"  NUMA {node}" if node is not None else "  no NUMA node")
    t.append(f"  mtu {nic.link.mtu}")
    return t


def _traffic(d: HeaderData, p: Palette) -> Text:
    t = Text()
    r = d.since_baseline or d.rates
    if r is None or not r.link:
        return t
    label = "avg " if d.since_baseline else ""
    for way in ("rx", "tx"):
        bps = r.link.get(f"{way}_bytes", 0.0)
        pps = r.link.get(f"{way}_packets", 0.0)
        t.append(f"{label}{way} ", style=p.header)
        t.append(f"{bitrate(bps)} {rate(pps)} pps  ")
        if d.since_baseline:  # and what moved since the baseline, in total
            t.append(f"({size(bps * r.interval)}) ", style=p.muted)
    # rx_missed_errors too: the NIC dropped those for want of rx descriptors.
    drops = sum(r.link.get(n, 0.0) for n in ("rx_dropped", "tx_dropped", "rx_missed_errors"))
    if drops:
        t.append(f"drops {rate(drops)}/s  ", style=p.warn)
    return t


def header_text(d: HeaderData, p: Palette) -> Text:
    t = Text(no_wrap=False, overflow="fold")
    t.append("tuitune ", style=p.header)
    if d.host is not None:
        t.append(printable(f"{d.host.hostname}  Linux {d.host.kernel}"))  # a tree's own words
        if d.host.netns:
            t.append(f"  netns {printable(d.host.netns, 130)}", style=p.section)
        t.append(f"  {len(d.host.topology.online)} CPUs")
        if len(d.host.topology.nodes) > 1:
            t.append(f" / {len(d.host.topology.nodes)} nodes")
        if d.read_only:
            t.append(f"  {d.read_only}", style=p.warn)
    if d.recording:  # on the host's line: the rates' line is full at 80 columns
        t.append("  ")
        t.append(f" {d.recording} ", style=p.warn + Style(reverse=True, bold=True))
    t.append("\n")
    t.append_text(_link_line(d, p))
    t.append("\n")
    t.append_text(_traffic(d, p))
    state = Text()
    if d.paused:
        state.append(" PAUSED ", style="reverse bold")
        state.append(" ")
    if d.since_baseline is not None:
        state.append(
            f" BASELINE: deltas over {duration(d.since_baseline.interval)} ",
            style=p.changed + Style(reverse=True),
        )
        state.append(" ")
    state.append_text(_findings(d, p))
    state.append(f"every {d.interval:g}s", style=p.muted)
    if d.cost_ms is not None:
        state.append(f"  read {d.cost_ms:.1f} ms", style=p.muted)
    t.append_text(state)
    host = d.host
    if host is not None and host.irqbalance.running:
        pids = ",".join(str(x) for x in host.irqbalance.pids)
        t.append("\n")
        t.append(
            f" irqbalance is running (pid {pids}): it will undo manual IRQ placement ",
            style=p.warn + Style(reverse=True),
        )
    if d.changes:
        t.append(f"  {d.changes} changed (u: undo, R: revert all)", style=p.changed)
    if d.trial:
        t.append("\n")
        t.append(f" {d.trial} ", style=p.warn + Style(reverse=True))
    if d.error:
        t.append("\n")
        t.append(f" {d.error} ", style=p.warn + Style(reverse=True))
    # The message line is always there (blank between messages): one that came and went
    # moved every panel below it while the user read them (issue 31 item 15).
    t.append("\n")
    if d.notice:
        t.append(d.notice, style=p.section)
    return t
