"""vmxnet3 (QEMU's), the bench's third NIC: a multi-vector driver whose queue IRQs are named
`IF-rxtx-N` (one vector per rx/tx pair) beside one `IF-event-N` for link events
(drivers/net/vmxnet3/vmxnet3_drv.c, docs/irq-names.md). tuitune must see the rxtx vectors as
its queues and the event vector as none; rings and a queue IRQ set by `tuitune apply` and put
back exactly by `tuitune restore`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from .conftest import (
    affinity_list,
    ethtool_fields,
    ethtool_text,
    interrupt_names,
    irq_snapshot,
    pci_dir,
    queue_irqs,
    show_json,
    tuitune,
    write_profile,
)

pytestmark = pytest.mark.vm


@pytest.fixture(scope="module")
def vmx() -> str:
    for p in Path("/sys/class/net").iterdir():
        link = p / "device" / "driver"
        if link.exists() and link.resolve().name == "vmxnet3":
            return p.name
    pytest.fail("the guest has no vmxnet3 NIC (scripts/vm adds one)")


def test_rxtx_vectors_are_queues_and_the_event_vector_is_not(vmx: str) -> None:
    names = interrupt_names()
    vectors = {names.get(int(e.name), "") for e in (pci_dir(vmx) / "msi_irqs").iterdir()}
    rxtx = sorted(n for n in vectors if re.fullmatch(rf"{vmx}-rxtx-\d+", n))
    events = [n for n in vectors if re.fullmatch(rf"{vmx}-event-\d+", n)]
    print("vmxnet3 vectors:", sorted(vectors))  # the real names, for the unit rows (-rA)
    assert rxtx and len(events) == 1, vectors  # the real driver's naming
    iface = show_json(vmx)["interface"]
    rows = {row["name"]: row for row in iface["irqs"]}
    for name in rxtx:
        assert rows[name]["kind"] == "combined", rows
        assert rows[name]["irq"] == str(queue_irqs(vmx)[name]), rows
    assert events[0] not in rows or rows[events[0]]["kind"] == "misc", rows
    assert iface["driver"]["driver"] == "vmxnet3", iface["driver"]


def test_rings_and_a_queue_irq_apply_and_restore(vmx: str, tmp_path: Path) -> None:
    before_g, before_irq = ethtool_text("-g", vmx), irq_snapshot()
    q0 = f"{vmx}-rxtx-0"
    irq = queue_irqs(vmx)[q0]
    cpu = "3" if affinity_list(irq) != "3" else "2"
    # vmxnet3 rounds ring sizes to a multiple of 32: these are already.
    prof = write_profile(
        tmp_path / "v.toml",
        f'[interface]\nname = "{vmx}"\n[interface.rings]\nrx = 1024\ntx = 512\n'
        f'[interface.irq_affinity]\n"{q0}" = "{cpu}"\n',
    )
    tuitune("apply", str(prof))
    got = ethtool_fields("-g", vmx)
    assert (got["RX"], got["TX"]) == ("1024", "512"), got
    # The ring change resets the device; its queue IRQ keeps the name the journal knows.
    assert affinity_list(queue_irqs(vmx)[q0]) == cpu
    tuitune("restore")
    assert ethtool_text("-g", vmx) == before_g
    assert irq_snapshot() == before_irq
