"""A kernel-managed IRQ known before any write: where the kernel has irq debugfs
(GENERIC_IRQ_DEBUGFS), /sys/kernel/debug/irq/irqs/N lists IRQD_AFFINITY_MANAGED in its
dstate. The entry below follows kernel/irq/debugfs.c (irq_debug_show: one flag name per line,
indented under `dstate:`), for an nvme queue vector.

Debian 12's kernel lacks it (the VM bench's guest learns it from EIO instead:
tests/vm/test_managed_irq.py); these tests hold the read, the row and the refusal."""

from __future__ import annotations

from pathlib import Path

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.irqs import has_irq_debugfs, irq_managed, read_irq_affinity
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

ENTRY = """\
handler:  handle_edge_irq
device:   0000:00:04.0
status:   0x00000000
istate:   0x00000000
ddepth:   0
wdepth:   0
dstate:   0x3560a200
            IRQD_ACTIVATED
            IRQD_IRQ_STARTED
            IRQD_SINGLE_TARGET
            IRQD_MOVE_PCNTXT
            IRQD_AFFINITY_SET
            IRQD_AFFINITY_MANAGED
            IRQD_MANAGED_SHUTDOWN
node:     0
affinity: 0-3
effectv:  1
domain:  PCI-MSI-2
 hwirq:   0x40001
 chip:    PCI-MSI
  flags:   0x10
             IRQCHIP_SKIP_SET_WAKE
"""
NOT_MANAGED = ENTRY.replace("            IRQD_AFFINITY_MANAGED\n", "").replace(
    "            IRQD_MANAGED_SHUTDOWN\n", ""
)
MANAGED = Key.irq(150, "nvme0q1")
NIC_IRQ = Key.irq(101, "eno49-TxRx-0", "eno49")


def tree_with_debugfs(tmp_path: Path) -> Path:
    tree = build_host(tmp_path / "host")
    irqs = tree / "sys/kernel/debug/irq/irqs"
    irqs.mkdir(parents=True)
    (irqs / "150").write_text(ENTRY)
    (irqs / "101").write_text(NOT_MANAGED)
    return tree


def test_the_flag_is_read_from_the_dstate_lines(tmp_path: Path) -> None:
    root = HostRoot.fixture(tree_with_debugfs(tmp_path))
    assert has_irq_debugfs(root)
    assert irq_managed(root, "150") is True
    assert irq_managed(root, "101") is False
    assert irq_managed(root, "999") is None  # no entry: the kernel does not say
    assert read_irq_affinity(root, "150", debugfs=True).managed is True
    assert read_irq_affinity(root, "150").managed is None  # no debugfs asked for: not read


def test_without_debugfs_nothing_is_claimed(tmp_path: Path) -> None:
    root = HostRoot.fixture(build_host(tmp_path / "host"))
    assert not has_irq_debugfs(root)
    assert read_irq_affinity(root, "150", debugfs=has_irq_debugfs(root)).managed is None


def test_a_managed_irq_is_refused_before_any_write(tmp_path: Path) -> None:
    tree = tree_with_debugfs(tmp_path)
    written: list[Path] = []

    def writer(path: Path, text: str) -> None:  # any write at all fails the test
        written.append(path)
        path.write_text(text + "\n")

    access = HostAccess(
        HostRoot.fixture(tree), ethtool=lambda name: FakeDevice(name), writer=writer
    )
    try:
        with Journal.open(access, tmp_path / "journal") as j:
            out = j.apply(MANAGED, "1")
            assert out.status == "refused" and out.state is not None, out
            assert out.state.kind == "unsupported"
            why = "managed by the kernel (its affinity is fixed by the driver)"
            assert out.reason == f"IRQ 150 (nvme0q1) affinity: {why}"
            assert written == []
            assert (tree / "proc/irq/150/smp_affinity_list").read_text().strip() == "0-3"
            assert j.originals() == {}
            # An IRQ whose entry lacks the flag is written as ever.
            assert j.apply(NIC_IRQ, "2").status == "changed"
            assert written == [tree / "proc/irq/101/smp_affinity_list"]
    finally:
        access.close()
