"""SMT off on trial on the guest's real kernel (issue 32): scripts/vm boots the guest with two
threads per core (-smp 4,sockets=2,cores=1,threads=2: CPUs 0,1 and 2,3 are siblings), so
`/sys/devices/system/cpu/smt/control` says "on" and the kernel can take the second threads
offline. A queue IRQ of the virtio NIC is put on a second thread first; SMT off through the
journal's trial offlines the siblings tuitune named before the write (the kernel breaks the
IRQ's affinity, and virtio_net re-spreads its queues on every CPU hotplug); putting the trial
back brings SMT on and every IRQ's affinity back byte for byte.

Under TCG the kernel sees the topology QEMU's CPUID gives it: scripts/vm gives the guest an
Intel vendor id, since as AMD (TCG's default) the kernel finds no SMT without TOPOEXT, which
TCG 7.2 lacks. A guest booted without threads says "notsupported", and the test then skips
saying so (never silently)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.cpulist import parse_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.kinds.smt import offlined

from .conftest import Nics, affinity_list, irq_snapshot, pci_dir, queue_irqs

pytestmark = pytest.mark.vm

CPU = Path("/sys/devices/system/cpu")
CONTROL = CPU / "smt/control"


def cpus(name: str) -> frozenset[int]:
    return parse_cpulist((CPU / name).read_text().strip())


def second_threads() -> frozenset[int]:
    """Every online CPU that is not its core's first thread, from the kernel's topology."""
    out = set()
    for cpu in cpus("online"):
        siblings = cpus(f"cpu{cpu}/topology/thread_siblings_list")
        if cpu != min(siblings):
            out.add(cpu)
    return frozenset(out)


@pytest.fixture
def smt_on() -> Iterator[None]:
    control = CONTROL.read_text().strip() if CONTROL.exists() else "absent"
    if control == "notsupported":
        pytest.skip("smt/control says notsupported: the guest was booted without SMT threads")
    assert control == "on", f"scripts/vm boots two threads per core; smt/control: {control}"
    irqs = irq_snapshot()
    try:
        yield
    finally:
        # Whatever the test left: SMT on, then the IRQs as they were (CPUs online first).
        if CONTROL.read_text().strip() != "on":
            CONTROL.write_text("on")
        for name, value in irqs.items():
            if name.endswith("/smp_affinity"):
                with contextlib.suppress(OSError):
                    Path("/proc/irq", name).write_bytes(value)


def test_smt_off_on_trial_and_put_back(nics: Nics, smt_on: None, tmp_path: Path) -> None:
    siblings = second_threads()
    assert siblings, "two threads per core, yet no CPU is a second thread"
    local = parse_cpulist((pci_dir(nics.virtio) / "local_cpulist").read_text().strip())
    target = min(siblings & local or siblings)
    name, irq = sorted(queue_irqs(nics.virtio).items())[0]
    Path(f"/proc/irq/{irq}/smp_affinity_list").write_text(str(target))
    assert affinity_list(irq) == str(target), (name, irq)
    before = irq_snapshot()
    online = cpus("online")
    with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
        assert offlined(access.root) == siblings  # named before the write
        out, trial = j.apply_trial(Key.smt(), "off", seconds=600)
        assert out.status == "changed" and trial is not None, out.describe()
        assert CONTROL.read_text().strip() == "off"
        assert (CPU / "smt/active").read_text().strip() == "0"
        assert cpus("online") == online - siblings
        for cpu in siblings:
            assert (CPU / f"cpu{cpu}/online").read_text().strip() == "0", cpu
        # The kernel moved the IRQ off its offline CPU; the journal recorded it.
        assert target not in parse_cpulist(affinity_list(irq)), affinity_list(irq)
        assert Key.irq(str(irq), None) in {e.key for e in out.also}, out.describe()
        outs = j.revert_trial()
        assert outs and all(o.ok for o in outs), [o.describe() for o in outs]
        assert j.last_trial_end is not None and j.last_trial_end.how == "reverted"
    assert CONTROL.read_text().strip() == "on"
    assert cpus("online") == online
    assert affinity_list(irq) == str(target), (name, irq)
    after = irq_snapshot()
    assert {k: v for k, v in after.items() if before.get(k) != v} == {}
