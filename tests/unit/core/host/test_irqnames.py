"""One line per driver IRQ-name format of docs/irq-names.md: the name as /proc/interrupts
shows it -> the queue tuitune maps it to. The formats come from the kernel's drivers (the
doc cites the file of each); the rows below are what those format strings print."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.irqmap import classify, nic_irqs

_HEADER = "           CPU0       CPU1\n"
BDF = "0000:03:00.0"

# (driver, name as printed, ifname, nic_irqs keywords, expected (kind, index)).
Row = tuple[str, str, str, dict[str, Any], tuple[str, int | None]]
ROWS: list[Row] = [
    # --- intel
    ("e1000e", "eth0-rx-0", "eth0", {}, ("rx", 0)),
    ("e1000e", "eth0-tx-0", "eth0", {}, ("tx", 0)),
    ("e1000e/r8169 single vector", "eth0", "eth0", {}, ("combined", None)),
    ("igb/igc/ixgbe/ixgbevf/wangxun", "eth0-TxRx-3", "eth0", {}, ("combined", 3)),
    ("igb/igc/ixgbe", "eth0-rx-1", "eth0", {}, ("rx", 1)),
    ("igb/igc/ixgbe", "eth0-tx-2", "eth0", {}, ("tx", 2)),
    ("igb/igc", "eth0-unused", "eth0", {}, ("misc", None)),
    ("i40e", "i40e-eth0-TxRx-1", "eth0", {}, ("combined", 1)),
    ("i40e/ice misc", f"i40e-{BDF}:misc", "eth0", {"bus_info": BDF}, ("misc", None)),
    ("i40e fdir", f"i40e-{BDF}:fdir-TxRx-0", "eth0", {"bus_info": BDF}, ("misc", None)),
    ("ice", "ice-ens1f0-TxRx-2", "ens1f0", {}, ("combined", 2)),
    ("ice split", "ice-ens1f0-rx-4", "ens1f0", {}, ("rx", 4)),
    ("iavf", "iavf-eth1-TxRx-0", "eth1", {}, ("combined", 0)),
    ("iavf mailbox", f"iavf-{BDF}:mbx", "eth1", {"bus_info": BDF}, ("misc", None)),
    ("idpf", "idpf-eth0-TxRx-5", "eth0", {}, ("combined", 5)),
    ("idpf rx only", "idpf-eth0-Rx-1", "eth0", {}, ("rx", 1)),
    ("idpf tx only", "idpf-eth0-Tx-1", "eth0", {}, ("tx", 1)),
    ("idpf mailbox", "idpf-Mailbox-0", "eth0", {"msi_irqs": {"45"}}, ("misc", None)),
    # --- mellanox
    ("mlx4 old per port", "eth2-5", "eth2", {}, ("combined", 5)),
    ("mlx4", f"mlx4-comp-3@pci:{BDF}", "eth2", {"bus_info": BDF}, ("combined", 3)),
    ("mlx4 pool", f"mlx4-2@pci:{BDF}", "eth2", {"bus_info": BDF}, ("combined", 2)),
    ("mlx4 async", f"mlx4-async@pci:{BDF}", "eth2", {"bus_info": BDF}, ("misc", None)),
    ("mlx5", f"mlx5_comp4@pci:{BDF}", "ens1f0np0", {"bus_info": BDF}, ("combined", 4)),
    ("mlx5 async", f"mlx5_async0@pci:{BDF}", "ens1f0np0", {"bus_info": BDF}, ("misc", None)),
    ("mlx5 old async", f"mlx5_async@pci:{BDF}", "ens1f0np0", {"bus_info": BDF}, ("misc", None)),
    # --- broadcom
    ("bnxt", "eth0-TxRx-0", "eth0", {}, ("combined", 0)),
    ("bnxt split", "eth0-rx-1", "eth0", {}, ("rx", 1)),
    ("tg3", "eth0-txrx-1", "eth0", {}, ("combined", 1)),
    ("tg3 vector only", "eth0-0", "eth0", {}, ("combined", 0)),
    ("tg3 cut at 15 bytes", "enp129s0f0-txrx", "enp129s0f0", {}, ("combined", None)),
    ("tg3 cut at 15 bytes", "enp129s0f10-rx-", "enp129s0f10", {}, ("rx", None)),
    ("bnx2", "eth0-3", "eth0", {}, ("combined", 3)),
    ("bnx2x", "eth0-fp-4", "eth0", {}, ("combined", 4)),
    # --- chelsio
    ("cxgb4", "eth0-Rx3", "eth0", {}, ("rx", 3)),
    ("cxgb4 before 4.x", "eth0 (queue 3)", "eth0", {}, ("combined", 3)),
    ("cxgb4 fw events", "eth0-FWeventq", "eth0", {}, ("misc", None)),
    ("cxgb4 offload", "eth0-ofld0", "eth0", {}, ("misc", None)),
    ("cxgb4 trace", "eth0-traceq1", "eth0", {}, ("misc", None)),
    ("cxgb4vf/cxgb3", "eth0-2", "eth0", {}, ("combined", 2)),
    # --- cloud NICs
    ("ena", "eth0-Tx-Rx-5", "eth0", {}, ("combined", 5)),
    ("ena mgmt", f"ena-mgmnt@pci:{BDF}", "eth0", {"bus_info": BDF}, ("misc", None)),
    ("gve", f"gve-ntfy-blk1@pci:{BDF}", "ens4", {"bus_info": BDF}, ("combined", 1)),
    ("gve mgmt", f"gve-mgmnt@pci:{BDF}", "ens4", {"bus_info": BDF}, ("misc", None)),
    ("mana", f"mana_q3@pci:{BDF}", "eth1", {"bus_info": BDF}, ("combined", 3)),
    ("mana hwc", f"mana_hwc@pci:{BDF}", "eth1", {"bus_info": BDF}, ("misc", None)),
    ("virtio_net", "virtio2-input.3", "eth0", {"virtio_dev": "virtio2"}, ("rx", 3)),
    ("virtio_net", "virtio2-output.0", "eth0", {"virtio_dev": "virtio2"}, ("tx", 0)),
    ("virtio shared", "virtio2-virtqueues", "eth0", {"virtio_dev": "virtio2"}, ("combined", None)),
    ("virtio_pci config", "virtio2-config", "eth0", {"virtio_dev": "virtio2"}, ("misc", None)),
    ("vmxnet3", "eth0-rxtx-0", "eth0", {}, ("combined", 0)),
    ("vmxnet3 split", "eth0-rx-1", "eth0", {}, ("rx", 1)),
    ("vmxnet3 event", "eth0-event-2", "eth0", {}, ("misc", None)),
    ("xen-netfront", "eth0-q1-tx", "eth0", {}, ("tx", 1)),
    ("xen-netfront", "eth0-q1-rx", "eth0", {}, ("rx", 1)),
    ("xen-netfront one channel", "eth0-q0", "eth0", {}, ("combined", 0)),
    # --- huawei
    ("hinic3", "eth0_qp3", "eth0", {}, ("combined", 3)),
    ("hinic", "eth0_rxq2", "eth0", {}, ("rx", 2)),
    ("hinic", "eth0_txq2", "eth0", {}, ("tx", 2)),
    ("hns3", f"hns3-{BDF}-TxRx-5", "eth0", {"bus_info": BDF}, ("combined", 5)),
    ("hns3 split", f"hns3-{BDF}-Rx-1", "eth0", {"bus_info": BDF}, ("rx", 1)),
    ("hclge misc", f"hclge-misc-{BDF}", "eth0", {"bus_info": BDF}, ("misc", None)),
    # --- marvell / cavium / qlogic
    ("thunderx nicvf", "eth0-rxtx-2", "eth0", {}, ("combined", 2)),
    ("thunderx nicvf sq", "eth0-sq-1", "eth0", {}, ("tx", 1)),
    ("thunderx nicvf rbdr", "eth0-rbdr-0", "eth0", {}, ("misc", None)),
    ("thunderx nicvf qset err", "eth0-qset-err-0", "eth0", {}, ("misc", None)),
    ("octeontx2", "eth0-rxtx-3", "eth0", {}, ("combined", 3)),
    ("octeontx2 qerr", "eth0-qerr", "eth0", {}, ("misc", None)),
    ("octeon_ep", "eth0-q3", "eth0", {}, ("combined", 3)),
    ("octeon_ep non-queue", "eth0-epf_mbox_rint", "eth0", {}, ("misc", None)),
    ("liquidio", "LiquidIO0-pf1-rxtx-3", "eth0", {"msi_irqs": {"45"}}, ("combined", 3)),
    ("liquidio aux", "LiquidIO0-pf1-aux", "eth0", {"msi_irqs": {"45"}}, ("misc", None)),
    ("qede/bnx2x", "eth0-fp-2", "eth0", {}, ("combined", 2)),
    ("qlcnic", "eth0-rx-1", "eth0", {}, ("rx", 1)),
    ("qlcnic shared tx", "eth0-tx-0-rx-3", "eth0", {}, ("combined", 3)),
    ("qlcnic/netxen old", "eth0[2]", "eth0", {}, ("combined", 2)),
    # --- others
    ("sfc", "eth0-3", "eth0", {}, ("combined", 3)),
    ("sfc split", "eth0-tx-0", "eth0", {}, ("tx", 0)),
    ("sfc xdp", "eth0-xdp-1", "eth0", {}, ("misc", None)),
    ("sfc ptp", "eth0-ptp", "eth0", {}, ("misc", None)),
    ("be2net", "eth4-q0", "eth4", {}, ("combined", 0)),
    ("nfp", "eth0-rxtx-3", "eth0", {}, ("combined", 3)),
    ("nfp link", "eth0-lsc", "eth0", {}, ("misc", None)),
    ("nfp exception", "eth0-exn", "eth0", {}, ("misc", None)),
    ("ionic", "ionic-eth0-L0-rx3", "eth0", {}, ("rx", 3)),
    ("ionic split tx", "ionic-eth0-L0-tx3", "eth0", {}, ("tx", 3)),
    ("ionic adminq", f"ionic-{BDF}-L0-adminq0", "eth0", {"bus_info": BDF}, ("misc", None)),
    ("ionic adminq cut", "ionic-eth0-L0-admin", "eth0", {}, ("misc", None)),
    ("atlantic (every vector)", "enp5s0", "enp5s0", {}, ("combined", None)),
    ("stmmac", "eth0:rx-0", "eth0", {}, ("rx", 0)),
    ("stmmac", "eth0:tx-1", "eth0", {}, ("tx", 1)),
    ("stmmac mac", "eth0:mac", "eth0", {}, ("misc", None)),
    ("stmmac safety", "eth0:safety-ce", "eth0", {}, ("misc", None)),
    ("myri10ge", "eth0:slice-3", "eth0", {}, ("combined", 3)),
    ("bna", "eth0 TXQ 0", "eth0", {}, ("tx", 0)),
    ("bna", "eth0 CQ 3", "eth0", {}, ("rx", 3)),
    ("enic", "eth0-err", "eth0", {}, ("misc", None)),
    ("enic", "eth0-notify", "eth0", {}, ("misc", None)),
    ("enetc", "eth0-rxtx3", "eth0", {}, ("combined", 3)),
    ("xgene", "eth0-txc-0", "eth0", {}, ("tx", 0)),
    ("xgene shared", "eth0-rx-txc", "eth0", {}, ("combined", None)),
    # --- platform and newer drivers (issue 22 #25, the stop-24 gaps)
    ("ravb best effort rx", "eth0:ch0:rx_be", "eth0", {}, ("rx", 0)),
    ("ravb network control rx", "eth0:ch1:rx_nc", "eth0", {}, ("rx", 1)),
    ("ravb best effort tx", "eth0:ch18:tx_be", "eth0", {}, ("tx", 0)),
    ("ravb network control tx", "eth0:ch19:tx_nc", "eth0", {}, ("tx", 1)),
    ("ravb multi", "eth0:ch22:multi", "eth0", {}, ("misc", None)),
    ("ravb emac", "eth0:ch24:emac", "eth0", {}, ("misc", None)),
    ("ravb error", "eth0:err_a", "eth0", {}, ("misc", None)),
    ("ravb management", "eth0:mgmt_a", "eth0", {}, ("misc", None)),
    ("gianfar group tx", "eth0_g0_tx", "eth0", {}, ("tx", 0)),
    ("gianfar group rx", "eth0_g1_rx", "eth0", {}, ("rx", 1)),
    ("gianfar group errors", "eth0_g1_er", "eth0", {}, ("misc", None)),
    ("funeth", "eth0-rx-3", "eth0", {}, ("rx", 3)),
    ("funeth", "eth0-tx-2", "eth0", {}, ("tx", 2)),
    ("fbnic", "eth0-TxRx-3", "eth0", {}, ("combined", 3)),
    ("fbnic tx only", "eth0-Tx-5", "eth0", {}, ("tx", 5)),
]


def _text(name: str, chip: str = "IR-PCI-MSI 524288-edge") -> str:
    return f"{_HEADER}  45:         10          0  {chip}      {name}\n"


@pytest.mark.parametrize(("driver", "name", "ifname", "kwargs", "expected"), ROWS)
def test_driver_irq_name(
    driver: str, name: str, ifname: str, kwargs: dict[str, Any], expected: tuple[str, int | None]
) -> None:
    parsed = parse_interrupts(_text(name))
    assert [r.name for r in parsed.rows] == [name], driver  # the parser keeps it whole
    found = nic_irqs(parsed, ifname, **kwargs)
    assert [(q.irq, q.kind, q.index) for q in found] == [("45", *expected)], driver
    # The old x86 format (handler glued to the chip, no hwirq) gives the same answer.
    old = nic_irqs(parse_interrupts(_text(name, "PCI-MSI-edge")), ifname, **kwargs)
    assert [(q.kind, q.index) for q in old] == [expected], driver


def test_bare_name_is_misc_beside_queue_vectors() -> None:
    # e1000e with MSI-X, r8169 never: the vector named after the interface alone is "other".
    text = _HEADER + "".join(
        f"  {irq}:  1  0  IR-PCI-MSI {irq}-edge      {name}\n"
        for irq, name in (("40", "eth0-rx-0"), ("41", "eth0-tx-0"), ("42", "eth0"))
    )
    found = nic_irqs(parse_interrupts(text), "eth0")
    assert [(q.irq, q.kind, q.index) for q in found] == [
        ("40", "rx", 0),
        ("41", "tx", 0),
        ("42", "misc", None),
    ]


def test_vmxnet3_vectors_as_the_vm_bench_guest_shows_them() -> None:
    # QEMU's vmxnet3 in the VM bench's guest (Debian 6.1, 4 vCPUs; tests/vm/test_vmxnet3.py
    # printed them): one vector per queue pair and the event vector last.
    names = ["enp0s12-rxtx-0", "enp0s12-rxtx-1", "enp0s12-rxtx-2", "enp0s12-rxtx-3"]
    text = _HEADER + "".join(
        f"  {60 + i}:  1  0  PCI-MSIX-0000:00:0c.0 {i}-edge      {name}\n"
        for i, name in enumerate([*names, "enp0s12-event-4"])
    )
    found = nic_irqs(parse_interrupts(text), "enp0s12")
    assert [(q.irq, q.kind, q.index) for q in found] == [
        *((str(60 + i), "combined", i) for i in range(4)),
        ("64", "misc", None),
    ]


@pytest.mark.parametrize(
    "name",
    [
        "eth0 (queue 3",  # unbalanced
        "eth0 ((queue 3))",
        "eth0 (queue x)",
        "eth0 (queue 1234567890)",  # ten digits: not a queue number
        "eth0[99999999999]",
        "eth0[-1]",
        "eth0[]",
        "eth0-rx-1234567890",
        "eth0 TXQ",
        "eth0  TXQ 0",  # two spaces: not what bna prints
        "eth0:",
        "eth0_",
        "eth0-",
        "eth0.100-TxRx-0",  # a VLAN interface's name, not eth0's
        "eth01-TxRx-0",
        "xeth0-TxRx-0",
        "eth0-TxRx-0" + "x" * 200,
        "eth0-" + "1" * 300,
        "ionic-eth0-L0-",
        "LiquidIO0-pf1-rxtx-3",  # without membership: says nothing about eth0
    ],
)
def test_hostile_names_are_not_queues(name: str) -> None:
    assert classify(name, "eth0") is None
    assert nic_irqs(parse_interrupts(_text(name)), "eth0") == ()


def test_overlong_name_is_ignored_even_when_it_starts_right() -> None:
    name = "eth0 (queue 3)" + " " * 200 + ")"
    assert classify(name, "eth0") is None


@given(
    suffix=st.text(alphabet=st.sampled_from("-:_ [()]0123456789rxtqTXQCL."), max_size=40),
    ifname=st.sampled_from(["eth0", "e", "enp129s0f0", "a b", "(x)", "[0]"]),
)
def test_separators_never_raise(suffix: str, ifname: str) -> None:
    r = classify(ifname + suffix, ifname)
    assert r is None or r[0] in ("rx", "tx", "combined", "misc")
    assert r is None or r[1] is None or 0 <= r[1] < 10**9
