"""`tuitune apply-affinity IFACE` touches IFACE's own IRQs only (hole 9).

A queue name the interface's IRQ map did not know used to be looked up in all of
/proc/interrupts, so a file naming another NIC's queue or a disk's queue moved that IRQ too.
Here the host is a recorded tree built from a real capture (an EC2 instance with three ENA
interfaces and six NVMe disks): IRQ affinity is never written on this machine; the tree's
/proc/irq/N/smp_affinity_list files stand for it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.hosttree import TreeSpec, build_tree

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"
CAPTURE = CAPTURES / "interrupts" / "ena_3eni_4cpu_ec2_x86_nvme_full.txt"
DEV = "eth1"  # IRQs 33-36: eth1-Tx-Rx-0..3
IRQS = [str(n) for n in range(24, 54)]  # the MSI rows: nvme*, ena-mgmnt*, eth0..eth2 queues


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    spec = TreeSpec(
        ncpus=4,
        interrupts=CAPTURE.read_text(),
        ifname=DEV,
        rx_queues=4,
        tx_queues=4,
        irq_affinity=dict.fromkeys(IRQS, "0-3"),
    )
    return build_tree(tmp_path / "host", spec)


def affinities(tree: Path) -> dict[str, str]:
    return {irq: (tree / f"proc/irq/{irq}/smp_affinity_list").read_text() for irq in IRQS}


def test_the_interfaces_own_queue_is_set(tree: Path, tmp_path: Path) -> None:
    """The control: a file naming only eth1's queues is applied."""
    conf = tmp_path / "own.conf"
    conf.write_text("eth1-Tx-Rx-0 = 1\n")
    res = tuitune("apply-affinity", DEV, "--root", tree, "--file", conf)
    assert (res.returncode, res.stderr) == (0, "")
    assert res.stdout == "IRQ 33 (eth1-Tx-Rx-0): 0-3 -> 1\n"
    assert affinities(tree)["33"] == "1\n"


@pytest.mark.parametrize("follow", [False, True])
def test_a_file_naming_other_devices_irqs_is_refused_before_any_write(
    tree: Path, tmp_path: Path, follow: bool
) -> None:
    conf = tmp_path / "hostile.conf"
    # eth1's own queue first: it must not be written either (refused before the first write).
    conf.write_text("eth1-Tx-Rx-0 = 1\neth0-Tx-Rx-2 = 3\nnvme0q1 = 2\n")
    before = affinities(tree)
    res = tuitune("apply-affinity", DEV, "--root", tree, "--file", conf, *["--follow"] * follow)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr == (
        f"tuitune: {conf}: line 2: eth0-Tx-Rx-2 is IRQ 30, not one of eth1's; "
        "line 3: nvme0q1 is IRQ 25, not one of eth1's; nothing was changed\n"
    )
    assert affinities(tree) == before


def test_another_nics_management_irq_is_not_the_interfaces(tree: Path, tmp_path: Path) -> None:
    """ena-mgmnt@pci:0000:00:06.0 belongs to eth1 only if its PCI address says so; this tree
    has no device link, so the IRQ map does not count it, and neither does apply-affinity."""
    conf = tmp_path / "mgmt.conf"
    conf.write_text("ena-mgmnt@pci:0000:00:06.0 = 1\n")
    before = affinities(tree)
    res = tuitune("apply-affinity", DEV, "--root", tree, "--file", conf)
    assert res.returncode == 1
    assert "line 1: ena-mgmnt@pci:0000:00:06.0 is IRQ 32, not one of eth1's" in res.stderr
    assert affinities(tree) == before


@pytest.mark.parametrize(
    ("content", "says"),
    [
        (None, "/dev/zero: a character device, not a file to read; nothing was changed"),
        (b"eth1-Tx-Rx-0 = 1\n# \xff\n", "not UTF-8 text (byte 0xff at offset 19)"),
        ("eth1-Tx-Rx-0 = 1\n".encode("utf-16"), "UTF-16 text; save it as UTF-8"),
    ],
    ids=["dev-zero", "non-utf8", "utf16"],
)
def test_an_unreadable_affinity_file_is_one_line(
    tree: Path, tmp_path: Path, content: bytes | None, says: str
) -> None:
    conf = Path("/dev/zero")
    if content is not None:
        conf = tmp_path / "a.conf"
        conf.write_bytes(content)
    before = affinities(tree)
    res = tuitune("apply-affinity", DEV, "--root", tree, "--file", conf)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.count("\n") == 1 and says in res.stderr, res.stderr
    assert affinities(tree) == before
