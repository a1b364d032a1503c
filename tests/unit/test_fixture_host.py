"""The read side on recorded hosts (--root), assembled from the real captures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.hosttree import TreeSpec, build_tree, scale_interrupts
from tuitune.core.cpulist import parse_cpulist, parse_mask
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader


@pytest.fixture
def ixgbe_host(fixtures_dir: Path, tmp_path: Path) -> Path:
    """wg-esm-hc-1: the 32-CPU ixgbe host whose interrupts and softnet_stat were both captured."""
    return build_tree(
        tmp_path / "ixgbe",
        TreeSpec(
            ncpus=32,
            interrupts=(fixtures_dir / "interrupts/ixgbe_32cpu_centos7_grep_eno49.txt").read_text(),
            softnet=(fixtures_dir / "softnet_stat/ixgbe_host_32cpu_centos7_10col.txt").read_text(),
            ifname="eno49",
            rx_queues=32,
            tx_queues=32,
            sysctls={
                "net.core.netdev_max_backlog": "250000",
                "net.ipv4.tcp_rmem": "4096\t87380\t6291456",
            },
            irq_affinity={"101": "5"},
        ),
    )


def test_ixgbe_host_tree(ixgbe_host: Path) -> None:
    with HostReader(HostRoot.fixture(ixgbe_host)) as reader:
        snap = reader.snapshot("eno49")
    nic = snap.nic
    assert nic is not None
    kinds = [q.kind for q in nic.irqs]
    assert kinds.count("combined") == 32 and kinds.count("misc") == 1
    assert snap.host.topology.count == 32
    assert len(snap.counters.softnet) == 32
    assert snap.counters.softnet[1].processed == 0x000851B8  # second row of the capture
    # Groups a recorded tree cannot hold are states, not errors.
    assert nic.rings == Unavailable("missing", "not recorded in this host tree")
    values = {s.key: s.value for s in snap.host.sysctls}
    assert values["net.core.netdev_max_backlog"] == "250000"
    assert values["net.ipv4.tcp_rmem"] == "4096 87380 6291456"  # tabs folded
    assert values["net.core.somaxconn"] == Unavailable("missing", "not recorded")
    assert len(nic.queues) == 64


def test_show_root_json(ixgbe_host: Path) -> None:
    out = tuitune("show", "--root", ixgbe_host, "eno49", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert len(doc["interface"]["irqs"]) == 33
    assert doc["rates"] is None  # one recorded sample has no rates


def test_show_root_that_is_not_a_tree(tmp_path: Path) -> None:
    out = tuitune("show", "--root", tmp_path)
    assert out.returncode == 2 and "not a host tree" in out.stderr


def test_256_cpu_two_node_host(fixtures_dir: Path, tmp_path: Path) -> None:
    """The node_exporter igb i350 on a 256-CPU, 2-node host: NUMA placement of the NIC."""
    sysdir = fixtures_dir / "sys"
    local_list = (sysdir / "igb_i350_256cpu_2node_local_cpulist.txt").read_text().strip()
    local_mask = (sysdir / "igb_i350_256cpu_2node_local_cpus.txt").read_text().strip()
    # The kernel's two spellings of the same set agree.
    assert parse_cpulist(local_list) == parse_mask(local_mask)
    real = (fixtures_dir / "interrupts/netutils_ixgbe-82599_igb-i350_32cpu.txt").read_text()
    tree = build_tree(
        tmp_path / "big",
        TreeSpec(
            ncpus=256,
            interrupts=scale_interrupts(real, 8),
            ifname="eth0",
            bus="0000:45:00.0",
            numa_node=(sysdir / "igb_i350_256cpu_2node_numa_node.txt").read_text().strip(),
            local_cpulist=local_list,
            local_cpus=local_mask,
            nodes={0: "0-63,128-191", 1: "64-127,192-255"},
        ),
    )
    with HostReader(HostRoot.fixture(tree)) as reader:
        snap = reader.snapshot("eth0")
    assert snap.nic is not None
    assert snap.nic.placement.numa_node == 0
    assert snap.nic.placement.local_cpus == parse_cpulist("0-63,128-191")
    assert snap.counters.interrupts.cpus == tuple(range(256))
    assert len([q for q in snap.nic.irqs if q.kind == "combined"]) == 8
    topo = snap.host.topology
    assert topo.order()[:2] == [0, 1] and topo.order()[64] == 128  # grouped by node
    assert {n: len(c) for n, c in topo.nodes.items()} == {0: 128, 1: 128}


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("local_cpus_ff_eth3_netutils211.txt", set(range(8))),
        ("nvme_16cpu_local_cpus.txt", set(range(16))),
    ],
)
def test_sys_mask_fixtures(fixtures_dir: Path, name: str, expected: set[int]) -> None:
    assert parse_mask((fixtures_dir / "sys" / name).read_text()) == expected


def test_sys_numa_minus_one_means_no_node(fixtures_dir: Path, tmp_path: Path) -> None:
    for name in (
        "numa_node_minus1_eth0_netutils13.txt",
        "nvme_16cpu_single_node_numa_node_minus1.txt",
    ):
        node = (fixtures_dir / "sys" / name).read_text().strip()
        tree = build_tree(
            tmp_path / name,
            TreeSpec(
                ncpus=4,
                interrupts="",
                ifname="eth0",
                bus="0000:01:00.0",
                numa_node=node,
                local_cpulist=(fixtures_dir / "sys/nvme_16cpu_local_cpulist.txt")
                .read_text()
                .strip(),
            ),
        )
        with HostReader(HostRoot.fixture(tree)) as reader:
            nic = reader.nic_state("eth0")
        assert node == "-1" and nic.placement.numa_node is None
        assert nic.placement.local_cpus == set(range(16))


def test_sys_affinity_list_loop(fixtures_dir: Path) -> None:
    text = (fixtures_dir / "sys/virtio_irq45-52_smp_affinity_list_loop_16cpu.txt").read_text()
    got = {ln.split()[1]: parse_cpulist(ln.rsplit("CPUs", 1)[1]) for ln in text.splitlines() if ln}
    assert got["45"] == {0} and got["52"] == {3} and len(got) == 8
