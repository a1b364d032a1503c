"""Rules about single queues: one ring dropping, one queue taking far more than its share.

They read the per-queue counters of `ethtool -S` at both ends of the window
(core/host/queuestats.py). A NIC whose driver has no per-queue names gives them nothing to
judge: they say so in a note.
"""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome, rate
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.host.ethtool import Channels, Rings
from tuitune.core.host.queuestats import QueueRates, queue_rates
from tuitune.core.host.rss_spec import RssSpecError, parse_rss
from tuitune.core.session.settings import Key

# A queue is "hot" when its share of the received packets is at least this many times its
# share of the indirection table, and at least this much more in absolute terms (two queues
# at 60/40 are not an imbalance worth a finding).
IMBALANCE_FACTOR = 2.0
IMBALANCE_MARGIN = 0.25
IMBALANCE_MIN_PPS = 1000.0  # below this a queue's share is noise (ARP, a ping)

_KERNEL_SCALING = SourceRef(
    "kernel-doc",
    "Documentation/networking/scaling.rst: RSS spreads flows by a hash of their headers "
    "through the indirection table; one flow always lands on one queue (not from the seeds)",
)


def _window_queues(f: Facts) -> QueueRates | None:
    w = f.window
    if w.driver_before is None or w.driver_after is None or w.seconds <= 0:
        return None
    driver = f.nic.driver_name if f.nic is not None else None
    return queue_rates(w.driver_before, w.driver_after, w.seconds, driver)


def queue_ring_drops(f: Facts) -> Iterator[Outcome]:
    rule = "queue-ring-drops"
    qr = _window_queues(f)
    if qr is None or f.nic is None:
        yield Note(rule, "no per-queue window: ethtool -S was not read at both ends")
        return
    dropping = [r for r in qr.queues if r.direction == "rx" and r.per_s.get("drops", 0.0) > 0]
    if not dropping:
        return
    rings = f.nic.rings
    shown = ", ".join(f"rx queue {r.queue} {rate(r.per_s['drops'])}" for r in dropping[:6])
    evidence = [f"{shown} (ethtool -S, over {f.window.seconds:.0f} s)"]
    change: tuple[Change, ...] = ()
    ctx = f.context.kind
    if isinstance(rings, Rings):
        evidence.append(f"rx ring {rings.rx} slots of at most {rings.rx_max} (ethtool -g)")
        if ctx == "wan" and rings.rx < rings.rx_max:
            change = (Change(Key.field(f.ifname, "ring", "rx"), str(rings.rx_max)),)
    else:
        evidence.append("ring size not read (ethtool -g)")
    yield Finding(
        id=rule,
        severity="bottleneck",
        title=(
            f"{f.ifname}: {len(dropping)} rx queue(s) drop on their ring"
            + (": a larger ring buffers the WAN's bursts" if ctx == "wan" else "")
        ),
        evidence=tuple(evidence),
        change=change,
        sources=(
            SourceRef(
                "nasa-40g",
                "ring size matters: on its LAN the smallest ring was fastest (Table 5), and "
                "it prefers larger rings on a WAN",
            ),
        ),
        context="wan" if ctx == "wan" else "any",
    )


def queue_imbalance(f: Facts) -> Iterator[Outcome]:
    rule = "queue-imbalance"
    qr = _window_queues(f)
    if qr is None:
        yield Note(rule, "no per-queue window: ethtool -S was not read at both ends")
        return
    rx = {
        r.queue: r.per_s["packets"]
        for r in qr.queues
        if r.direction == "rx" and "packets" in r.per_s
    }
    total = sum(rx.values())
    if len(rx) < 2 or total <= 0:
        return
    hot, pps = max(rx.items(), key=lambda kv: kv[1])
    share = pps / total
    # The table's share of the hot queue when it was read; else equal over the queues.
    table = f.rss_table()
    slots = table.slots_per_queue() if table is not None else {}
    table_share = slots.get(hot, 0) / len(table.indir) if table else 1.0 / len(rx)
    said = (
        f"its table share: {slots.get(hot, 0)} of {len(table.indir)} slots (ethtool -x)"
        if table
        else f"table share assumed equal over {len(rx)} queues ({f.rss_why()})"
    )
    if (
        pps < IMBALANCE_MIN_PPS
        or share < table_share * IMBALANCE_FACTOR
        or share < table_share + IMBALANCE_MARGIN
    ):
        return
    yield Finding(
        id=rule,
        severity="hint",
        title=(
            f"{f.ifname}: rx queue {hot} takes {share * 100:.0f} % of the packets for "
            f"{table_share * 100:.0f} % of the table: a few big flows, or a hash on too few fields"
        ),
        evidence=(
            f"rx queue {hot} {rate(pps)} of {rate(total)} over {len(rx)} queues (ethtool -S)",
            f"{said}; the hash fields: `ethtool -n {f.ifname} rx-flow-hash tcp4` / udp4 "
            "(sdfn hashes on ports too)",
        ),
        change=(),
        sources=(_KERNEL_SCALING,),
        context="any",
    )


def _rx_queue_count(f: Facts) -> int | None:
    """The rx queues traffic can use: the channels' rx + combined, else the table's rings."""
    ch = f.nic.channels if f.nic is not None else None
    if isinstance(ch, Channels) and (ch.rx or ch.combined):
        return ch.rx + ch.combined
    table = f.rss_table()
    return table.rings if table is not None else None


def rss_uncovered(f: Facts) -> Iterator[Outcome]:
    rule = "rss-uncovered"
    table = f.rss_table()
    if table is None:
        yield Note(rule, f.rss_why())
        return
    n = _rx_queue_count(f)
    missing = table.uncovered(n)
    if not missing:
        return
    shown = ", ".join(str(q) for q in missing[:8]) + (" ..." if len(missing) > 8 else "")
    yield Finding(
        id=rule,
        severity="risk",
        title=(
            f"{f.ifname}: the RSS table sends nothing to {len(missing)} of {n} rx queues "
            "(a channel change the table did not follow?)"
        ),
        evidence=(
            f"rx queues with no slot: {shown} (ethtool -x: {len(table.indir)} slots)",
            f"spread it again: ethtool -X {f.ifname} equal {n}",
        ),
        change=_respread(f.ifname, len(table.indir), n, table.rings),
        sources=(_KERNEL_SCALING,),
        context="any",
    )


def _respread(ifname: str, slots: int, queues: int | None, rings: int | None) -> tuple[Change, ...]:
    """The table spread equally over the queues, as the journal's value (one step)."""
    if queues is None:
        return ()
    try:
        value = parse_rss(f"equal {queues}", slots, rings or queues)
    except RssSpecError:
        return ()  # more queues than the driver's rings: the user decides
    return (Change(Key.rss(ifname), value),)


def udp_hash_addresses(f: Facts) -> Iterator[Outcome]:
    rule = "udp-hash-addresses"
    fields = f.flow_hash()
    if not fields:
        yield Note(rule, "hash fields not read (ethtool -n IF rx-flow-hash udp4)")
        return
    n = _rx_queue_count(f)
    if n is None or n < 2:
        return
    only = [t for t in ("udp4", "udp6") if fields.get(t) in ("sd", "tsd")]
    if not only:
        return
    yield Finding(
        id=rule,
        severity="hint",
        title=(
            f"{f.ifname} hashes {'/'.join(only)} on addresses only: every UDP flow between "
            "two hosts lands on one queue"
        ),
        evidence=(
            "; ".join(f"{t}: {fields[t]}" for t in only)
            + f" (ethtool -n {f.ifname} rx-flow-hash; {n} rx queues)",
            f"ports too: ethtool -N {f.ifname} rx-flow-hash udp4 sdfn (drivers leave them out "
            "by default because fragments carry no ports and could be reordered)",
        ),
        # One journaled step per flow type; the driver may refuse (a state on the row).
        change=tuple(Change(Key.flow_hash(f.ifname, t), "sdfn") for t in only),
        sources=(_KERNEL_SCALING,),
        context="any",
    )
