"""The read side on real drivers, in the bench's guest: `tuitune show` (text and --json) on the
e1000e and the 4-queue virtio-net lists their real queue IRQs, rings, coalescing and pause;
and a check that reads the guest's kernel, so a revert that left a ring changed fails."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import Nics, ethtool_text, queue_irqs, sh, show_json, tuitune

pytestmark = pytest.mark.vm


def test_show_json_on_the_e1000e(nics: Nics) -> None:
    iface = show_json(nics.e1000e)["interface"]
    assert iface["driver"]["driver"] == "e1000e", iface["driver"]
    shown = {row["name"]: row["irq"] for row in iface["irqs"]}
    assert {q: str(i) for q, i in queue_irqs(nics.e1000e).items()}.items() <= shown.items()
    assert {row["kind"] for row in iface["irqs"]} >= {"rx", "tx"}
    assert iface["rings"]["rx_max"] == 4096 and iface["rings"]["tx_max"] == 4096
    rx = re.search(r"Current hardware settings:\s*\nRX:\s+(\d+)", ethtool_text("-g", nics.e1000e))
    assert rx and iface["rings"]["rx"] == int(rx.group(1))
    assert "rx-usecs" in iface["coalesce"]["params"], iface["coalesce"]
    assert set(iface["pause"]) == {"autoneg", "rx", "tx"}, iface["pause"]


def test_show_json_on_the_virtio_nic(nics: Nics) -> None:
    iface = show_json(nics.virtio)["interface"]
    names = {row["name"] for row in iface["irqs"]}
    assert set(queue_irqs(nics.virtio)) <= names and len(queue_irqs(nics.virtio)) == 8
    assert iface["channels"]["combined"] == 4 and iface["channels"]["combined_max"] == 4
    # Behind the PCIe expander bridge scripts/vm puts on NUMA node 1 (CPUs 2-3).
    assert iface["placement"]["numa_node"] == 1, iface["placement"]
    assert iface["placement"]["local_cpus"] == [2, 3], iface["placement"]
    assert iface["pause"].get("unavailable") == "unsupported"  # virtio_net has no pause
    for row in iface["irq_affinity"].values():
        assert row["smp_affinity"], row


def test_show_text_names_real_queue_irqs(nics: Nics) -> None:
    for ifname in (nics.e1000e, nics.virtio):
        text = tuitune("show", "--interval", "0.2", ifname).stdout
        assert f"IRQs of {ifname}" in text, text
        rows = set(re.findall(r"^ ((?:rx|tx)-\d+)\s+(\d+)\s", text, re.M))
        for name, irq in queue_irqs(ifname).items():
            m = re.search(r"(input|output|rx|tx)[.-](\d+)$", name)
            assert m, name
            kind = "rx" if m.group(1) in ("input", "rx") else "tx"
            assert (f"{kind}-{m.group(2)}", str(irq)) in rows, (name, irq, text)


def test_the_check_reads_the_guest_kernel(nics: Nics, tmp_path: Path) -> None:
    """Fails on purpose if the product did not do its job: a ring change the journal forgot
    (as a revert that skipped it would) leaves ethtool's report different, and the same
    comparison the bench's tests make then fails."""
    dev = nics.e1000e
    before = ethtool_text("-g", dev)
    try:
        with HostAccess(HostRoot()) as access, Journal.open(access, tmp_path / "j") as j:
            key = Key.field(dev, "ring", "rx")
            assert j.apply(key, "768").status == "changed"
            j.forget(key)  # the product "forgets" to put it back
            j.revert_all()
        with pytest.raises(AssertionError):
            assert ethtool_text("-g", dev) == before
        assert re.search(r"RX:\s+768\n", ethtool_text("-g", dev).split("Current")[1])
    finally:
        rx = re.search(r"Current hardware settings:\s*\nRX:\s+(\d+)", before)
        assert rx
        sh("ethtool", "-G", dev, "rx", rx.group(1))
    assert ethtool_text("-g", dev) == before


def test_virtio_rss_table_readable_and_show_lists_the_nic(nics: Nics) -> None:
    """The virtio NIC has RSS (scripts/vm: rss=on,hash=on): `ethtool -x` reads its
    indirection table, the ground for steering; `tuitune show` lists the NIC as before."""
    table = ethtool_text("-x", nics.virtio)
    slots = [
        int(x) for row in re.findall(r"^\s*\d+:((?:\s+\d+)+)\s*$", table, re.M) for x in row.split()
    ]
    assert len(slots) == 128 and set(slots) <= {0, 1, 2, 3}, table
    iface = show_json(nics.virtio)["interface"]
    assert iface["channels"]["combined"] == 4
    assert len({row["name"] for row in iface["irqs"]} & set(queue_irqs(nics.virtio))) == 8
