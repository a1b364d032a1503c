"""Per-IRQ placement from /proc/irq/N: the affinity asked for, the one in effect, the node."""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.root import HostRoot, read_int, read_parsed, read_value
from tuitune.core.values import Unavailable


@dataclass(frozen=True, slots=True)
class IrqAffinity:
    irq: str
    smp_affinity: frozenset[int] | Unavailable  # smp_affinity_list: what was asked for
    effective: frozenset[int] | Unavailable  # effective_affinity_list: where it really fires
    node: int | None
    affinity_hint: str | None  # the driver's suggestion, raw mask ("0" when none)


def _list(root: HostRoot, irq: str, name: str) -> frozenset[int] | Unavailable:
    return read_parsed(
        root, root.proc_path(f"irq/{irq}/{name}"), f"IRQ {irq} {name}", parse_cpulist
    )


def read_irq_affinity(root: HostRoot, irq: str) -> IrqAffinity:
    node = read_int(root, root.proc_path(f"irq/{irq}/node"), f"IRQ {irq} node")
    hint = read_value(root, root.proc_path(f"irq/{irq}/affinity_hint"), "affinity_hint")
    return IrqAffinity(
        irq=irq,
        smp_affinity=_list(root, irq, "smp_affinity_list"),
        effective=_list(root, irq, "effective_affinity_list"),
        node=node if isinstance(node, int) and node >= 0 else None,
        affinity_hint=hint if isinstance(hint, str) else None,
    )
