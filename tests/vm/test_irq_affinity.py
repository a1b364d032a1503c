"""IRQ affinity on real MSI-X queue IRQs (e1000e, 4-queue virtio-net) in the bench's guest:
moved through the journal, read back from /proc/irq, undone, reverted, and restored after the
process holding the journal was killed with SIGKILL: every /proc/irq/*/smp_affinity back
byte for byte."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.irqplan import spread_plan
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.watch.hostreader import HostReader

from .conftest import (
    Nics,
    affinity_list,
    irq_snapshot,
    pci_dir,
    queue_irqs,
    show_json,
    tuitune,
    write_profile,
)

pytestmark = pytest.mark.vm


def targets(irqs: dict[str, int], shift: int = 0) -> dict[str, str]:
    """One CPU per queue, round robin, never the CPUs the IRQ has now (a driver that
    re-created its IRQs may have left them on one CPU), so every write is a change."""
    n = os.cpu_count() or 1
    out = {}
    for i, name in enumerate(sorted(irqs)):
        cpu = str((i + shift) % n)
        if cpu == affinity_list(irqs[name]):
            cpu = str((i + shift + 1) % n)
        out[name] = cpu
    return out


def affinity_profile(ifname: str, wanted: dict[str, str]) -> str:
    rows = "\n".join(f'"{q}" = "{c}"' for q, c in wanted.items())
    return f'[interface]\nname = "{ifname}"\n\n[interface.irq_affinity]\n{rows}\n'


def test_every_queue_irq_of_both_nics_moves_and_restore_puts_all_back(
    nics: Nics, tmp_path: Path
) -> None:
    before = irq_snapshot()
    for ifname in (nics.e1000e, nics.virtio):
        irqs = queue_irqs(ifname)
        assert len(irqs) >= (2 if ifname == nics.e1000e else 8), irqs
        wanted = targets(irqs)
        prof = write_profile(tmp_path / f"{ifname}.toml", affinity_profile(ifname, wanted))
        tuitune("apply", str(prof))
        assert {q: affinity_list(irqs[q]) for q in wanted} == wanted
        # What the product shows for them is what the kernel holds.
        shown = show_json(ifname)["interface"]["irq_affinity"]
        for q, cpu in wanted.items():
            row = shown[str(irqs[q])]
            assert row["smp_affinity"] == [int(cpu)], (q, row)
            # Effective affinity is the kernel's: a subset of what was asked, or the old CPUs
            # until the next interrupt moves it (x86 without IRQ remapping).
            assert isinstance(row["effective"], list), row
    assert irq_snapshot() != before
    out = tuitune("restore")
    assert "could not" not in out.stdout.lower(), out.stdout
    assert irq_snapshot() == before


def test_undo_and_revert_through_the_journal(nics: Nics, tmp_path: Path) -> None:
    before = irq_snapshot()
    irqs = queue_irqs(nics.virtio)
    wanted = targets(irqs, shift=1)
    with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
        for q, cpu in wanted.items():
            key = access.irq_key(nics.virtio, q)
            assert key is not None, q
            out = j.apply(key, cpu)
            assert out.status == "changed", out
        assert {q: affinity_list(irqs[q]) for q in wanted} == wanted
        last = sorted(wanted)[-1]
        undone = j.undo()
        assert undone and all(o.ok for o in undone), undone
        assert (
            Path(f"/proc/irq/{irqs[last]}/smp_affinity").read_bytes()
            == before[f"{irqs[last]}/smp_affinity"]
        )
        assert affinity_list(irqs[sorted(wanted)[0]]) == wanted[sorted(wanted)[0]]
        assert all(o.ok for o in j.revert_all())
    assert irq_snapshot() == before


def test_spread_plan_puts_every_queue_on_the_nics_node(nics: Nics, tmp_path: Path) -> None:
    """The spread plan (the screen's `s`, the advisor's IRQ moves, `* = nic-local`) for the
    virtio NIC behind the expander bridge on NUMA node 1: every queue IRQ on node 1's CPUs as
    the guest's kernel lists them, applied as one journal step the way the screen does, read
    back from /proc/irq, then undone as one step: every affinity byte for byte as before."""
    before = irq_snapshot()
    node = Path(f"/sys/class/net/{nics.virtio}/device/numa_node")
    if not node.exists():
        node = pci_dir(nics.virtio) / "numa_node"
    assert node.read_text().strip() == "1"
    node1 = set(parse_cpulist(Path("/sys/devices/system/node/node1/cpulist").read_text()))
    assert node1 and node1 != set(range(os.cpu_count() or 1)), node1
    with HostReader() as reader:
        nic, host = reader.nic_state(nics.virtio), reader.host_state()
    plan = spread_plan(nic, host)
    assert {q.name for q, _ in plan} == set(queue_irqs(nics.virtio)), plan
    assert {cpu for _, cpu in plan} == node1, plan
    with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
        outs = j.apply_all([(Key.irq(q.irq, q.name, nics.virtio), str(c)) for q, c in plan])
        assert all(o.ok for o in outs), outs
        # The driver spread queue N on CPU N: the plan moves most of them.
        assert sum(o.status == "changed" for o in outs) >= len(plan) // 2, outs
        placed = {q.name: affinity_list(int(q.irq)) for q, _ in plan}
        assert placed == {q.name: str(c) for q, c in plan}, placed
        assert all(set(parse_cpulist(a)) <= node1 for a in placed.values()), placed
        undone = j.undo()  # the whole plan was one step
        assert undone and all(o.ok for o in undone), undone
    assert irq_snapshot() == before


HOLDER = """
import sys, time
from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.irqplan import spread_plan
from tuitune.core.session import HostAccess, Journal, Key
ifname, pairs = sys.argv[1], sys.argv[2:]
access = HostAccess(HostRoot())
j = Journal.open(access)  # the default directory, where `tuitune restore` looks
for pair in pairs:
    q, cpu = pair.split("=")
    out = j.apply(access.irq_key(ifname, q), cpu)
    assert out.status == "changed", out
print("ready", flush=True)
time.sleep(3600)
"""


def test_restore_after_sigkill_of_the_journal_holder(nics: Nics) -> None:
    before = irq_snapshot()
    irqs = {**queue_irqs(nics.virtio)}
    wanted = targets(irqs, shift=2)
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, nics.virtio, *(f"{q}={c}" for q, c in wanted.items())],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        assert {q: affinity_list(irqs[q]) for q in wanted} == wanted
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    out = tuitune("restore")
    assert out.returncode == 0, out.stdout + out.stderr
    assert irq_snapshot() == before
