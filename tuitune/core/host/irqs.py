"""Per-IRQ placement from /proc/irq/N: the affinity asked for, the one in effect, the node,
and whether the kernel manages it (then no write to smp_affinity can move it).

A managed IRQ (a driver spread its vectors with pci_alloc_irq_vectors_affinity: nvme,
virtio-blk, many storage HBAs) refuses `smp_affinity` writes with EIO. The kernel says so
without a write only in debugfs, /sys/kernel/debug/irq/irqs/N (GENERIC_IRQ_DEBUGFS), whose
`dstate` lists IRQD_AFFINITY_MANAGED (kernel/irq/debugfs.c; not from the seeds). Debian 12's
kernel is built without it: there the first refused write is how anyone learns it."""

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
    managed: bool | None = None  # None: the kernel does not say (no irq debugfs, not root)


def _list(root: HostRoot, irq: str, name: str) -> frozenset[int] | Unavailable:
    return read_parsed(
        root, root.proc_path(f"irq/{irq}/{name}"), f"IRQ {irq} {name}", parse_cpulist
    )


DEBUGFS_IRQS = "kernel/debug/irq/irqs"
MANAGED_FLAG = "IRQD_AFFINITY_MANAGED"


def irq_managed(root: HostRoot, irq: str) -> bool | None:
    """True when the kernel manages IRQ `irq`'s affinity, False when its debugfs entry says
    it does not, None when there is no entry to read (the usual case: no irq debugfs)."""
    path = root.sys_path(f"{DEBUGFS_IRQS}/{irq}")
    text = root.read_file(path, f"IRQ {irq} debugfs")
    if isinstance(text, Unavailable):
        return None
    return any(line.strip() == MANAGED_FLAG for line in text.splitlines())


def read_irq_affinity(
    root: HostRoot, irq: str, debugfs: bool = False, known: IrqAffinity | None = None
) -> IrqAffinity:
    """`debugfs`: the caller found /sys/kernel/debug/irq/irqs (has_irq_debugfs); without it
    nobody pays a failed open per IRQ. `known`: this IRQ's last read, whose node, hint and
    managed flag are kept (set when the IRQ was set up) while the two affinities, which move,
    are read again: half the files (the all-IRQs view's rounds, issue 38)."""
    if known is not None and known.irq == irq:
        return IrqAffinity(
            irq=irq,
            smp_affinity=_list(root, irq, "smp_affinity_list"),
            effective=_list(root, irq, "effective_affinity_list"),
            node=known.node,
            affinity_hint=known.affinity_hint,
            managed=known.managed,
        )
    node = read_int(root, root.proc_path(f"irq/{irq}/node"), f"IRQ {irq} node")
    hint = read_value(root, root.proc_path(f"irq/{irq}/affinity_hint"), "affinity_hint")
    return IrqAffinity(
        irq=irq,
        smp_affinity=_list(root, irq, "smp_affinity_list"),
        effective=_list(root, irq, "effective_affinity_list"),
        node=node if isinstance(node, int) and node >= 0 else None,
        affinity_hint=hint if isinstance(hint, str) else None,
        managed=irq_managed(root, irq) if debugfs else None,
    )


def has_irq_debugfs(root: HostRoot) -> bool:
    return root.sys_path(DEBUGFS_IRQS).is_dir()
