"""A throughput profile's IRQ placement on a real 2-node host (issue 36): the bench's guest has
two NUMA nodes (CPUs 0-1 and 2-3) and its 4-queue virtio-net behind a PCIe expander bridge on
node 1 (scripts/vm), so its PCI function's numa_node and local_cpulist are the kernel's own.

`tuitune recommend VIRTIO` must name node 1 and print a line per queue IRQ of the NIC (the
kernel's own list, its msi_irqs), each onto one of node 1's CPUs. The placements are applied
by queue name as `profile apply` writes them, the way tests/vm/test_irq_affinity.py applies
and restores them on the same NIC; that is not repeated here (a guest test's time: this one
took 42 s in the guest, 33 s of CPU, with the apply and the restore, at load 14). The unit
tests prove the same rule on a recorded 2-node tree (tests/unit/core/test_profile_placement.py).
irqbalance does not run in the guest unless a test starts it.
"""

from __future__ import annotations

import re

import pytest

from tuitune.core.cpulist import parse_cpulist

from .conftest import Nics, pci_dir, queue_irqs, tuitune

pytestmark = pytest.mark.vm
IRQ_LINE = re.compile(r"^\s+irq (\d+) \((\S+)\): (?:\S+ -> |\+ )(\d+)$")


def test_recommend_places_the_virtio_queues_on_its_nic_local_cpus(nics: Nics) -> None:
    local = parse_cpulist((pci_dir(nics.virtio) / "local_cpulist").read_text())
    node = int((pci_dir(nics.virtio) / "numa_node").read_text())
    assert node == 1 and local == frozenset({2, 3}), (node, local)  # scripts/vm's topology
    out = tuitune("recommend", nics.virtio).stdout
    assert f"{nics.virtio} is on node 1 (CPUs 2-3)" in out, out
    placed = {m.group(2): (int(m.group(1)), m.group(3)) for m in map(IRQ_LINE.match,
              out.splitlines()) if m}  # fmt: skip
    irqs = queue_irqs(nics.virtio)
    assert placed and {q: irq for q, (irq, _) in placed.items()} == irqs, (placed, irqs)
    assert {int(cpu) for _, cpu in placed.values()} <= local, placed
