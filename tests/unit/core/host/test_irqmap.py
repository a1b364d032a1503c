"""IRQ -> interface/queue mapping against the real captures in shared/fixtures/interrupts."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuitune.core.host.interrupts import Interrupts, parse_interrupts
from tuitune.core.host.irqmap import NicIrq, classify, nic_irqs


def _idx(n: int, start: int = 0) -> list[int | None]:
    return list(range(start, start + n))


Case = tuple[str, str, dict[str, str], dict[str, list[int | None]]]


def _case(
    name: str, ifname: str, kwargs: dict[str, str], expected: dict[str, list[int | None]]
) -> Case:
    return name, ifname, kwargs, expected


_MULTIQUEUE: dict[str, dict[str, list[int | None]]] = {
    "eth4": {"combined": _idx(4), "misc": [None]},
    "eth5": {"combined": _idx(4), "misc": [None]},
    "eth0": {"combined": [None]},
}

# (file, ifname, nic_irqs keyword arguments, {kind: expected indices in order}).
# Derived from the "NIC / queues" column of SOURCES.md (and, where it names no interface or
# PCI address, from the names printed in the file itself: the ENA mgmnt rows give each ENI's
# BDF, the mlx5 rows their VF's).
CASES: list[Case] = [
    # single-IRQ onboard NIC: the bare name is its only vector
    ("e1000e-laptop_8cpu_x86_64_pcp.txt", "enp0s25", {}, {"combined": [None]}),
    # ENA: eth0-Tx-Rx-0..7 + ena-mgmnt@pci:0000:00:05.0
    (
        "ena_8cpu_aarch64_graviton.txt",
        "eth0",
        {"bus_info": "0000:00:05.0"},
        {"combined": _idx(8), "misc": [None]},
    ),
    ("ena_8cpu_aarch64_graviton.txt", "eth0", {}, {"combined": _idx(8)}),
    *[
        _case(
            "ena_3eni_4cpu_ec2_x86_nvme_full.txt",
            f"eth{i}",
            {"bus_info": f"0000:00:0{5 + i}.0"},
            {"combined": _idx(4), "misc": [None]},
        )
        for i in range(3)
    ],
    ("ena_4cpu_c5xlarge_centos7_egrep_CPU_ens.txt", "ens5", {}, {"combined": _idx(4)}),
    # mlx5 VF x 2, old names: pages/cmd/async eq + comp0..7, matched by bus_info only
    *[
        _case(
            "mlx5_azure_vf_8cpu_centos7_lkml.txt",
            ifname,
            {"bus_info": bdf},
            {"combined": _idx(8), "misc": [None] * 3},
        )
        for ifname, bdf in (("eth1", "8b76:00:02.0"), ("eth2", "83a4:00:02.0"))
    ],
    ("mlx5_azure_vf_8cpu_centos7_lkml.txt", "eth1", {}, {}),
    # mlx5 new names: async0 + comp0..11 on .0, async0 + comp0 on .1
    (
        "mlx5_12cpu_ryzen_cx5_grep_mlx_kernel6x.txt",
        "enp1s0f0np0",
        {"bus_info": "0000:01:00.0"},
        {"combined": _idx(12), "misc": [None]},
    ),
    (
        "mlx5_12cpu_ryzen_cx5_grep_mlx_kernel6x.txt",
        "enp1s0f1np1",
        {"bus_info": "0000:01:00.1"},
        {"combined": [0], "misc": [None]},
    ),
    # virtio: 1 queue pair + config; 4 queue pairs (egrep: no config row)
    (
        "virtio_net_1q_4cpu_kvm_procfs.txt",
        "eth0",
        {"virtio_dev": "virtio0"},
        {"rx": [0], "tx": [0], "misc": [None]},
    ),
    (
        "virtio_net_4q_16cpu_egrep_subset.txt",
        "eth0",
        {"virtio_dev": "virtio0"},
        {"rx": _idx(4), "tx": _idx(4)},
    ),
    (
        "netutils_virtio_net_1cpu_vscale-vm.txt",
        "eth0",
        {"virtio_dev": "virtio0"},
        {"rx": [0], "tx": [0], "misc": [None]},
    ),
    # the virtio-blk device of the same VM is not the NIC
    (
        "netutils_virtio_net_1cpu_vscale-vm.txt",
        "eth0",
        {"virtio_dev": "virtio1"},
        {"misc": [None, None]},
    ),
    # ixgbe eno49-TxRx-0..31 + eno49
    ("ixgbe_32cpu_centos7_grep_eno49.txt", "eno49", {}, {"combined": _idx(32), "misc": [None]}),
    ("igb_32cpu_centos7_grep_TxRx_em1_em2.txt", "em1", {}, {"combined": _idx(8)}),
    ("igb_32cpu_centos7_grep_TxRx_em1_em2.txt", "em2", {}, {"combined": _idx(8)}),
    *[
        _case(f, "eth0", {}, {"combined": _idx(8), "misc": [None]})
        for f in (
            "igb-style_16cpu_nehalem_kernel2.6.38_snapA_before.txt",
            "igb-style_16cpu_nehalem_kernel2.6.38_snapB_after_0.14s.txt",
            "igb-style_16cpu_sandybridge-ep_rhel6_snapA_before.txt",
            "igb-style_16cpu_sandybridge-ep_rhel6_snapB_after.txt",
        )
    ],
    # tg3: ethN-tx-0 + ethN-rx-1..4
    *[
        _case(f, f"eth{n}", {}, {"rx": _idx(4, 1), "tx": [0]})
        for f in (
            "tg3_32cpu_broadwell-ep_kernel4.13_snapA_before.txt",
            "tg3_32cpu_broadwell-ep_kernel4.13_snapB_after.txt",
        )
        for n in range(4)
    ],
    *[
        _case(f"netutils_series_multiqueue_4cpu_snap{i}.txt", ifname, {}, expected)
        for i in range(1, 6)
        for ifname, expected in _MULTIQUEUE.items()
    ],
    *[
        _case(f"netutils_series_singlequeue_8cpu_snap{i}.txt", ifname, {}, {"combined": [None]})
        for i in range(1, 6)
        for ifname in ("eth0", "eth1")
    ],
    # 144 TxRx over 6 ports: 8 + 8 + 4 x 32, each port with its link vector
    *[
        _case(
            "netutils_ixgbe-82599_igb-i350_32cpu.txt",
            f"eth{n}",
            {},
            {"combined": _idx(q), "misc": [None]},
        )
        for n, q in ((0, 8), (1, 8), (2, 32), (3, 32), (4, 32), (5, 32))
    ],
    # qlcnic: rx-0..2 + tx-0-rx-3 (tx ring 0 shares the vector of rx ring 3)
    *[
        _case("netutils_qlcnic_tg3_48cpu.txt", f"eth{n}", {}, {"rx": _idx(3), "combined": [3]})
        for n in (0, 1)
    ],
    # mlx4_en per-port vectors eth6-0..7 / eth7-0..7; with bus_info the mlx4 pool vectors
    # (comp-0..2, async) come along as misc; tg3 eth0/eth1; be2net eth4 has no rows
    (
        "netutils_mlx4_be2net_tg3_16cpu.txt",
        "eth6",
        {"bus_info": "0000:04:00.0"},
        {"combined": _idx(8), "misc": [None] * 4},
    ),
    ("netutils_mlx4_be2net_tg3_16cpu.txt", "eth7", {}, {"combined": _idx(8)}),
    ("netutils_mlx4_be2net_tg3_16cpu.txt", "eth0", {}, {"rx": _idx(4, 1), "tx": [0]}),
    ("netutils_mlx4_be2net_tg3_16cpu.txt", "eth1", {}, {"rx": _idx(4, 1), "tx": [0]}),
    ("netutils_mlx4_be2net_tg3_16cpu.txt", "eth4", {}, {}),
    # bnx2 eth0-0..7 / eth1-0..7; mlx4 eth2-0..7 + pool vectors by bus_info
    ("netutils_bnx2_mlx4_12cpu.txt", "eth0", {}, {"combined": _idx(8)}),
    ("netutils_bnx2_mlx4_12cpu.txt", "eth1", {}, {"combined": _idx(8)}),
    (
        "netutils_bnx2_mlx4_12cpu.txt",
        "eth2",
        {"bus_info": "0000:07:00.0"},
        {"combined": _idx(8), "misc": [None] * 4},
    ),
    # i40e-eth0-TxRx-0..3 + i40e-<bdf>:misc + i40e-<bdf>:fdir-TxRx-0; e1000e eth2; igb eth3
    (
        "netutils_i40e-x710_e1000e_igb_4cpu.txt",
        "eth0",
        {"bus_info": "0000:01:00.0"},
        {"combined": _idx(4), "misc": [None, None]},
    ),
    ("netutils_i40e-x710_e1000e_igb_4cpu.txt", "eth0", {}, {"combined": _idx(4)}),
    ("netutils_i40e-x710_e1000e_igb_4cpu.txt", "eth2", {}, {"combined": [None]}),
    ("netutils_i40e-x710_e1000e_igb_4cpu.txt", "eth3", {}, {"combined": _idx(4), "misc": [None]}),
    # mlx5 x 2 ports, old naming, by bus_info
    *[
        _case(
            "netutils_mlx5_4cpu_core2quad-Q6700.txt",
            "enp1s0",
            {"bus_info": f"0000:01:00.{fn}"},
            {"combined": _idx(4), "misc": [None] * 3},
        )
        for fn in (0, 1)
    ],
    # ixgbe 2 ports x 8 TxRx
    *[
        _case(
            "netutils_ixgbe_12cpu_E5645.txt", f"eth{n}", {}, {"combined": _idx(8), "misc": [None]}
        )
        for n in (0, 1)
    ],
    # igb rx/tx split: 5 ports x (4 rx + 4 tx) + link vector
    *[
        _case(
            "netutils_igb_rx-tx-split_4cpu_E5606.txt",
            f"eth{n}",
            {},
            {"rx": _idx(4), "tx": _idx(4), "misc": [None]},
        )
        for n in (0, 1, 3, 4, 5)
    ],
    *[
        _case(
            "netutils_igb-i350_rx-tx-split_4cpu_i5-6400.txt",
            f"eth{n}",
            {},
            {"rx": _idx(4), "tx": _idx(4), "misc": [None]},
        )
        for n in (0, 1)
    ],
    *[
        _case("netutils_strange-cpu-layout_8cpu_TxRx.txt", f"eth{n}", {}, {"combined": _idx(8)})
        for n in (0, 1)
    ],
    # Hyper-V netvsc: VMBus, no NIC rows at all
    ("hyperv_netvsc_2cpu_no_nic_irqs.txt", "eth0", {}, {}),
    # ice fragment: ice-lan1-TxRx-0..2 + ice-<bdf>:misc (the ctrl vector is the other port's)
    (
        "ice_16cpu_PARTIAL_excerpt_metal-stack136.txt",
        "lan1",
        {"bus_info": "0000:65:00.1"},
        {"combined": _idx(3), "misc": [None]},
    ),
    # gve: ntfy-blk0/1 + mgmnt, by bus_info
    (
        "gve_2cpu_grep_snippet_gve-issue30.txt",
        "ens4",
        {"bus_info": "0000:00:04.0"},
        {"combined": _idx(2), "misc": [None]},
    ),
]


def _parse(fixtures_dir: Path, name: str) -> Interrupts:
    return parse_interrupts((fixtures_dir / "interrupts" / name).read_text())


def _by_kind(found: tuple[NicIrq, ...]) -> dict[str, list[int | None]]:
    out: dict[str, list[int | None]] = {}
    for q in found:
        out.setdefault(q.kind, []).append(q.index)
    return out


def _assert_sorted(found: tuple[NicIrq, ...]) -> None:
    order = {"rx": 0, "tx": 1, "combined": 2, "misc": 3}
    keys = [(order[q.kind], q.index is None, q.index or 0, int(q.irq)) for q in found]
    assert keys == sorted(keys)
    assert len({q.irq for q in found}) == len(found), "an IRQ listed twice"


@pytest.mark.parametrize(
    ("name", "ifname", "kwargs", "expected"),
    CASES,
    ids=[f"{c[0]}:{c[1]}:{','.join(c[2].values()) or '-'}" for c in CASES],
)
def test_fixture_nic_queues(
    fixtures_dir: Path,
    name: str,
    ifname: str,
    kwargs: dict[str, str],
    expected: dict[str, list[int | None]],
) -> None:
    found = nic_irqs(_parse(fixtures_dir, name), ifname, **kwargs)
    assert _by_kind(found) == expected
    _assert_sorted(found)


def test_every_nic_fixture_is_covered(fixtures_dir: Path) -> None:
    covered = {c[0] for c in CASES}
    on_disk = {p.name for p in (fixtures_dir / "interrupts").glob("*.txt")}
    assert on_disk == covered


def test_specific_rows(fixtures_dir: Path) -> None:
    found = nic_irqs(_parse(fixtures_dir, "ixgbe_32cpu_centos7_grep_eno49.txt"), "eno49")
    assert found[0] == NicIrq("147", "eno49-TxRx-0", "combined", 0)
    assert found[31] == NicIrq("178", "eno49-TxRx-31", "combined", 31)
    assert found[-1] == NicIrq("179", "eno49", "misc", None)

    found = nic_irqs(
        _parse(fixtures_dir, "virtio_net_4q_16cpu_egrep_subset.txt"), "eth0", virtio_dev="virtio0"
    )
    assert [(q.irq, q.kind, q.index) for q in found] == [
        ("45", "rx", 0),
        ("47", "rx", 1),
        ("49", "rx", 2),
        ("51", "rx", 3),
        ("46", "tx", 0),
        ("48", "tx", 1),
        ("50", "tx", 2),
        ("52", "tx", 3),
    ]

    found = nic_irqs(
        _parse(fixtures_dir, "ena_8cpu_aarch64_graviton.txt"), "eth0", bus_info="0000:00:05.0"
    )
    assert found[-1] == NicIrq("57", "ena-mgmnt@pci:0000:00:05.0", "misc", None)

    found = nic_irqs(
        _parse(fixtures_dir, "mlx5_12cpu_ryzen_cx5_grep_mlx_kernel6x.txt"),
        "enp1s0f0np0",
        bus_info="0000:01:00.0",
    )
    assert found[0] == NicIrq("99", "mlx5_comp0@pci:0000:01:00.0", "combined", 0)
    assert found[1].irq == "109"
    assert found[-1] == NicIrq("98", "mlx5_async0@pci:0000:01:00.0", "misc", None)

    found = nic_irqs(_parse(fixtures_dir, "netutils_qlcnic_tg3_48cpu.txt"), "eth1")
    assert found[-1] == NicIrq("96", "eth1-tx-0-rx-3", "combined", 3)

    found = nic_irqs(_parse(fixtures_dir, "e1000e-laptop_8cpu_x86_64_pcp.txt"), "enp0s25")
    assert found == (NicIrq("29", "enp0s25", "combined", None),)


def test_msi_irqs_membership_dual_port_mlx4(fixtures_dir: Path) -> None:
    # msi_irqs of the shared PCI function lists both ports' vectors (109..128); eth7's rings
    # are not eth6's, the pool and async vectors are misc.
    parsed = _parse(fixtures_dir, "netutils_mlx4_be2net_tg3_16cpu.txt")
    msi = {str(i) for i in range(109, 129)}
    found = nic_irqs(parsed, "eth6", msi_irqs=msi)
    assert _by_kind(found) == {"combined": _idx(8), "misc": [None] * 4}
    assert {q.irq for q in found} == {str(i) for i in range(109, 121)}
    assert all(not q.name.startswith("eth7") for q in found)


def test_msi_irqs_membership_unknown_names_are_misc(fixtures_dir: Path) -> None:
    parsed = _parse(fixtures_dir, "mlx5_azure_vf_8cpu_centos7_lkml.txt")
    # Without bus_info the @pci names still tell the completion vectors.
    found = nic_irqs(parsed, "eth1", msi_irqs=[str(i) for i in (24, 25, 26, *range(28, 36))])
    assert _by_kind(found) == {"combined": _idx(8), "misc": [None] * 3}
    # A member whose name says nothing is misc, and a non-member never appears.
    parsed = _parse(fixtures_dir, "e1000e-laptop_8cpu_x86_64_pcp.txt")
    found = nic_irqs(parsed, "wlp3s0", msi_irqs={"33"})
    assert found == (NicIrq("33", "iwlwifi", "misc", None),)


def test_msi_irqs_virtio_without_virtio_dev(fixtures_dir: Path) -> None:
    parsed = _parse(fixtures_dir, "virtio_net_1q_4cpu_kvm_procfs.txt")
    found = nic_irqs(parsed, "eth0", msi_irqs={"35", "36", "37"})
    assert [(q.irq, q.kind, q.index) for q in found] == [
        ("36", "rx", 0),
        ("37", "tx", 0),
        ("35", "misc", None),
    ]


def test_per_device_msi_chip_is_membership() -> None:
    text = (
        "           CPU0       CPU1\n"
        " 37:          0          0 PCI-MSIX-0000:00:03.0   0-edge      virtio2-config\n"
        " 38:          0       1031 PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
        " 39:        714          0 PCI-MSIX-0000:00:03.0   2-edge      virtio2-output.0\n"
        " 41:        804          0 PCI-MSIX-0000:00:04.0   1-edge      virtio3-rx\n"
        " 42:          0          0 PCI-MSIX-0000:00:03.1   1-edge      virtio9-input.0\n"
    )
    found = nic_irqs(parse_interrupts(text), "eth0", bus_info="0000:00:03.0")
    assert [(q.irq, q.kind, q.index) for q in found] == [
        ("38", "rx", 0),
        ("39", "tx", 0),
        ("37", "misc", None),
    ]


def test_whole_token_interface_names() -> None:
    text = "  CPU0\n" + "".join(
        f" {irq}: 1 PCI-MSI-edge {name}\n"
        for irq, name in enumerate(
            [
                "em1-TxRx-0",
                "em10-TxRx-0",
                "em10",
                "veth0-rx-0",
                "eth0.100-rx-0",
                "eth0-rx-0",
                "eth0x",
                "xeth0",
                "eth0-TxRx-bogus",
                "em1",
                "eth0-tx-0",
                "em123",
                "eth012-rx-0",
                "eth05",
            ],
            start=100,
        )
    )
    parsed = parse_interrupts(text)
    assert [(q.name, q.kind) for q in nic_irqs(parsed, "em1")] == [
        ("em1-TxRx-0", "combined"),
        ("em1", "misc"),
    ]
    assert [q.name for q in nic_irqs(parsed, "em10")] == ["em10-TxRx-0", "em10"]
    assert [q.name for q in nic_irqs(parsed, "eth0")] == ["eth0-rx-0", "eth0-tx-0"]
    assert nic_irqs(parsed, "eth0.100")[0].name == "eth0.100-rx-0"
    assert nic_irqs(parsed, "eth") == ()
    assert nic_irqs(parsed, "") == ()


def test_shared_irq_names() -> None:
    text = (
        "  CPU0 CPU1\n"
        " 18:  5 6  IO-APIC-fasteoi   ehci_hcd:usb1, eth1\n"
        " 19:  1 2  IO-APIC-fasteoi   uhci_hcd:usb3, hpilo\n"
    )
    found = nic_irqs(parse_interrupts(text), "eth1")
    assert found == (NicIrq("18", "eth1", "combined", None),)
    assert classify("ehci_hcd:usb1, uhci_hcd:usb8", "eth0") is None
    assert classify("ehci_hcd:usb1, eth0-TxRx-3", "eth0") == ("combined", 3)


@pytest.mark.parametrize(
    ("name", "ifname", "kwargs", "expected"),
    [
        ("eth0-TxRx-7", "eth0", {}, ("combined", 7)),
        ("eth0-txrx-1", "eth0", {}, ("combined", 1)),  # tg3 shared vector
        ("eth0-Tx-Rx-2", "eth0", {}, ("combined", 2)),  # ena
        ("eth0-rxtx-3", "eth0", {}, ("combined", 3)),  # nfp, vmxnet3
        ("eth0-fp-4", "eth0", {}, ("combined", 4)),  # bnx2x, qede
        ("eth4-q0", "eth4", {}, ("combined", 0)),  # be2net
        ("eth2-5", "eth2", {}, ("combined", 5)),  # mlx4_en, bnx2, sfc
        ("eth0-rx-2", "eth0", {}, ("rx", 2)),
        ("eth0-tx-0", "eth0", {}, ("tx", 0)),
        ("eth0-tx-0-rx-3", "eth0", {}, ("combined", 3)),  # qlcnic
        ("i40e-eth0-TxRx-1", "eth0", {}, ("combined", 1)),
        ("ice-lan1-TxRx-2", "lan1", {}, ("combined", 2)),
        ("eth0", "eth0", {}, ("misc", None)),
        ("eth0-err", "eth0", {}, ("misc", None)),  # enic
        ("eth0-event-0", "eth0", {}, ("misc", None)),  # vmxnet3
        ("eth0-lsc", "eth0", {}, ("misc", None)),
        ("ena-mgmnt@pci:0000:00:05.0", "eth0", {"bus_info": "0000:00:05.0"}, ("misc", None)),
        ("ena-mgmnt@pci:0000:00:05.0", "eth0", {"bus_info": "0000:00:06.0"}, None),
        ("ena-mgmnt@pci:0000:00:05.0", "eth0", {}, None),
        ("mlx5_comp3@pci:0000:01:00.0", "p0", {"bus_info": "0000:01:00.0"}, ("combined", 3)),
        ("mlx5_comp3@pci:0000:01:00.1", "p0", {"bus_info": "0000:01:00.0"}, None),
        ("mlx5_async0@pci:0000:01:00.0", "p0", {"bus_info": "0000:01:00.0"}, ("misc", None)),
        ("mlx5_pages_eq@pci:0000:01:00.0", "p0", {"bus_info": "0000:01:00.0"}, ("misc", None)),
        ("mlx5_cmd_eq@pci:0000:01:00.0", "p0", {"bus_info": "0000:01:00.0"}, ("misc", None)),
        ("mlx5_async_eq@pci:0000:01:00.0", "p0", {"bus_info": "0000:01:00.0"}, ("misc", None)),
        ("mlx4-2@pci:0000:04:00.0", "eth6", {"bus_info": "0000:04:00.0"}, ("combined", 2)),
        ("mlx4-comp-1@pci:0000:04:00.0", "eth6", {"bus_info": "0000:04:00.0"}, ("combined", 1)),
        ("mlx4-async@pci:0000:04:00.0", "eth6", {"bus_info": "0000:04:00.0"}, ("misc", None)),
        ("gve-ntfy-blk1@pci:0000:00:04.0", "ens4", {"bus_info": "0000:00:04.0"}, ("combined", 1)),
        ("gve-mgmnt@pci:0000:00:04.0", "ens4", {"bus_info": "0000:00:04.0"}, ("misc", None)),
        ("mana_q3@pci:7870:00:00.0", "eth1", {"bus_info": "7870:00:00.0"}, ("combined", 3)),
        ("i40e-0000:01:00.0:misc", "eth0", {"bus_info": "0000:01:00.0"}, ("misc", None)),
        ("i40e-0000:01:00.0:fdir-TxRx-0", "eth0", {"bus_info": "0000:01:00.0"}, ("misc", None)),
        ("i40e-0000:01:00.1:misc", "eth0", {"bus_info": "0000:01:00.0"}, None),
        ("hns3-0000:7d:00.0-TxRx-5", "eth0", {"bus_info": "0000:7d:00.0"}, ("combined", 5)),
        ("virtio2-input.3", "eth0", {"virtio_dev": "virtio2"}, ("rx", 3)),
        ("virtio2-output.0", "eth0", {"virtio_dev": "virtio2"}, ("tx", 0)),
        ("virtio2-config", "eth0", {"virtio_dev": "virtio2"}, ("misc", None)),
        ("virtio2-virtqueues", "eth0", {"virtio_dev": "virtio2"}, ("combined", None)),
        ("virtio20-input.0", "eth0", {"virtio_dev": "virtio2"}, None),
        ("virtio2-input.0", "eth0", {}, None),
        ("eth0-TxRx-0", "eth1", {}, None),
        ("i40e-eth0x3", "eth0", {}, None),
        ("i40e-eth01-TxRx-3", "eth0", {}, None),
        ("i40e-0000:01:00.10:misc", "eth0", {"bus_info": "0000:01:00.1"}, None),
        ("x0000:01:00.1:misc", "eth0", {"bus_info": "0000:01:00.1"}, None),
        ("0000:01:00.1", "eth0", {"bus_info": "0000:01:00.1"}, ("misc", None)),
        ("PCIe PME", "eth0", {}, None),
        ("", "eth0", {}, None),
    ],
)
def test_classify(
    name: str, ifname: str, kwargs: dict[str, Any], expected: tuple[str, int | None] | None
) -> None:
    assert classify(name, ifname, **kwargs) == expected


@given(
    name=st.text(max_size=60),
    ifname=st.text(max_size=16),
    bus=st.none() | st.text(max_size=16),
    vdev=st.none() | st.text(max_size=10),
)
def test_classify_never_raises(name: str, ifname: str, bus: str | None, vdev: str | None) -> None:
    r = classify(name, ifname, bus_info=bus, virtio_dev=vdev)
    assert r is None or r[0] in ("rx", "tx", "combined", "misc")
    text = f"  CPU0\n 5: 1 chip {name}\n"
    for q in nic_irqs(parse_interrupts(text), ifname, msi_irqs={"5"}, bus_info=bus):
        assert q.irq == "5"


# --- this machine (read only) ------------------------------------------------------------


def _live_eth0() -> tuple[Path, str]:
    dev = Path("/sys/class/net/eth0/device")
    if not dev.exists():
        pytest.skip("no /sys/class/net/eth0/device")
    real = dev.resolve()
    if not real.name.startswith("virtio"):
        pytest.skip(f"eth0 is not virtio-net here ({real.name})")
    return real, real.name


def test_live_virtio_eth0_queues() -> None:
    real, virtio_dev = _live_eth0()
    parsed = parse_interrupts(Path("/proc/interrupts").read_text())
    found = nic_irqs(parsed, "eth0", virtio_dev=virtio_dev)
    kinds = _by_kind(found)
    rx, tx = kinds.get("rx", []), kinds.get("tx", [])
    assert rx, f"no rx queue IRQs for {virtio_dev}"
    assert rx == tx == _idx(len(rx))
    rows = parsed.by_irq()
    for q in found:
        assert rows[q.irq].name.startswith(f"{virtio_dev}-")

    # The PCI parent's msi_irqs and bus address find the same IRQs.
    msi_dir = real.parent / "msi_irqs"
    if msi_dir.is_dir():
        msi = set(os.listdir(msi_dir))
        assert {q.irq for q in found} <= msi
        by_msi = nic_irqs(parsed, "eth0", msi_irqs=msi)
        assert [(q.irq, q.kind, q.index) for q in by_msi] == [
            (q.irq, q.kind, q.index) for q in found
        ]
    # Kernels with per-device MSI domains name the chip after the PCI device.
    if any(r.chip.endswith("-" + real.parent.name) for r in parsed.rows):
        by_bus = nic_irqs(parsed, "eth0", bus_info=real.parent.name)
        assert [(q.irq, q.kind, q.index) for q in by_bus] == [
            (q.irq, q.kind, q.index) for q in found
        ]


def test_kind_counts_helper_is_not_vacuous(fixtures_dir: Path) -> None:
    # Guard against a mapping that returns everything: the hpsa/nvme/xhci rows of the files
    # above never show up under a NIC.
    parsed = _parse(fixtures_dir, "ena_3eni_4cpu_ec2_x86_nvme_full.txt")
    found = nic_irqs(parsed, "eth0", bus_info="0000:00:05.0")
    names = Counter(q.name.split("-")[0] for q in found)
    assert names == Counter({"eth0": 4, "ena": 1})
