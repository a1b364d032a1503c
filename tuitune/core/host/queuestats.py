"""Per-queue counters out of `ethtool -S`: which ring receives, sends, drops.

Every driver spells its per-queue counters its own way. The schemes below were read off real
`ethtool -S` pastes (tests/fixtures/captures/ethtool_S, SOURCES.md there) where one was found,
else off the driver's ethtool source (marked "source" below):

    rx_queue_N_packets  tx_queue_N_bytes       ixgbe, igb, ice, virtio_net (< 6.10), veth (xdp_*)
    rxN_packets  txN_bytes                     mlx4_en, mlx5_core; virtio_net 6.10+ keeps only
                                               rxN_drops here (packets moved to qstats)
    rx-N.packets  tx-N.bytes                   i40e, iavf (source)
    rx-N.rx_packets                            sfc (ethq #19's regex)
    queue_N_rx_cnt  queue_N_tx_bytes           ena
    [N]: rx_ucast_packets  [N]: tx_bytes       bnx2x, bnxt_en (packets = ucast+mcast+bcast)
    rxqN: rx_pkts  txqN: tx_pkts               be2net
    rx_bytes[N]  rx_completed_desc[N]          gve (source; completions stand for packets)
    Rx Queue#: N, then ucast pkts rx ...       vmxnet3 (one block per queue, names repeated)

A name none of these match is left to `unknown_deltas`: the caller shows such a driver's raw
rises, never nothing. The kernel's netdev qstats (genetlink, 6.10+) would give the same in one
form, but only for drivers that implement them (not veth, the only NIC the lab has).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final, Literal

Direction = Literal["rx", "tx"]
Measure = Literal["packets", "bytes", "drops", "errors"]
MEASURES: Final[tuple[Measure, ...]] = ("packets", "bytes", "drops", "errors")
DriverStats = Sequence[tuple[str, int]]

_N = r"(?P<q>[0-9]{1,6})"  # bounded: names come from a driver, counts stay small ints
# Each scheme: a regex with q (queue), optionally d (direction; else the rest starts with it),
# and rest (what is counted).
_SCHEMES: Final[tuple[re.Pattern[str], ...]] = tuple(
    re.compile(p, re.ASCII)
    for p in (
        rf"(?P<d>rx|tx)_queue_{_N}_(?P<rest>\w{{1,48}})",
        rf"(?P<d>rx|tx){_N}_(?P<rest>\w{{1,48}})",
        rf"(?P<d>rx|tx)-{_N}\.(?:rx_|tx_)?(?P<rest>\w{{1,48}})",
        rf"queue_{_N}_(?P<d>rx|tx)_(?P<rest>\w{{1,48}})",
        rf"\[{_N}\]: (?P<rest>(?:rx|tx)_\w{{1,48}})",
        rf"(?:rxq|txq){_N}: (?P<rest>(?:rx|tx)_\w{{1,48}})",
        rf"(?P<rest>(?:rx|tx)_\w{{1,48}})\[{_N}\]",
    )
)

# What the rest of a name counts. Several names may feed one measure: their values add up
# (bnxt's ucast+mcast+bcast). A name marked as a fallback counts only when the queue has no
# primary name for that measure (veth's xdp_packets when there is no plain `packets`).
_PRIMARY: Final[dict[str, Measure]] = {
    "packets": "packets",
    "pkts": "packets",
    "cnt": "packets",  # ena
    "ucast_packets": "packets",
    "mcast_packets": "packets",
    "bcast_packets": "packets",
    "bytes": "bytes",
    "ucast_bytes": "bytes",  # vmxnet3 (by unicast, multicast, broadcast: they add up)
    "mcast_bytes": "bytes",
    "bcast_bytes": "bytes",
    "drops": "drops",
    "dropped": "drops",
    "discards": "drops",
    "dropped_pkt": "drops",  # gve
    "queue_drop_cnt": "drops",  # gve
    "drops_no_skbs": "drops",  # be2net
    "drops_no_frags": "drops",
    "hw_drops": "drops",  # netdev qstats (core/host/qstats.py)
    "hw_drop_overruns": "drops",
}
_FALLBACK: Final[dict[str, Measure]] = {
    "completed_desc": "packets",  # gve
}
# veth counts every packet of its NAPI path (GRO or XDP on) as xdp_*; other drivers (virtio_net)
# count only what an XDP program saw there, so these stand for packets on veth alone.
_VETH_FALLBACK: Final[dict[str, Measure]] = {
    "xdp_packets": "packets",
    "xdp_bytes": "bytes",
    "xdp_xmit": "packets",
}
# Error counters: any of these endings (bad checksums, failed allocations, DMA mapping...).
_ERROR_ENDINGS: Final = ("_err", "errors", "_errs", "_fail", "_failed", "bad_csum", "bad_req_id")

# NIC-wide counters that mean a received packet was lost before the stack: name -> what it
# means, per the driver documentation (kernel Documentation/networking/device_drivers).
NIC_DROPS: Final[dict[str, str]] = {
    "rx_missed_errors": "the NIC's FIFO was full (ixgbe, igb: host too slow to empty rings)",
    "rx_no_buffer_count": "no free rx descriptor (igb, ixgbe: ring too small or drained late)",
    "rx_out_of_buffer": "no receive buffer posted (mlx5: ring exhausted)",
    "rx_discards_phy": "the port's buffer overflowed (mlx5: congestion or slow host)",
    "rx_fifo_errors": "rx FIFO overrun",
    "rx_over_errors": "ring overflow",
    "port.rx_dropped": "dropped at the port (i40e: no descriptors)",
    "rx_dropped.nic": "dropped by the NIC (ice)",
    "rx_total_discard_pkts": "discarded by the NIC (bnxt_en)",
    "rx_drops_no_pbuf": "no buffer (be2net)",
    "bw_in_allowance_exceeded": "inbound bandwidth over the instance's allowance (ena)",
    "pps_allowance_exceeded": "packets per second over the instance's allowance (ena)",
}


@dataclass(frozen=True, slots=True)
class QueueCounters:
    direction: Direction
    queue: int
    values: Mapping[Measure, int]
    names: tuple[str, ...] = field(default=())  # the ethtool -S names that fed it


# A driver's names are the same at every tick: each is matched against the schemes once, not
# at every tick (issue 38: ~300 regex matches a tick on a small NIC, at 4 Hz). Bounded: names
# come from the driver.
@lru_cache(maxsize=8192)
def classify(name: str) -> tuple[Direction, int, str] | None:
    """(direction, queue, what) for a per-queue name, None for any other."""
    for scheme in _SCHEMES:
        m = scheme.fullmatch(name)
        if m is None:
            continue
        rest = m.group("rest")
        d = m.groupdict().get("d")
        if d is None:
            d, rest = rest[:2], rest[3:]
        return ("rx" if d == "rx" else "tx"), int(m.group("q")), rest
    return None


def measure_of(rest: str, driver: str | None = None) -> tuple[Measure, bool] | None:
    """(measure, primary?) of what a per-queue name counts; None: not one of the four."""
    if rest in _PRIMARY:
        return _PRIMARY[rest], True
    if rest in _FALLBACK:
        return _FALLBACK[rest], False
    if driver == "veth" and rest in _VETH_FALLBACK:
        return _VETH_FALLBACK[rest], False
    if rest.endswith(_ERROR_ENDINGS):
        return "errors", True
    return None


# vmxnet3 names each queue's counters the same way under a "Tx Queue#" / "Rx Queue#" line
# whose value is the queue (vmxnet3_ethtool.c; tests/fixtures/captures/ethtool_S): its names
# without the direction -> the scheme's names. The sub-counters of "drv dropped ... total"
# (too many frags, hdr err, ...) and the TSO/LRO subsets are left out: they would count twice.
_VMXNET3: Final[dict[str, str]] = {
    "ucast pkts": "ucast_packets",
    "mcast pkts": "mcast_packets",
    "bcast pkts": "bcast_packets",
    "ucast bytes": "ucast_bytes",
    "mcast bytes": "mcast_bytes",
    "bcast bytes": "bcast_bytes",
    "drv dropped total": "dropped",
    "pkts discard": "discards",  # tx: the device discarded
    "pkts OOB": "drops",  # rx: out of buffers
    "pkts err": "errors",
    "buf alloc fail": "alloc_fail",
}
_VMXNET3_HEADS: Final[dict[str, Direction]] = {"Tx Queue#": "tx", "Rx Queue#": "rx"}


def vmxnet3_names(stats: DriverStats) -> DriverStats:
    """vmxnet3's per-queue blocks as rx_queue_N_... names; any other driver's as they are."""
    if not any(name.strip() in _VMXNET3_HEADS for name, _ in stats):
        return stats
    out: list[tuple[str, int]] = []
    where: tuple[Direction, int] | None = None
    for name, value in stats:
        plain = name.strip()
        if plain in _VMXNET3_HEADS:
            where = (_VMXNET3_HEADS[plain], value)
            continue
        words = plain.split()
        if where is None or where[0] not in words:
            out.append((name, value))  # no queue's counter ("tx timeout count", "ring full")
            continue
        rest = _VMXNET3.get(" ".join(w for w in words if w != where[0]))
        if rest is not None:
            out.append((f"{where[0]}_queue_{where[1]}_{rest}", value))
    return tuple(out)


def per_queue(stats: DriverStats, driver: str | None = None) -> tuple[QueueCounters, ...]:
    """The per-queue counters, rx queues then tx, by queue number. `driver`: as `ethtool -i`
    names it (veth's xdp_* counters count every packet; other drivers' do not)."""
    stats = vmxnet3_names(stats)
    primary: dict[tuple[Direction, int], dict[Measure, int]] = {}
    fallback: dict[tuple[Direction, int], dict[Measure, int]] = {}
    names: dict[tuple[Direction, int], list[str]] = {}
    for name, value in stats:
        got = classify(name)
        if got is None:
            continue
        d, q, rest = got
        kind = measure_of(rest, driver)
        if kind is None:
            continue
        what, is_primary = kind
        into = (primary if is_primary else fallback).setdefault((d, q), {})
        into[what] = into.get(what, 0) + value
        names.setdefault((d, q), []).append(name)
    out = []
    for key in sorted(set(primary) | set(fallback), key=lambda k: (k[0] != "rx", k[1])):
        values = {**fallback.get(key, {}), **primary.get(key, {})}
        out.append(QueueCounters(key[0], key[1], values, tuple(names[key])))
    return tuple(out)


def nic_drops(stats: DriverStats) -> dict[str, int]:
    """The NIC-wide drop counters that matter, as the driver names them."""
    return {name: value for name, value in stats if name in NIC_DROPS}


def _delta(a: int, b: int) -> int:
    return b - a if b >= a else 0  # a reset counter (driver reload, channel change) is no rise


@dataclass(frozen=True, slots=True)
class QueueRate:
    direction: Direction
    queue: int
    per_s: Mapping[Measure, float]  # only the measures the driver counts


@dataclass(frozen=True, slots=True)
class QueueRates:
    seconds: float
    queues: tuple[QueueRate, ...]
    nic_drops: dict[str, float]  # per second, the NIC_DROPS names the driver has
    unknown: dict[str, int]  # rises of counters no scheme knows (a driver not in the table)
    source: str = "ethtool -S"  # or "qstats" (core/host/qstats.py), "qstats + ethtool -S"

    def of(self, direction: Direction, queue: int) -> QueueRate | None:
        for r in self.queues:
            if r.direction == direction and r.queue == queue:
                return r
        return None


def queue_rates(
    before: DriverStats,
    after: DriverStats,
    seconds: float,
    driver: str | None = None,
    source: str = "ethtool -S",
) -> QueueRates:
    """Rates per queue over `seconds` between two `ethtool -S` reads."""
    secs = seconds if seconds > 0 else 1.0
    then = {(q.direction, q.queue): q.values for q in per_queue(before, driver)}
    rates = []
    for q in per_queue(after, driver):
        old = then.get((q.direction, q.queue))
        if old is None:
            continue  # a queue that appeared in the window (channel change): no rate yet
        per_s: dict[Measure, float] = {
            m: _delta(old[m], v) / secs for m, v in q.values.items() if m in old
        }
        rates.append(QueueRate(q.direction, q.queue, per_s))
    old_drops = nic_drops(before)
    drops = {
        k: _delta(old_drops[k], v) / secs for k, v in nic_drops(after).items() if k in old_drops
    }
    unknown: dict[str, int] = {}
    if not rates:
        prior = dict(before)
        for name, value in after:
            if name in prior and (d := _delta(prior[name], value)) > 0:
                unknown[name] = d
    return QueueRates(seconds, tuple(rates), drops, unknown, source)


def parse_ethtool_s(text: str) -> tuple[tuple[str, int], ...]:
    """`ethtool -S` text as (name, value) pairs: for captures and for tests. The name is
    what precedes the last ": " (bnxt's `[0]: rx_bytes: 5` keeps `[0]: rx_bytes`)."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.endswith(":") or ": " not in line:
            continue
        name, _, value = line.rpartition(": ")
        value = value.strip()
        if value.isascii() and value.isdigit():
            out.append((name.strip(), int(value)))
    return tuple(out)


def shares(values: Iterable[tuple[int, float]]) -> dict[int, float]:
    """Each queue's share (0..1) of a total, by queue number."""
    items = list(values)
    total = sum(v for _, v in items)
    return {q: (v / total if total > 0 else 0.0) for q, v in items}


@dataclass(frozen=True, slots=True)
class QueueRow:
    """One queue as a tuner reads it: its rings' rates, the IRQ(s) serving it, and the CPU
    that took most of their interrupts."""

    queue: int
    irqs: tuple[str, ...]
    cpu: int | None
    rx: Mapping[Measure, float]
    tx: Mapping[Measure, float]

    @property
    def drops(self) -> float:
        return self.rx.get("drops", 0.0) + self.tx.get("drops", 0.0)

    @property
    def errors(self) -> float:
        return self.rx.get("errors", 0.0) + self.tx.get("errors", 0.0)


def queue_rows(
    qr: QueueRates,
    irqs: Iterable[tuple[str, str, int | None]],
    busiest_cpu: Mapping[str, int] | None = None,
) -> tuple[QueueRow, ...]:
    """One row per queue number. `irqs`: (irq, kind, index) of the NIC's queue IRQs (kind rx,
    tx or combined, as core/host/irqmap.py names them); `busiest_cpu`: IRQ -> the CPU that
    took most of its interrupts in the window."""
    by_queue: dict[int, list[str]] = {}
    for irq, kind, index in irqs:
        if kind in ("rx", "tx", "combined") and index is not None:
            by_queue.setdefault(index, []).append(irq)
    numbers = sorted({r.queue for r in qr.queues})
    rows = []
    cpus = busiest_cpu or {}
    for n in numbers:
        rx, tx = qr.of("rx", n), qr.of("tx", n)
        served = tuple(by_queue.get(n, ()))
        cpu = next((cpus[i] for i in served if i in cpus), None)
        rows.append(QueueRow(n, served, cpu, rx.per_s if rx else {}, tx.per_s if tx else {}))
    return tuple(rows)


def rows_json(qr: QueueRates, rows: Sequence[QueueRow]) -> dict[str, object]:
    """The `queue_rates` object of `show --json` (docs/json-schema.md)."""

    def measures(m: Mapping[Measure, float]) -> dict[str, float]:
        return {k: round(v, 3) for k, v in m.items()}

    return {
        "seconds": round(qr.seconds, 3),
        "source": qr.source,
        "queues": [
            {
                "queue": r.queue,
                "irqs": list(r.irqs),
                "cpu": r.cpu,
                "rx": measures(r.rx),
                "tx": measures(r.tx),
            }
            for r in rows
        ],
        "nic_drops": {k: round(v, 3) for k, v in qr.nic_drops.items()},
        "unknown": dict(qr.unknown),
    }
