"""A kernel-managed IRQ on a real kernel: the bench's virtio-blk (two request queues, its
vectors spread by the kernel: pci_alloc_irq_vectors_affinity) refuses a write to
smp_affinity with EIO (irq_can_set_affinity_usr). tuitune shows that as the setting's lasting
state, locked, and changes nothing. Debian's 6.1 kernel has no GENERIC_IRQ_DEBUGFS, the only
read-only way to see IRQD_AFFINITY_MANAGED, so the refusal of the first write is how anyone
learns it; after it the session keeps the refusal beside the setting (the row's locked)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session.session import Session
from tuitune.core.session.settings import Key

from .conftest import affinity_list, interrupt_names, irq_snapshot

pytestmark = pytest.mark.vm


def blk_queue_irqs() -> dict[str, int]:
    """virtio-blk's request-queue IRQs, name -> number (virtioN-req.M)."""
    devs = [p.name for p in Path("/sys/bus/virtio/drivers/virtio_blk").glob("virtio*")]
    if not devs:
        pytest.fail("the guest has no virtio-blk device (scripts/vm adds one)")
    return {
        name: irq
        for irq, name in interrupt_names().items()
        if any(re.fullmatch(rf"{d}-req\.\d+", name) for d in devs)
    }


def test_a_managed_irq_is_refused_as_locked_and_nothing_changes(tmp_path: Path) -> None:
    irqs = blk_queue_irqs()
    assert len(irqs) == 2, irqs
    name, irq = sorted(irqs.items())[0]
    before = irq_snapshot()
    cpu = "3" if affinity_list(irq) != "3" else "0"
    session = Session(HostRoot(), journal_dir=tmp_path / "j", host_writes=True)
    try:
        key = Key.irq(irq, name)
        out = session.run(lambda j: j.apply(key, cpu))
        session.note([out])
        assert out.status == "refused", out
        assert out.state is not None and out.state.kind == "unsupported", out
        assert "managed by the kernel" in (out.reason or ""), out
        assert session.refusals[key] == out  # the row's lasting state: locked
        assert session.change_count() == 0
    finally:
        session.close()
    assert irq_snapshot() == before
