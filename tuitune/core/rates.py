"""Rates between two counter samples: what mpstat and `watch /proc/interrupts` would show.

Counters in /proc/interrupts, /proc/softirqs and softnet_stat are 32-bit and wrap; a counter
that went backwards without wrapping (a reset, a re-requested IRQ, a CPU taken offline) gives
no rate at all rather than a negative or absurd one.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, replace
from operator import gt

from tuitune.core.host.interrupts import Interrupts
from tuitune.core.host.procfs import CpuTimes, ProcStat, Softirqs, SoftnetRow
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
    rps: float = 0.0  # softnet received_rps/s: packets other CPUs steered here (RPS/RFS IPIs)
    collisions: float = 0.0  # softnet cpu_collision/s: tx lock found taken by another CPU

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
    # Attribute by attribute, not by name: 1152 CPUs a tick.
    user, nice = delta64(a.user, b.user), delta64(a.nice, b.nice)
    system, idle = delta64(a.system, b.system), delta64(a.idle, b.idle)
    iowait, irq = delta64(a.iowait, b.iowait), delta64(a.irq, b.irq)
    softirq, steal = delta64(a.softirq, b.softirq), delta64(a.steal, b.steal)
    total = user + nice + system + idle + iowait + irq + softirq + steal
    if total <= 0:
        return None
    # mpstat's convention: guest time is inside user (and guest_nice inside nice); show apart.
    guest = min(delta64(a.guest, b.guest), user)
    gnice = min(delta64(a.guest_nice, b.guest_nice), nice)
    pct = 100.0 / total
    return {
        "usr": (user - guest) * pct,
        "nice": (nice - gnice) * pct,
        "sys": system * pct,
        "iowait": iowait * pct,
        "irq": irq * pct,
        "soft": softirq * pct,
        "steal": steal * pct,
        "guest": guest * pct,
        "gnice": gnice * pct,
        "idle": idle * pct,
    }


def _row_deltas(
    prev: tuple[int, ...], cur: tuple[int, ...], cpus_b: tuple[int, ...], a_col: dict[int, int]
) -> dict[int, int]:
    """Exact per-CPU increases of one IRQ row, matching columns by CPU number."""
    out: dict[int, int] = {}
    for i, y in enumerate(cur[: len(cpus_b)]):
        j = a_col.get(cpus_b[i])
        if j is None or j >= len(prev):
            continue  # CPU came online between the samples
        d = delta32(prev[j], y)
        if d:
            out[cpus_b[i]] = d
    return out


def _irq_rates(
    a: Interrupts, b: Interrupts, inv: float, detail: Collection[str] | None
) -> tuple[dict[str, IrqRate], dict[int, float]]:
    """Rates per IRQ and interrupts/s per CPU: the hot part of a tick.

    A 1024-CPU host has two million cells. Totals per IRQ (row sums) and per CPU (column sums)
    are computed with sum() and zip(), which run in C; the per-CPU breakdown of an IRQ is built
    only for the `detail` IRQs a panel shows (None: all). A row where any cell went down (a
    32-bit wrap, or a reset) is redone cell by cell with delta32.
    """
    a_rows = a.by_irq()
    cpus_b = b.cpus
    a_col = {cpu: i for i, cpu in enumerate(a.cpus)}
    same_columns = a.cpus == cpus_b
    irq_rates: dict[str, IrqRate] = {}
    prev_rows: list[tuple[int, ...]] = []  # matched per-CPU rows, for the column sums
    cur_rows: list[tuple[int, ...]] = []
    slow: dict[int, int] = {}  # per-CPU counts of rows that must be done cell by cell
    for row in b.rows:
        prev = a_rows.get(row.irq)
        if prev is row:  # the parser reused an unchanged line's row: nothing moved
            irq_rates[row.irq] = IrqRate(row.irq, 0.0, {})
            continue
        if prev is None or prev.name != row.name:
            continue  # new or re-requested IRQ: no baseline
        per_cpu_row = len(row.counts) > 1  # ERR/MIS carry one total, not per-CPU counts
        if prev.counts == row.counts:  # most rows on a real host: nothing to add up
            irq_rates[row.irq] = IrqRate(row.irq, 0.0, {})
            continue
        # Sums are exact only if no cell went down (a wrap or a reset): test that in C. A row
        # with fewer counts than CPUs (a cut line) cannot join the column sums either.
        exact = (
            not same_columns
            or len(prev.counts) != len(row.counts)
            or len(row.counts) != len(cpus_b)
            or any(map(gt, prev.counts, row.counts))
        )
        total = sum(row.counts) - sum(prev.counts)
        if exact:
            counts = _row_deltas(prev.counts, row.counts, cpus_b, a_col)
            total = sum(counts.values())
            per_cpu = {cpu: d * inv for cpu, d in counts.items()}
        elif detail is None or row.irq in detail:  # no cell went down: a comprehension, in C
            per_cpu = {
                c: (y - x) * inv
                for c, x, y in zip(cpus_b, prev.counts, row.counts, strict=True)
                if y != x
            }
        else:
            per_cpu = {}
        irq_rates[row.irq] = IrqRate(row.irq, total * inv, per_cpu)
        if not per_cpu_row:
            continue
        if exact:
            for cpu, d in counts.items():
                slow[cpu] = slow.get(cpu, 0) + d
        else:
            prev_rows.append(prev.counts)
            cur_rows.append(row.counts)
    intr: dict[int, float] = {}
    if cur_rows:
        width = len(cpus_b)
        col_a = [sum(col) for col in zip(*(r[:width] for r in prev_rows), strict=True)]
        col_b = [sum(col) for col in zip(*(r[:width] for r in cur_rows), strict=True)]
        for i, (x, y) in enumerate(zip(col_a, col_b, strict=True)):
            if y > x:
                intr[cpus_b[i]] = (y - x) * inv
    for cpu, n in slow.items():
        intr[cpu] = intr.get(cpu, 0.0) + n * inv
    return irq_rates, intr


def other_intr(a: Interrupts, b: Interrupts, dt: float, nic: Collection[str]) -> dict[int, float]:
    """Interrupts/s per CPU from full read a to full read b, without the `nic` IRQs' own: the
    part of the intr/s column that partial samples carry over (Counters.other_intr)."""
    if dt <= 0:
        return {}
    irqs, intr = _irq_rates(a, b, 1.0 / dt, nic)
    return _without(intr, irqs, nic)


def other_intr_of(rates: Rates, nic: Collection[str]) -> dict[int, float]:
    """other_intr() from the rates of two consecutive full reads, already computed with the
    `nic` IRQs in detail."""
    return _without({c: r.intr for c, r in rates.cpus.items()}, rates.irqs, nic)


def _without(
    intr: dict[int, float], irqs: dict[str, IrqRate], nic: Collection[str]
) -> dict[int, float]:
    out = dict(intr)
    for irq in nic:
        rate = irqs.get(irq)
        for cpu, r in rate.per_cpu.items() if rate is not None else ():
            out[cpu] = max(0.0, out.get(cpu, 0.0) - r)
    return out


def compute_rates(a: Counters, b: Counters, detail_irqs: Collection[str] | None = None) -> Rates:
    """Rates from sample a to the later sample b. `detail_irqs`: the IRQs whose per-CPU
    breakdown is wanted (a panel's rows); None gives it for every IRQ."""
    dt = b.time - a.time
    if dt <= 0:
        return Rates(0.0, {}, {}, {})
    inv = 1.0 / dt

    irq_rates, intr_per_cpu = _irq_rates(a.interrupts, b.interrupts, inv, detail_irqs)
    if not (a.irq_full and b.irq_full) and b.other_intr:
        # A partial sample has the NIC's rows only: the rest of the host's interrupts are
        # those of the last window between two full reads (docs/sampling.md).
        for cpu, r in b.other_intr.items():
            intr_per_cpu[cpu] = intr_per_cpu.get(cpu, 0.0) + r

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
        drops = squeezes = rps = collisions = 0.0
        if sa is not None and sb is not None:
            drops = delta32(sa.dropped, sb.dropped) * inv
            squeezes = delta32(sa.time_squeeze, sb.time_squeeze) * inv
            if sa.received_rps is not None and sb.received_rps is not None:
                rps = delta32(sa.received_rps, sb.received_rps) * inv
            if sa.cpu_collision is not None and sb.cpu_collision is not None:
                collisions = delta32(sa.cpu_collision, sb.cpu_collision) * inv

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
            rps=rps,
            collisions=collisions,
        )

    link: dict[str, float] = {}
    if a.link is not None and b.link is not None:
        for name, value in b.link.values.items():
            if name in a.link.values:
                link[name] = delta64(a.link.values[name], value) * inv
    return Rates(dt, cpus, irq_rates, link)


def _zero_softnet(row: SoftnetRow) -> SoftnetRow:
    # The optional columns stay None where the kernel has none, so no rate is made of them.
    return SoftnetRow(
        row.cpu,
        0,
        0,
        0,
        received_rps=None if row.received_rps is None else 0,
        cpu_collision=None if row.cpu_collision is None else 0,
    )


def since_boot(b: Counters, detail_irqs: Collection[str] | None = None) -> Rates:
    """Averages since boot: b against counters that are all zero at time 0, which is what
    mpstat's first report is. A live sample's `time` is time.monotonic(), CLOCK_MONOTONIC,
    which counts from boot, so the interval is the uptime. The link's counters start when the
    device came up, not at boot: they give no rate here."""
    zero = Counters(
        time=0.0,
        stat=ProcStat(CpuTimes(), {cpu: CpuTimes() for cpu in b.stat.cpus}),
        interrupts=Interrupts(
            b.interrupts.cpus,
            tuple(replace(r, counts=(0,) * len(r.counts)) for r in b.interrupts.rows),
            b.interrupts.has_header,
        ),
        softirqs=Softirqs(
            b.softirqs.cpus, {k: (0,) * len(v) for k, v in b.softirqs.counts.items()}
        ),
        softnet={cpu: _zero_softnet(row) for cpu, row in b.softnet.items()},
        link=None,
        irq_full=b.irq_full,
    )
    return compute_rates(zero, b, detail_irqs)
