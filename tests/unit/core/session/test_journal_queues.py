"""The journal when a channel change moves a device's queue IRQs (issue 22, items 2 and 3), on
a recorded virtio-net host (4 queue pairs on 16 CPUs: tests/fixtures/captures, the allandeng.cn
captures of /proc/interrupts and smp_affinity_list). This machine has no such NIC, so the
device is a fake whose channel change does to the tree what the drivers do to the kernel:
virtio_net spreads its queue IRQs over the CPUs again (virtnet_set_affinity), and drivers that
free and request their IRQs again (mlx5, i40e...) give them new numbers and a reset affinity."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.hosttree import TreeSpec, build_tree
from tests.support.session_fakes import FakeDevice
from tuitune.core.export.changes import from_journal
from tuitune.core.host.ethtool import Channels
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.journal_file import JournalFile, host_id
from tuitune.core.session.journal_records import Orig, encode

CAPTURES = Path(__file__).resolve().parents[3] / "fixtures/captures"
DEV, NCPUS = "eth0", 16
INPUT0 = "virtio0-input.0"
QUEUES = [f"{side}.{i}" for i in range(4) for side in ("input", "output")]  # IRQs 45..52


def captured_affinity() -> dict[str, str]:
    """IRQ -> smp_affinity_list, from the capture's `Interrupt N is allowed on CPUs L` lines."""
    text = (CAPTURES / "sys/virtio_irq45-52_smp_affinity_list_loop_16cpu.txt").read_text()
    return {line.split()[1]: line.split()[-1] for line in text.splitlines() if line.strip()}


def virtio_tree(dest: Path) -> Path:
    tree = build_tree(
        dest,
        TreeSpec(
            ncpus=NCPUS,
            interrupts=(CAPTURES / "interrupts/virtio_net_4q_16cpu_egrep_subset.txt").read_text(),
            ifname=DEV,
            rx_queues=4,
            tx_queues=4,
            irq_affinity=captured_affinity(),
        ),
    )
    # eth0's device is virtio0 on a PCI function, as in a KVM guest.
    virtio = tree / "sys/devices/pci0000:00/0000:00:03.0/virtio0"
    virtio.mkdir(parents=True)
    os.symlink(
        os.path.relpath(virtio, tree / f"sys/class/net/{DEV}"), tree / f"sys/class/net/{DEV}/device"
    )
    return tree


@dataclass
class VirtioLike(FakeDevice):
    """Channels change the tree as the driver changes the kernel: queue directories come and
    go, the IRQs of the queues below the new count are spread over the CPUs again (the others
    keep theirs), and with `renumber` they are freed and requested again under new numbers
    (+100) with the default affinity."""

    tree: Path = Path()
    renumber: bool = False

    def set_channels(
        self,
        rx: int | None = None,
        tx: int | None = None,
        other: int | None = None,
        combined: int | None = None,
    ) -> None:
        super().set_channels(rx, tx, other, combined)
        n = self.channels_.combined
        net = self.tree / f"sys/class/net/{DEV}/queues"
        for i in range(self.channels_.combined_max):
            for side, files in (("rx", ("rps_cpus", "rps_flow_cnt")), ("tx", ("xps_cpus",))):
                q = net / f"{side}-{i}"
                if i < n and not q.exists():
                    q.mkdir()
                    for f in files:
                        (q / f).write_text("0\n")
                elif i >= n and q.exists():
                    for f in files:
                        (q / f).unlink()
                    q.rmdir()
        interrupts = self.tree / "proc/interrupts"
        rows = interrupts.read_text().splitlines()
        stride = max(NCPUS // n, 1)
        out = [rows[0]]
        for row in rows[1:]:
            number, rest = row.split(":", 1)
            irq, name = number.strip(), row.split()[-1]
            index = int(name.rpartition(".")[2])
            first = index * stride
            # virtnet_set_affinity spreads the queues below the new count only: the IRQs of
            # the others keep their affinity (the VM bench's 4-queue virtio_net does so).
            spread = f"{first}-{first + stride - 1}" if stride > 1 else str(first)
            old = self.tree / f"proc/irq/{irq}/smp_affinity_list"
            if index >= n:
                spread = old.read_text().strip()
            if self.renumber:
                old.unlink()
                irq = str(int(irq) + 100)
                spread = f"0-{NCPUS - 1}"
            aff = self.tree / f"proc/irq/{irq}"
            aff.mkdir(parents=True, exist_ok=True)
            (aff / "smp_affinity_list").write_text(spread + "\n")
            out.append(f" {irq}:{rest}")
        interrupts.write_text("\n".join(out) + "\n")


@pytest.fixture
def host(tmp_path: Path) -> tuple[Path, HostAccess, VirtioLike]:
    tree = virtio_tree(tmp_path / "host")
    dev = VirtioLike(DEV, channels_=Channels(0, 0, 0, 4, 0, 0, 0, 4), tree=tree)
    access = HostAccess(HostRoot.fixture(tree), ethtool=lambda _: dev, call=lambda f, *a: f(*a))
    return tree, access, dev


def affinity(tree: Path, queue: str) -> str:
    """The affinity of the IRQ that serves `queue` now."""
    for row in (tree / "proc/interrupts").read_text().splitlines()[1:]:
        if row.split()[-1] == queue:
            irq = row.split(":")[0].strip()
            return (tree / f"proc/irq/{irq}/smp_affinity_list").read_text().strip()
    raise AssertionError(f"no IRQ serves {queue}")


def test_the_original_is_what_the_host_had_before_the_channel_change(
    tmp_path: Path, host: tuple[Path, HostAccess, VirtioLike]
) -> None:
    tree, access, _ = host
    combined = Key.field(DEV, "channels", "combined")
    irq = Key.irq("45", INPUT0, DEV)
    assert affinity(tree, INPUT0) == "0"
    journal = Journal.open(access, tmp_path / "journal")
    outs = journal.apply_all([(combined, "2"), (irq, "5")])
    assert [o.describe() for o in outs] == [
        "eth0 channels combined: 4 -> 2",
        "IRQ 45 (virtio0-input.0) affinity: 0-7 -> 5",
    ]
    assert journal.originals()[irq] == "0"  # not the 0-7 the channel change left
    assert journal.check_drift() == []
    outs = journal.close_restoring()
    shown = [o.describe() for o in outs]
    assert "eth0 channels combined: 2 -> 4" in shown
    assert "IRQ 45 (virtio0-input.0) affinity: 0-3 -> 0" in shown
    assert all(o.ok for o in outs)
    # Every queue IRQ the channel change spread anew is back as captured, not only input.0.
    assert {q: affinity(tree, f"virtio0-{q}") for q in QUEUES} == dict(
        zip(QUEUES, captured_affinity().values(), strict=True)
    )
    assert not list((tmp_path / "journal").glob("*.journal"))


def test_irqs_renumbered_by_a_channel_change_stay_one_setting(
    tmp_path: Path, host: tuple[Path, HostAccess, VirtioLike]
) -> None:
    tree, access, dev = host
    dev.renumber = True
    combined = Key.field(DEV, "channels", "combined")
    journal = Journal.open(access, tmp_path / "journal")
    assert journal.apply(Key.irq("45", INPUT0, DEV), "5").status == "changed"
    assert journal.apply(combined, "2").status == "changed"
    assert affinity(tree, INPUT0) == "0-15"  # IRQ 145 now, at the default
    assert journal.check_drift() == []  # tuitune's own change moved it: not someone else
    # What the screen then does: the queue's row has IRQ 145.
    assert journal.apply(Key.irq("145", INPUT0, DEV), "6").status == "changed"
    held = [k for k in journal.originals() if k.kind == "irq_affinity" and k.queue == INPUT0]
    assert len(held) == 1 and journal.originals()[held[0]] == "0"
    changes, problems = from_journal(access, tmp_path / "journal", DEV)
    pins = [(c.key.queue, c.current) for c in changes if c.key.kind == "irq_affinity"]
    assert problems == [] and (INPUT0, "6") in pins
    assert len({q for q, _ in pins}) == len(pins) == 8  # one line per queue in the export
    outs = journal.close_restoring()
    assert [o.status for o in outs if not o.ok] == [], [o.describe() for o in outs]
    assert affinity(tree, INPUT0) == "0"
    assert not list((tmp_path / "journal").glob("*.journal"))


def test_an_old_journal_with_one_entry_per_irq_number_replays_as_one(
    tmp_path: Path, host: tuple[Path, HostAccess, VirtioLike]
) -> None:
    """A journal an earlier release wrote, with the same queue under two IRQ numbers, is one
    setting with the first original (the older entry was the host's)."""
    tree, access, _ = host
    jdir = tmp_path / "journal"
    (tree / "proc/irq/45/smp_affinity_list").write_text("7\n")
    with Journal.open(access, jdir) as journal:
        pass
    jfile = JournalFile(jdir, host_id(access.root))
    jfile.append(
        encode(Orig(Key.irq("45", INPUT0, DEV), "0")), encode(Orig(Key.irq("99", INPUT0, DEV), "3"))
    )
    jfile.release()
    with Journal.open(access, jdir) as journal:
        assert list(journal.originals().values()) == ["0"]
        outs = journal.close_restoring(force=True)  # 7: set by someone else
    assert [o.describe() for o in outs] == ["IRQ 45 (virtio0-input.0) affinity: 7 -> 0"]


def test_a_queue_gone_for_good_does_not_hold_the_journal_forever(
    tmp_path: Path, host: tuple[Path, HostAccess, VirtioLike]
) -> None:
    """A journal from before the fix: rx-3's original recorded, the channel count no longer
    held, the queue gone. Nothing can bring it back: restore says so once and closes."""
    _, access, dev = host
    jdir = tmp_path / "journal"
    dev.set_channels(combined=3)  # rx-3 is gone, by someone else
    with Journal.open(access, jdir) as journal:
        pass
    jfile = JournalFile(jdir, host_id(access.root))
    jfile.append(encode(Orig(Key.rps_cpus(DEV, "rx-3"), "none")))
    jfile.release()
    with Journal.open(access, jdir) as journal:
        outs = journal.close_restoring()
    assert [(o.status, o.reason) for o in outs] == [
        (
            "skipped",
            "its queue no longer exists and tuitune holds no channel change that would bring "
            "it back: nothing to put back",
        )
    ]
    assert not list(jdir.glob("*.journal"))


def test_lowered_under_queue_settings_restores_every_irq_and_closes(
    tmp_path: Path, host: tuple[Path, HostAccess, VirtioLike]
) -> None:
    """RPS/XPS on rx-3/tx-3 and the IRQ of input.3, then channels 4 -> 2 (queue 3 goes): the
    lowering left input.2 and output.2/3 alone, the restore's raise spreads them anew. Restore
    puts every queue IRQ back as captured and leaves no journal (the VM bench's virtio_net)."""
    tree, access, _ = host
    jdir = tmp_path / "journal"
    journal = Journal.open(access, jdir)
    assert journal.apply(Key.rps_cpus(DEV, "rx-3"), "1").ok
    assert journal.apply(Key.xps_cpus(DEV, "tx-3"), "2").ok
    assert journal.apply(Key.irq("51", "virtio0-input.3", DEV), "9").status == "changed"
    assert journal.apply(Key.field(DEV, "channels", "combined"), "2").status == "changed"
    journal.detach()  # what kill -9 leaves
    with Journal.open(access, jdir) as again:
        outs = again.close_restoring()
    assert [o.describe() for o in outs if not o.ok] == []
    assert {q: affinity(tree, f"virtio0-{q}") for q in QUEUES} == dict(
        zip(QUEUES, captured_affinity().values(), strict=True)
    )
    assert not list(jdir.glob("*.journal"))


def test_undo_of_a_channel_change_leaves_every_queue_irq_as_before(
    tmp_path: Path, host: tuple[Path, HostAccess, VirtioLike]
) -> None:
    """Undo of channels 4 -> 2: putting 4 back spreads input.2/.3 too, which the lowering had
    left alone; undo puts them where they were before the step."""
    tree, access, _ = host
    journal = Journal.open(access, tmp_path / "journal")
    assert journal.apply(Key.field(DEV, "channels", "combined"), "2").status == "changed"
    outs = journal.undo()
    assert outs and all(o.ok for o in outs), [o.describe() for o in outs]
    assert {q: affinity(tree, f"virtio0-{q}") for q in QUEUES} == dict(
        zip(QUEUES, captured_affinity().values(), strict=True)
    )
    assert journal.check_drift() == []
    assert all(o.ok for o in journal.close_restoring())
    assert not list((tmp_path / "journal").glob("*.journal"))
