"""What the live screen shows about CPUs and IRQ placement, worked out without any UI.

The CPU list's orders (topology, busiest, soft-IRQ, the NIC's interrupts), where an IRQ's
interrupts land (each CPU's share), and whether an IRQ's effective affinity has caught up with
the affinity that was asked for. The screen draws these; `tuitune show` or a test can use them
as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tuitune.core.values import Unavailable
from tuitune.core.watch.rates import IrqRate, Rates

# The CPU list's orders, in the order one key cycles them, and how the panel's title says each.
SORTS = ("topology", "load", "softirq", "nic")
SORT_LABELS = {
    "topology": "topology order",
    "load": "busiest first",
    "softirq": "most soft-IRQ first",
    "nic": "most NIC interrupts first",
}


def next_sort(current: str) -> str:
    i = SORTS.index(current) if current in SORTS else -1
    return SORTS[(i + 1) % len(SORTS)]


def nic_interrupts(rates: Rates, irqs: Iterable[str]) -> dict[int, float]:
    """Interrupts/s per CPU of the given IRQs (the watched NIC's): only CPUs that took some."""
    out: dict[int, float] = {}
    for irq in irqs:
        r = rates.irqs.get(irq)
        if r is None:
            continue
        for cpu, value in r.per_cpu.items():
            out[cpu] = out.get(cpu, 0.0) + value
    return out


def sort_cpus(
    order: Sequence[int], rates: Rates, by: str, nic_irqs: Iterable[str] = ()
) -> list[int]:
    """`order` (the topology order) sorted by `by`, the heaviest first; ties by CPU number,
    so the idle tail of the list reads 5, 9, 13... A CPU missing from `rates` (no time passed
    on it) counts as idle."""
    if by == "topology":
        return list(order)
    cpus = rates.cpus
    # Each CPU's weight looked up once, negated (heaviest first), then two sorts with C keys:
    # by number, then stably by weight. A Python key making a tuple per CPU was most of the
    # sorted list's cost on a 1152-CPU host at every tick (its heat map's list is "busiest
    # first").
    if by == "load":
        neg = {cpu: -c.busy for cpu, c in cpus.items()}
    elif by == "softirq":
        neg = {cpu: -c.soft for cpu, c in cpus.items()}
    else:
        neg = {cpu: -value for cpu, value in nic_interrupts(rates, nic_irqs).items()}
    out = sorted(order)
    for cpu in out:
        neg.setdefault(cpu, 0.0)  # no entry: idle
    out.sort(key=neg.__getitem__)
    return out


@dataclass(frozen=True, slots=True)
class Share:
    cpu: int
    percent: float  # of the IRQ's interrupts in the interval


def landing(r: IrqRate | None) -> list[Share]:
    """Where an IRQ's interrupts landed, the busiest CPU first (ties: the lower CPU)."""
    if r is None or r.total <= 0:
        return []
    ranked = sorted(r.per_cpu.items(), key=lambda kv: (-kv[1], kv[0]))
    return [Share(cpu, value / r.total * 100) for cpu, value in ranked if value > 0]


def landing_text(shares: Sequence[Share], top: int | None = None) -> str:
    """ "cpu12 71%, cpu13 29%" (the first `top` CPUs, then how many more)."""
    shown = shares if top is None else shares[:top]
    text = ", ".join(f"cpu{s.cpu} {s.percent:.0f}%" for s in shown)
    rest = len(shares) - len(shown)
    return text + (f", {rest} more" if rest > 0 else "")


def affinity_pending(
    asked: frozenset[int] | Unavailable | None, effective: frozenset[int] | Unavailable | None
) -> bool:
    """True while the kernel still delivers an IRQ outside the CPUs it was told to use: on x86
    a new smp_affinity takes effect at the IRQ's next interrupt, so effective_affinity lags.
    Unknown on either side (not readable, not recorded) is not pending."""
    if not isinstance(asked, frozenset) or not isinstance(effective, frozenset):
        return False
    return bool(asked) and bool(effective) and not effective <= asked
