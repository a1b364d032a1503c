"""Rates between two counter samples: what mpstat and `watch /proc/interrupts` would show.

Counters in /proc/interrupts, /proc/softirqs and softnet_stat are 32-bit and wrap; a counter
that went backwards without wrapping (a reset, a re-requested IRQ, a CPU taken offline) gives
no rate at all rather than a negative or absurd one.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.host.procfs import CpuTimes
from tuitune.core.snapshot import Counters

_WRAP32 = 1 << 32


def delta32(a: int, b: int) -> int:
    """Increase of a 32-bit counter from a to b: wraps are counted, resets give 0."""
    if b >= a:
        return b - a
    if a - b > (1 << 31) and a < _WRAP32:
        return b + _WRAP32 - a
    return 0


def delta64(a: int, b: int) -> int:
    return b - a if b >= a else 0


@dataclass(frozen=True, slots=True)
class CpuRates:
    """Percent of the interval in each state (they sum to 100), and event rates per second."""

    cpu: int
    usr: float
    nice: float
    sys: float
    iowait: float
    irq: float
    soft: float
    steal: float
    guest: float
    gnice: float
    idle: float
    intr: float  # interrupts/s on this CPU (all IRQ rows of /proc/interrupts)
    net_rx: float  # NET_RX softirqs/s
    net_tx: float  # NET_TX softirqs/s
    drops: float  # softnet backlog drops/s
    squeezes: float  # softnet time_squeeze/s

    @property
    def busy(self) -> float:
        return 100.0 - self.idle - self.iowait


@dataclass(frozen=True, slots=True)
class IrqRate:
    irq: str
    total: float  # per second, all CPUs
    per_cpu: dict[int, float]  # only CPUs with a non-zero rate


@dataclass(frozen=True, slots=True)
class Rates:
    interval: float  # seconds between the samples
    cpus: dict[int, CpuRates]
    irqs: dict[str, IrqRate]
    link: dict[str, float]  # "rx_bytes" -> bytes/s, "rx_packets" -> packets/s, drops ...


def _cpu_percent(a: CpuTimes, b: CpuTimes) -> dict[str, float] | None:
    d = {name: delta64(getattr(a, name), getattr(b, name)) for name in CpuTimes.__slots__}
    total = sum(
        d[n] for n in ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
    )
    if total <= 0:
        return None
    # mpstat's convention: guest time is inside user (and guest_nice inside nice); show apart.
    guest = min(d["guest"], d["user"])
    gnice = min(d["guest_nice"], d["nice"])
    pct = 100.0 / total
    return {
        "usr": (d["user"] - guest) * pct,
        "nice": (d["nice"] - gnice) * pct,
        "sys": d["system"] * pct,
        "iowait": d["iowait"] * pct,
        "irq": d["irq"] * pct,
        "soft": d["softirq"] * pct,
        "steal": d["steal"] * pct,
        "guest": guest * pct,
        "gnice": gnice * pct,
        "idle": d["idle"] * pct,
    }


def compute_rates(a: Counters, b: Counters) -> Rates:
    dt = b.time - a.time
    if dt <= 0:
        return Rates(0.0, {}, {}, {})
    inv = 1.0 / dt

    # Interrupts: per IRQ per CPU, and summed per CPU.
    a_rows = a.interrupts.by_irq()
    a_col = {cpu: i for i, cpu in enumerate(a.interrupts.cpus)}
    irq_rates: dict[str, IrqRate] = {}
    intr_per_cpu: dict[int, float] = {}
    for row in b.interrupts.rows:
        prev = a_rows.get(row.irq)
        if prev is None or prev.name != row.name:
            continue  # new or re-requested IRQ: no baseline
        per_cpu: dict[int, float] = {}
        total = 0.0
        for i, count in enumerate(row.counts):
            if i >= len(b.interrupts.cpus):
                break
            cpu = b.interrupts.cpus[i]
            j = a_col.get(cpu)
            if j is None or j >= len(prev.counts):
                continue  # CPU came online between the samples
            rate = delta32(prev.counts[j], count) * inv
            if rate:
                per_cpu[cpu] = rate
                total += rate
                if len(row.counts) > 1:  # ERR/MIS totals are not per CPU
                    intr_per_cpu[cpu] = intr_per_cpu.get(cpu, 0.0) + rate
        irq_rates[row.irq] = IrqRate(row.irq, total, per_cpu)

    net_rx_a, net_rx_b = a.softirqs.per_cpu("NET_RX"), b.softirqs.per_cpu("NET_RX")
    net_tx_a, net_tx_b = a.softirqs.per_cpu("NET_TX"), b.softirqs.per_cpu("NET_TX")

    cpus: dict[int, CpuRates] = {}
    for cpu, tb in b.stat.cpus.items():
        ta = a.stat.cpus.get(cpu)
        if ta is None:
            continue
        pct = _cpu_percent(ta, tb)
        if pct is None:
            continue
        sa, sb = a.softnet.get(cpu), b.softnet.get(cpu)
        drops = squeezes = 0.0
        if sa is not None and sb is not None:
            drops = delta32(sa.dropped, sb.dropped) * inv
            squeezes = delta32(sa.time_squeeze, sb.time_squeeze) * inv

        def soft(prev: dict[int, int], cur: dict[int, int], c: int = cpu) -> float:
            return delta32(prev[c], cur[c]) * inv if c in prev and c in cur else 0.0

        cpus[cpu] = CpuRates(
            cpu=cpu,
            **pct,
            intr=intr_per_cpu.get(cpu, 0.0),
            net_rx=soft(net_rx_a, net_rx_b),
            net_tx=soft(net_tx_a, net_tx_b),
            drops=drops,
            squeezes=squeezes,
        )

    link: dict[str, float] = {}
    if a.link is not None and b.link is not None:
        for name, value in b.link.values.items():
            if name in a.link.values:
                link[name] = delta64(a.link.values[name], value) * inv
    return Rates(dt, cpus, irq_rates, link)
