"""Rules about the device: drops in the NIC, offloads off, coalescing off, MTU, txqueuelen."""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise import thresholds as t
from tuitune.core.advise.facts import Facts, Outcome, rate
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.host.ethtool import Coalesce, Feature, Rings, short_name
from tuitune.core.session.settings import Key

_NOT_READ = "{what} not read here (a recorded tree without ethtool state, or not supported)"

# Link counters (stats64) that say the NIC or the driver lost a received packet.
LINK_DROPS = ("rx_missed_errors", "rx_fifo_errors", "rx_dropped", "rx_over_errors")
# ethtool -S names that say the same, as drivers spell them (igb rx_no_buffer_count, mlx5
# rx_out_of_buffer, ixgbe rx_missed_errors, i40e rx_dropped...).
_DRIVER_DROP_WORDS = ("drop", "missed", "no_buf", "nobuf", "out_of_buffer", "fifo")

# The `ethtool -K` groups NASA's Table 2 switched off, and what it measured at MTU 1500 / 9000.
OFFLOADS: dict[str, str] = {
    "tso": "TSO off: 12.9 Gb/s at MTU 1500 instead of 15.1; 19.0 at 9000 (no change)",
    "gso": "TSO off: 12.9 Gb/s at MTU 1500 instead of 15.1; GSO itself is not a row of its own "
    "(its last row, 12.8 Gb/s, is labelled both Generic Segmentation Offload and GRO)",
    "gro": "the row labelled Generic Segmentation Offload (GRO): 12.8 Gb/s at MTU 1500 instead "
    "of 15.1; 19.1 at 9000",
    "sg": "SG off (takes TSO with it): 10.3 Gb/s at MTU 1500, 70 Mb/s at 9000",
    "tx": "tx checksumming off (takes SG and TSO): 10.0 Gb/s at MTU 1500, 50 Mb/s at 9000",
    "rx": "rx checksumming off (takes GRO): 7.5 Gb/s at MTU 1500, 17.3 at 9000",
}
# The kernel features that carry each group: a group is "off" when every one of these the
# device can change is off. Other members do not decide it (tx-tcp-mangleid-segmentation is
# off on most devices by default and is not what Table 2 switched), but the fix turns them
# back on with the group, as `ethtool -K IF tso on` does. The long names are the
# pre-netlink `ethtool -k` spellings older captures show.
PRINCIPAL: dict[str, tuple[str, ...]] = {
    "tso": ("tx-tcp-segmentation", "tx-tcp6-segmentation", "tcp-segmentation-offload"),
    "gso": ("tx-generic-segmentation", "generic-segmentation-offload"),
    "gro": ("rx-gro", "generic-receive-offload"),
    "sg": ("tx-scatter-gather", "scatter-gather"),
    "tx": ("tx-checksum-ipv4", "tx-checksum-ip-generic", "tx-checksum-ipv6", "tx-checksumming"),
    "rx": ("rx-checksum", "rx-checksumming"),
}


SEND_SIDE = ("tso", "gso", "sg", "tx")
# Link kinds whose reported speed is a number the driver makes up (veth says 10000).
VIRTUAL = frozenset({"veth", "tun", "dummy", "bridge", "macvlan", "ipvlan", "vxlan"})


def nic_rx_drops(f: Facts) -> Iterator[Outcome]:
    rule = "nic-rx-drops"
    w = f.window
    if w.total is None or w.total.interval <= 0 or f.nic is None:
        yield Note(rule, "no window: sample at least two seconds")
        return
    link = {k: v for k, v in w.total.link.items() if k in LINK_DROPS and v > 0}
    driver = {
        k: v
        for k, v in w.driver_rises().items()
        if k.startswith("rx") and any(word in k for word in _DRIVER_DROP_WORDS)
    }
    if sum(link.values()) <= t.NIC_DROPS_PER_S and not driver:
        return
    evidence = []
    if link:
        evidence.append(
            ", ".join(f"{k} {rate(v)}" for k, v in link.items())
            + f" (/sys/class/net/{f.ifname}/statistics)"
        )
    if driver:
        shown = ", ".join(f"{k} +{v}" for k, v in list(driver.items())[:4])
        evidence.append(f"{shown} in {w.seconds:.0f} s (ethtool -S)")
    rings = f.nic.rings
    change: tuple[Change, ...] = ()
    ctx = f.context.kind
    if isinstance(rings, Rings):
        evidence.append(f"rx ring {rings.rx} of at most {rings.rx_max} (ethtool -g)")
        if ctx == "wan" and rings.rx < rings.rx_max:
            change = (Change(Key.field(f.ifname, "ring", "rx"), str(rings.rx_max)),)
    if ctx == "wan":
        title = f"{f.ifname} drops received packets: a larger rx ring buffers the WAN's bursts"
    else:
        title = (
            f"{f.ifname} drops received packets: the CPU side first (IRQ placement, softirq "
            "load); a larger ring is WAN advice"
        )
    yield Finding(
        id=rule,
        severity="bottleneck",
        title=title,
        evidence=tuple(evidence),
        change=change,
        sources=(
            SourceRef(
                "nasa-40g",
                "the smallest ring was fastest, 16 slots 21.0 Gb/s vs 18.7 at 1024 and "
                "18.1 at 4096-8192 (Table 5); on a WAN it prefers larger rings",
            ),
            SourceRef("cern-10g", "2048 rx/tx descriptors instead of 1024/256 changed a few %"),
        ),
        context="wan" if ctx == "wan" else "any",
    )


def offload_disabled(f: Facts) -> Iterator[Outcome]:
    rule = "offload-disabled"
    nic = f.nic
    if nic is None or not isinstance(nic.features, tuple):
        yield Note(rule, _NOT_READ.format(what="offloads (ethtool -k)"))
        return
    off: dict[str, list[Feature]] = {}
    restore: list[Feature] = []
    # A veth's peer hands it packets already in large GSO segments: its receive offloads (GRO,
    # rx checksumming, off by default) save nothing. Its send side does matter: tso, gso, sg
    # and tx off took a lab veth from 24.5 to 6.8 Gb/s with iperf3 (measured for tuitune).
    groups = SEND_SIDE if nic.link.kind in VIRTUAL else tuple(PRINCIPAL)
    for group, names in PRINCIPAL.items():
        if group not in groups:
            continue
        members = [x for x in nic.features if x.name in names and not x.fixed]
        if members and not any(x.active or x.requested for x in members):
            off[group] = members
            # The fix is `ethtool -K IF tso on`: every changeable member of the short name
            # back on (tx-checksum-sctp, tx-tcp-ecn-segmentation...), not only the principal
            # ones, or the group stays half off and an export would keep that at boot.
            restore += [
                x
                for x in nic.features
                if (x in members or short_name(x.name) == group)
                and not x.fixed
                and not x.requested
                and x not in restore
            ]
    if not off:
        return
    change = tuple(Change(Key.feature(f.ifname, x.name), "on") for x in restore)
    mtu = nic.link.mtu
    yield Finding(
        id=rule,
        severity="risk",
        title=f"{f.ifname} has {', '.join(off)} off: every packet costs the CPU more",
        evidence=(
            "off and changeable: "
            + "; ".join(f"{g} ({', '.join(x.name for x in fs)})" for g, fs in off.items())
            + " (ethtool -k)",
            f"MTU {mtu}: NASA measured the loss largest at 1500",
        ),
        change=change,
        sources=tuple(SourceRef("nasa-40g", f"{OFFLOADS[g]} (Table 2)") for g in off),
        context="any",
    )


def coalesce_off(f: Facts) -> Iterator[Outcome]:
    rule = "coalesce-off"
    nic = f.nic
    if nic is None or not isinstance(nic.coalesce, Coalesce):
        yield Note(rule, _NOT_READ.format(what="coalescing (ethtool -c)"))
        return
    if f.context.kind == "latency":
        yield Note(rule, "latency context: no coalescing is what latency wants (Red Hat)")
        return
    c = nic.coalesce
    adaptive, usecs = c.get("adaptive-rx"), c.get("rx-usecs")
    if adaptive != 0 or (usecs or 0) > 0:
        return
    w = f.window
    if not w.loaded or w.total is None:
        yield Note(rule, "adaptive-rx and rx-usecs are off; no NIC traffic to judge the rate")
        return
    hot = {
        q.irq: w.total.irqs[q.irq].total
        for q in f.queue_irqs()
        if q.irq in w.total.irqs and w.total.irqs[q.irq].total >= t.COALESCE_IRQ_PER_QUEUE
    }
    if not hot:
        return
    if adaptive is not None and f.context.kind != "wan":
        change = (Change(Key.field(f.ifname, "coalesce", "adaptive-rx"), "on"),)
    else:
        value = str(t.ESNET_RX_USECS)
        change = (Change(Key.field(f.ifname, "coalesce", "rx-usecs"), value),)
    yield Finding(
        id=rule,
        severity="risk",
        title=f"{f.ifname} interrupts for every packet: coalescing is off at "
        f"{rate(max(hot.values()))} per queue",
        evidence=(
            f"adaptive-rx off, rx-usecs {usecs or 0} (ethtool -c)",
            ", ".join(f"IRQ {i} {rate(v)}" for i, v in list(hot.items())[:4])
            + " (/proc/interrupts)",
        ),
        change=change,
        sources=(
            SourceRef(
                "nasa-40g",
                "adaptive-rx off gave 110-112 Mb/s against 21.0 Gb/s with it on, at "
                "rx-usecs 16 / rx-frames 88 (Table 6)",
            ),
            SourceRef("esnet-100g", "rx-usecs 100 on its 10G NICs"),
            SourceRef("redhat-10g", "a low rx-usecs is the setting for latency"),
        ),
        context="any",
    )


def mtu_small(f: Facts) -> Iterator[Outcome]:
    rule = "mtu-small"
    nic = f.nic
    if nic is None:
        return
    link = nic.link
    speed = link.speed_mbps
    if link.kind in VIRTUAL:
        yield Note(rule, f"{f.ifname} is a {link.kind}: its speed is nominal, not judged")
        return
    if not isinstance(speed, int) or speed <= 0:
        yield Note(rule, "link speed unknown (a virtual device or no carrier): not judged")
        return
    if f.context.kind == "latency":
        return
    if speed < t.MTU_LINK_MBPS or link.mtu is None or link.mtu > t.MTU_SMALL:
        return
    if link.max_mtu is not None and link.max_mtu < t.MTU_JUMBO:
        return
    probe = "a don't-fragment probe to the peer (ping -M do -s 8972) must pass first"
    peer = f.context.peer
    if peer is not None and peer.df_ok is False:
        yield Note(rule, f"{peer.df_evidence()}: the path loses even MTU {link.mtu}; fix it first")
        return
    if peer is not None and peer.df_ok:
        probe = f"{peer.df_evidence()}; on trial at 9000, ping -M do -s 8972 {peer.host} first"
    yield Finding(
        id=rule,
        severity="hint",
        title=f"{f.ifname} runs MTU {link.mtu} on a {speed // 1000} Gb/s link: try 9000 on "
        "trial, if every hop and the peer take it",
        evidence=(
            f"MTU {link.mtu}, link {speed} Mb/s, max MTU {link.max_mtu or 'unknown'} (sysfs)",
            probe,
        ),
        change=(Change(Key.mtu(f.ifname), str(t.MTU_JUMBO)),),
        sources=(
            SourceRef(
                "cern-10g",
                "1 stream 127 -> 173 MB/s (default settings) and 275 -> 693 MB/s (tuned) "
                "from MTU 1500 to 9000; but at 4 streams, default settings, 9000 gave 364 MB/s "
                "against 375 at 1500",
            ),
            SourceRef("nasa-40g", "15.1 Gb/s at MTU 1500, 19.1 at 9000 (Table 2)"),
            SourceRef("lofar-wan", "the most important parameter: MTU 1500 -> 9000"),
        ),
        context="any",
        trial=True,
    )


def txqueuelen_wan(f: Facts) -> Iterator[Outcome]:
    rule = "txqueuelen-wan"
    nic = f.nic
    if nic is None or nic.link.txqlen is None:
        return
    if not f.context.fits("wan"):
        if nic.link.txqlen < t.TXQUEUELEN_WAN:
            yield Note(rule, "WAN advice (ESnet); NASA saw no effect on a LAN: --context wan")
        return
    if nic.link.txqlen >= t.TXQUEUELEN_WAN:
        return
    yield Finding(
        id=rule,
        severity="hint",
        title=f"{f.ifname} txqueuelen {nic.link.txqlen}: ESnet used {t.TXQUEUELEN_WAN} on a WAN",
        evidence=(f"txqueuelen {nic.link.txqlen} (sysfs tx_queue_len)",),
        change=(Change(Key.txqueuelen(f.ifname), str(t.TXQUEUELEN_WAN)),),
        sources=(
            SourceRef("esnet-100g", "48.6 ms: its NIC tuning raised txqueuelen to 10000"),
            SourceRef(
                "nasa-40g", "LAN: a longer tx queue than the default 1000 made no difference"
            ),
        ),
        context="wan",
    )
