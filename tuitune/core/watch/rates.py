"""Rates between two counter samples: what mpstat and `watch /proc/interrupts` would show.

Counters in /proc/interrupts, /proc/softirqs and softnet_stat are 32-bit and wrap; a counter
that went backwards without wrapping (a reset, a re-requested IRQ, a CPU taken offline) gives
no rate at all rather than a negative or absurd one.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from itertools import compress, count, repeat
from operator import gt, is_not, lt, mul, ne, sub, truediv
from typing import NamedTuple

from tuitune.core.host.interrupts import Interrupts
from tuitune.core.host.procfs import CPU_FIELDS, CpuTimes, ProcStat, Softirqs, SoftnetRow
from tuitune.core.watch.snapshot import Counters

_WRAP32 = 1 << 32
# A row whose moved cells are at most 1 in this many is done cell by cell (_irq_rates).
_FEW = 8


def delta32(a: int, b: int) -> int:
    """Increase of a 32-bit counter from a to b: wraps are counted, resets give 0."""
    if b >= a:
        return b - a
    if a - b > (1 << 31) and a < _WRAP32:
        return b + _WRAP32 - a
    return 0


def delta64(a: int, b: int) -> int:
    return b - a if b >= a else 0


class CpuRates(NamedTuple):
    """Percent of the interval in each state (they sum to 100), and event rates per second.

    A tuple, not a frozen dataclass: a 1152-CPU host builds 1152 a tick, and a frozen
    dataclass's __init__ (one object.__setattr__ per field) cost 5 us each, six times this."""

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


def _aligned(
    a: ProcStat, b: ProcStat
) -> tuple[Sequence[int], Sequence[Sequence[int]], Sequence[Sequence[int]]]:
    """The CPUs of b that a also has, in b's order, and both samples' columns for them."""
    if a.ids == b.ids:  # no CPU went on- or offline: every tick but a hotplug's
        return b.ids, a.columns, b.columns
    pos = {cpu: i for i, cpu in enumerate(a.ids)}
    both = [(j, pos[cpu]) for j, cpu in enumerate(b.ids) if cpu in pos]
    ids = [b.ids[j] for j, _ in both]
    return (
        ids,
        [[col[i] for _, i in both] for col in a.columns],
        [[col[j] for j, _ in both] for col in b.columns],
    )


def _softirq_rates(
    ids: Sequence[int], a: Softirqs, b: Softirqs, name: str, inv: float
) -> list[float]:
    """NET_RX (or NET_TX) softirqs/s of each CPU in `ids`, 0.0 where a sample lacks it."""
    ra, rb = a.counts.get(name, ()), b.counts.get(name, ())
    if a.cpus == b.cpus == tuple(ids) and len(ra) == len(rb) == len(ids):
        return [0.0 if x == y else delta32(x, y) * inv for x, y in zip(ra, rb, strict=True)]
    pa = dict(zip(a.cpus, ra, strict=False))
    pb = dict(zip(b.cpus, rb, strict=False))
    return [delta32(pa[c], pb[c]) * inv if c in pa and c in pb else 0.0 for c in ids]


def _softnet_rates(
    sa: SoftnetRow | None, sb: SoftnetRow | None, inv: float
) -> tuple[float, float, float, float]:
    """drops, squeezes, rps and collisions per second."""
    if sa is None or sb is None or sa is sb:  # the parser reuses an unchanged line's row
        return (0.0, 0.0, 0.0, 0.0)
    rps = collisions = 0.0
    if sa.received_rps is not None and sb.received_rps is not None:
        rps = delta32(sa.received_rps, sb.received_rps) * inv
    if sa.cpu_collision is not None and sb.cpu_collision is not None:
        collisions = delta32(sa.cpu_collision, sb.cpu_collision) * inv
    return (
        delta32(sa.dropped, sb.dropped) * inv,
        delta32(sa.time_squeeze, sb.time_squeeze) * inv,
        rps,
        collisions,
    )


def _cpu_rates(a: Counters, b: Counters, inv: float, intr: dict[int, float]) -> dict[int, CpuRates]:
    """Per CPU: states in percent (mpstat's), interrupts, softirqs and softnet events per
    second. A 1152-CPU host runs this every tick, so it goes a column at a time, each a
    comprehension over zipped tuples (no object per cell), and a column that did not move
    (the parser hands it back as the same tuple) costs nothing."""
    ids, ca, cb = _aligned(a.stat, b.stat)
    n = len(ids)
    zeros = (0,) * n
    user, nice, system, idle, iowait, irq, softirq, steal, dg, dgn = (
        zeros if xa is xb else _delta64s(xa, xb) for xa, xb in zip(ca, cb, strict=True)
    )
    busy = [c for c in (user, nice, system, idle, iowait, irq, softirq, steal) if c is not zeros]
    totals = list(map(sum, zip(*busy, strict=True))) if busy else list(zeros)
    everyone = bool(totals) and min(totals) > 0  # every CPU has jiffies in the window
    if everyone:
        pct = list(map(truediv, repeat(100.0), totals))
    else:  # a CPU with no jiffies in the window (total 0) gets no row below
        pct = [100.0 / t if t > 0 else 0.0 for t in totals]
    # mpstat's convention: guest time is inside user (and guest_nice inside nice): shown apart.
    guest = zeros if dg is zeros else [g if g < u else u for g, u in zip(dg, user, strict=True)]
    gnice = zeros if dgn is zeros else [g if g < x else x for g, x in zip(dgn, nice, strict=True)]
    rows = zip(
        ids,
        _scaled(user if guest is zeros else list(map(sub, user, guest)), pct),
        _scaled(nice if gnice is zeros else list(map(sub, nice, gnice)), pct),
        _scaled(system, pct),
        _scaled(iowait, pct),
        _scaled(irq, pct),
        _scaled(softirq, pct),
        _scaled(steal, pct),
        _scaled(guest, pct),
        _scaled(gnice, pct),
        _scaled(idle, pct),
        list(map(intr.get, ids, repeat(0.0))) if intr else repeat(0.0, n),
        _softirq_rates(ids, a.softirqs, b.softirqs, "NET_RX", inv),
        _softirq_rates(ids, a.softirqs, b.softirqs, "NET_TX", inv),
        *_softnet_columns(ids, a.softnet, b.softnet, inv),
        strict=True,
    )
    built = map(tuple.__new__, repeat(CpuRates), rows)  # CpuRates(*row), without its __new__
    if everyone:
        return dict(zip(ids, built, strict=True))
    return {r.cpu: r for r, t in zip(built, totals, strict=True) if t > 0}


def _delta64s(xa: Sequence[int], xb: Sequence[int]) -> list[int]:
    """delta64 cell by cell, in C unless a counter went back (then that cell is 0)."""
    d = list(map(sub, xb, xa))
    return d if not d or min(d) >= 0 else [v if v > 0 else 0 for v in d]


def _scaled(col: Sequence[int], pct: list[float]) -> Sequence[float]:
    """Jiffies as percent of each CPU's total (a column of zeros stays zeros)."""
    if not any(col):
        return [0.0] * len(pct)
    return list(map(mul, col, pct))


def _softnet_columns(
    ids: Sequence[int], na: dict[int, SoftnetRow], nb: dict[int, SoftnetRow], inv: float
) -> tuple[list[float], list[float], list[float], list[float]]:
    """drops, squeezes, rps and collisions per second, for each CPU of `ids`. Only the CPUs
    whose row is not the same object are worked out: the parser reuses an unchanged line's."""
    cols: tuple[list[float], ...] = tuple([0.0] * len(ids) for _ in range(4))
    moved = compress(count(), map(is_not, map(na.get, ids), map(nb.get, ids)))
    for i in moved:
        for col, v in zip(cols, _softnet_rates(na.get(ids[i]), nb.get(ids[i]), inv), strict=True):
            col[i] = v
    return cols[0], cols[1], cols[2], cols[3]


def _row_deltas(
    prev: Sequence[int], cur: Sequence[int], cpus_b: tuple[int, ...], a_col: dict[int, int]
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
    a_col: dict[int, int] = {}  # a's column of each CPU: built for the first exact row
    same_columns = a.cpus == cpus_b
    irq_rates: dict[str, IrqRate] = {}
    prev_rows: list[Sequence[int]] = []  # matched per-CPU rows, for the column sums
    cur_rows: list[Sequence[int]] = []
    slow: dict[int, int] = {}  # per-CPU counts of rows that must be done cell by cell
    sparse: dict[int, int] = {}  # per-column counts of rows that moved on a few CPUs
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
        if same_columns and len(prev.counts) == len(row.counts) == len(cpus_b) > 1:
            # A queue IRQ fires on the few CPUs it is routed to: find them once, in C, and do
            # the rest on those cells only (no cell went down: else the exact way below).
            p, c = prev.counts, row.counts
            moved = list(compress(count(), map(ne, p, c)))
            if len(moved) * _FEW <= len(c) and all(c[i] > p[i] for i in moved):
                deltas = [(i, c[i] - p[i]) for i in moved]
                want = detail is None or row.irq in detail
                per_cpu = {cpus_b[i]: d * inv for i, d in deltas} if want else {}
                total = sum(d for _, d in deltas)
                irq_rates[row.irq] = IrqRate(row.irq, total * inv, per_cpu)
                for i, d in deltas:
                    sparse[i] = sparse.get(i, 0) + d
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
            a_col = a_col or {cpu: i for i, cpu in enumerate(a.cpus)}
            counts = _row_deltas(prev.counts, row.counts, cpus_b, a_col)
            total = sum(counts.values())
            # Only the `detail` IRQs' breakdown, as on the other paths: what narrowed() relies on.
            want = detail is None or row.irq in detail
            per_cpu = {cpu: d * inv for cpu, d in counts.items()} if want else {}
        elif detail is None or row.irq in detail:  # no cell went down: a comprehension, in C
            fired = map(ne, prev.counts, row.counts)  # the few CPUs it fired on, found in C
            cells = compress(zip(cpus_b, prev.counts, row.counts, strict=True), fired)
            per_cpu = {c: (y - x) * inv for c, x, y in cells}
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
    intr = _column_rates(prev_rows, cur_rows, sparse, cpus_b, inv)
    for cpu, n in slow.items():
        intr[cpu] = intr.get(cpu, 0.0) + n * inv
    return irq_rates, intr


def _column_rates(
    prev_rows: list[Sequence[int]],
    cur_rows: list[Sequence[int]],
    sparse: dict[int, int],
    cpus: tuple[int, ...],
    inv: float,
) -> dict[int, float]:
    """Interrupts/s per CPU: the rows where no cell went down, each as long as `cpus`, and
    `sparse`, what the rows that moved on a few CPUs added to each column. Counts are added
    up as integers first, so that a CPU's rate is one product, whichever way its rows went.

    A full read's many rows (timers move on every CPU) are summed by column, in C."""
    if not prev_rows:
        return {cpus[i]: d * inv for i, d in sorted(sparse.items())}
    col_a = list(map(sum, zip(*prev_rows, strict=True)))
    col_b = list(map(sum, zip(*cur_rows, strict=True)))
    if not sparse:
        grew = compress(zip(cpus, col_a, col_b, strict=True), map(lt, col_a, col_b))
        return {c: (y - x) * inv for c, x, y in grew}
    delta = list(map(sub, col_b, col_a))
    for i, d in sparse.items():
        delta[i] += d
    return {cpus[i]: d * inv for i, d in enumerate(delta) if d > 0}


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

    cpus = _cpu_rates(a, b, inv, intr_per_cpu)

    link: dict[str, float] = {}
    if a.link is not None and b.link is not None:
        for name, value in b.link.values.items():
            if name in a.link.values:
                link[name] = delta64(a.link.values[name], value) * inv
    return Rates(dt, cpus, irq_rates, link)


def narrowed(rates: Rates, detail: Collection[str] | None) -> Rates:
    """`rates` as compute_rates gives them for `detail`, from rates computed with more detail
    (None: every IRQ's): the per-CPU breakdown of the IRQs outside `detail` dropped."""
    if detail is None:
        return rates
    irqs = {
        irq: r if not r.per_cpu or irq in detail else IrqRate(irq, r.total, {})
        for irq, r in rates.irqs.items()
    }
    return Rates(rates.interval, rates.cpus, irqs, rates.link)


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


# /proc/stat counts in USER_HZ, 100 on every architecture Linux exports it for.
USER_HZ = 100


def tree_uptime(b: Counters) -> float:
    """Seconds since boot of the host a recorded tree was read on, from its /proc/stat: the
    jiffies of its longest-counted CPU (each CPU counts every state, idle too, from the
    moment it came online: the boot CPU from boot). 0.0 when there are none."""
    # Guest time is already inside user and nice: left out, as mpstat does.
    states = [col for name, col in zip(CPU_FIELDS, b.stat.columns, strict=False)
              if name not in ("guest", "guest_nice")]  # fmt: skip
    per_cpu = [sum(vals) for vals in zip(*states, strict=True)] if states else []
    return max(per_cpu, default=0) / USER_HZ


def since_boot(
    b: Counters, detail_irqs: Collection[str] | None = None, uptime: float | None = None
) -> Rates:
    """Averages since boot: b against counters that are all zero at time 0, which is what
    mpstat's first report is. A live sample's `time` is time.monotonic(), CLOCK_MONOTONIC,
    which counts from boot, so the interval is the uptime; a recorded tree's time is when it
    was read here, so its `uptime` (tree_uptime) is given. The link's counters start when the
    device came up, not at boot: they give no rate here."""
    zero = Counters(
        time=0.0 if uptime is None else b.time - uptime,
        stat=ProcStat(CpuTimes(), b.stat.ids, tuple((0,) * len(b.stat.ids) for _ in CPU_FIELDS)),
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
