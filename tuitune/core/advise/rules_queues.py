"""Rules about single queues: one ring dropping, one queue taking far more than its share.

They read the per-queue counters of `ethtool -S` at both ends of the window
(core/host/queuestats.py). A NIC whose driver has no per-queue names gives them nothing to
judge: they say so in a note.
"""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome, rate
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.host.ethtool import Rings
from tuitune.core.host.queuestats import QueueRates, queue_rates
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
    # The table's share per queue: equal over the queues counted (the RSS indirection table
    # itself is not read by the advisor yet).
    table_share = 1.0 / len(rx)
    hot, pps = max(rx.items(), key=lambda kv: kv[1])
    share = pps / total
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
            f"table share assumed equal over {len(rx)} queues; the hash fields: "
            f"`ethtool -n {f.ifname} rx-flow-hash tcp4` / udp4 (sdfn hashes on ports too)",
        ),
        change=(),
        sources=(_KERNEL_SCALING,),
        context="any",
    )
