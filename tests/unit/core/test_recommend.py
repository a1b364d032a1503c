"""`tuitune recommend` on recorded hosts: a 10G one (netutils-linux's 2 x E5-2640 with its
82599ES ports, 32 CPUs in 2 nodes) and a 100G one (the "100 GbE Lab" Ryzen with a ConnectX-5,
12 CPUs, one node), on a LAN and behind a WAN round trip; and the CLI on such a tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.command import tuitune
from tests.support.fixture_hosts import E5_2640_NODES, SHARED_FIXTURES
from tests.support.hosttree import TreeSpec, build_tree
from tuitune.core.host.root import HostRoot
from tuitune.core.profiles.recommend import host_facts, parse_rtt, recommend

INTERRUPTS = SHARED_FIXTURES / "interrupts"


def _with_speed(tree: Path, ifname: str, mbps: int, why: str) -> Path:
    (tree / f"sys/class/net/{ifname}/speed").write_text(f"{mbps}\n")
    with (tree / "SYNTHESISED").open("a") as f:
        f.write(f"sys/class/net/{ifname}/speed: {why}\n")
    return tree


@pytest.fixture(scope="module")
def host_10g(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = TreeSpec(
        ncpus=32,
        interrupts=(INTERRUPTS / "netutils_ixgbe-82599_igb-i350_32cpu.txt").read_text(),
        ifname="eth2",
        bus="0000:03:00.0",
        numa_node="0",
        local_cpulist=E5_2640_NODES[0],
        nodes=dict(E5_2640_NODES),
        rx_queues=32,
        tx_queues=32,
        notes=["eth2 numa_node 0 / local_cpulist / bus: synthesised (its IRQs are real)"],
    )
    tree = build_tree(tmp_path_factory.mktemp("h10g"), spec)
    return _with_speed(tree, "eth2", 10000, "10000: the 82599ES is a 10GbE controller")


@pytest.fixture(scope="module")
def host_100g(tmp_path_factory: pytest.TempPathFactory) -> Path:
    spec = TreeSpec(
        ncpus=12,
        interrupts=(INTERRUPTS / "mlx5_12cpu_ryzen_cx5_grep_mlx_kernel6x.txt").read_text(),
        ifname="enp1s0f0np0",
        bus="0000:01:00.0",
        numa_node="-1",
        nodes={0: "0-11"},
        rx_queues=12,
        tx_queues=12,
        notes=["enp1s0f0np0: the name mlx5 gives 0000:01:00.0 (synthesised)"],
    )
    tree = build_tree(tmp_path_factory.mktemp("h100g"), spec)
    return _with_speed(tree, "enp1s0f0np0", 100000, "100000: MCX516A-CCAT is 100GbE")


def test_the_10g_host_on_a_lan_is_cerns_with_its_irqs_on_node_0(host_10g: Path) -> None:
    facts = host_facts(HostRoot.fixture(host_10g), "eth2")
    assert (facts.speed_mbps, facts.cpus, facts.numa_nodes, facts.nic_node) == (10000, 32, 2, 0)
    rec = recommend(facts, None, "throughput")
    assert rec.profile.name == "lan-10g" and rec.scaled == ()
    assert "a LAN is assumed" in rec.why[0] and "CERN" in rec.why[0]
    assert "on node 0 (CPUs 0-7,16-23)" in rec.why[1]


def test_the_10g_host_behind_lofars_round_trip_gets_lofars_own_buffers(host_10g: Path) -> None:
    facts = host_facts(HostRoot.fixture(host_10g), "eth2")
    rec = recommend(facts, 3.77, "throughput")
    assert rec.profile.name == "wan-10g"
    # LOFAR's own numbers for 10G x 3.77 ms already hold twice the product: nothing scaled.
    assert rec.scaled == ()
    far = recommend(facts, 48.6, "throughput")
    values = {s.setting: s.value for s in far.scaled}
    assert values["net.ipv4.tcp_rmem"] == "4096 60750000 121500000"
    assert values["net.core.rmem_max"] == "121500000"
    assert "10 Gb/s x 48.6 ms / 8 = 60750000 bytes" in far.scaled[0].why


def test_the_100g_host_is_nasas_on_a_lan_and_esnets_on_a_wan(host_100g: Path) -> None:
    facts = host_facts(HostRoot.fixture(host_100g), "enp1s0f0np0")
    assert (facts.speed_mbps, facts.cpus, facts.numa_nodes, facts.nic_node) == (100000, 12, 1, None)
    assert recommend(facts, 0.1, "throughput").profile.name == "lan-40g"
    rec = recommend(facts, 48.6, "throughput")
    assert rec.profile.name == "wan-100g-dtn" and "ESnet" in rec.why[0]
    values = {s.setting: s.value for s in rec.scaled}
    # 100 Gb/s x 48.6 ms = 607.5 MB in flight; the maximum twice it.
    assert values["net.core.wmem_max"] == "1215000000"
    assert values["net.ipv4.tcp_wmem"] == "4096 607500000 1215000000"
    # 100 ms: twice 1.25 GB is past what the kernel takes (an int): its cap.
    far = {s.setting: s.value for s in recommend(facts, 100.0, "throughput").scaled}
    assert far["net.core.rmem_max"] == str(2**31 - 1)
    assert recommend(facts, 48.6, "latency").profile.name == "low-latency"


def test_a_link_without_speed_keeps_the_profiles_buffers_and_says_so(host_10g: Path) -> None:
    facts = host_facts(HostRoot.fixture(host_10g), "eth2")
    from dataclasses import replace

    rec = recommend(replace(facts, speed_mbps=None), 30.0, "throughput")
    assert rec.profile.name == "wan-10g" and rec.scaled == ()
    # The title names LOFAR's own sizing, and the line under it says they are kept as such.
    assert "for 10 Gb/s x 3.77 ms" in rec.profile.title
    assert any("buffers: the report's own" in k and "no link speed" in k for k in rec.kept)


@pytest.mark.parametrize("text", ["0", "-3", "x", "nan", "inf", "20000"])
def test_a_bad_rtt_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_rtt(text)


def test_the_cli_on_a_recorded_tree(host_100g: Path) -> None:
    done = tuitune("recommend", "enp1s0f0np0", "--root", host_100g, "--rtt", "48.6ms")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wan-100g-dtn: ")
    assert "scaled to enp1s0f0np0" in done.stdout and "next:" not in done.stdout
    assert "net.core.rmem_max: 67108864 -> 1215000000" in done.stdout
    bad = tuitune("recommend", "nosuch0", "--root", host_100g)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert "interfaces here: enp1s0f0np0" in bad.stderr


def test_a_wan_profile_scaled_for_a_host_keeps_its_sources(host_100g: Path) -> None:
    from tuitune.core.profiles import find
    from tuitune.core.profiles.scale import NO_LIMITS, scale_to_host

    facts = host_facts(HostRoot.fixture(host_100g), "enp1s0f0np0")
    esnet = find("wan-100g-dtn")
    assert esnet is not None
    got = scale_to_host(esnet, facts, NO_LIMITS, 48.6)
    assert len(got.scaled) == 4
    prof = got.profile
    picks = {p.setting: p for p in prof.picks}
    assert picks["net.core.rmem_max"].value == "1215000000"
    assert picks["net.core.rmem_max"].advice.source == "esnet-100g"  # its own pick, resized
    # ESnet names no tcp_rmem: the scaled one is LOFAR's method, cited as such.
    assert picks["net.ipv4.tcp_rmem"].advice.source == "lofar-wan"
    assert picks["net.ipv4.tcp_rmem"].value == "4096 607500000 1215000000"
    assert prof.to_profile().requests  # still a profile the journal takes
    lan = find("lan-10g")
    assert lan is not None
    same = scale_to_host(lan, facts, NO_LIMITS, 48.6)
    assert same.scaled == () and same.profile.picks == lan.picks
    assert any("LAN advice" in k for k in same.kept)


def test_peer_rtt_is_pings_average_and_no_reply_is_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from tuitune.cli import profile as cli_profile
    from tuitune.core.advise import peer

    seen: list[tuple[str, str | None]] = []

    def fake(host: str, netns: str | None, mtu: int | None) -> peer.PeerProbe:
        seen.append((host, netns))
        if host == "far":
            return peer.PeerProbe(host, peer.Rtt(5, 5, 47.9, 48.6, 49.8))
        return peer.PeerProbe(host, None, problem="no reply to ping")

    monkeypatch.setattr(peer, "probe_peer", fake)
    assert cli_profile._measured_rtt("far", "lab") == 48.6
    assert "measured: RTT to far: 48.6 ms average (47.9-49.8, 5 of 5 replies" in (
        capsys.readouterr().out
    )
    assert cli_profile._measured_rtt("near", None) is None
    said = capsys.readouterr().err
    assert said.count("\n") == 1 and "no reply to ping" in said and "--rtt MS" in said
    assert seen == [("far", "lab"), ("near", None)]  # from the namespace asked for


def test_the_cli_prints_each_queue_irq_it_would_place(host_10g: Path) -> None:
    """On the recorded 2-node host the recommendation names every queue IRQ with its old
    affinity and its NIC-local core, as `profile diff` prints them (placement.py)."""
    done = tuitune("recommend", "eth2", "--root", host_10g)
    assert done.returncode == 0, done.stderr
    lines = [ln.strip() for ln in done.stdout.splitlines() if ln.strip().startswith("irq ")]
    assert len(lines) >= 8, done.stdout
    first = lines[0]
    # one a core: core 0 first (the tree records no old affinity: "+ 0", as diff says it)
    assert first.startswith("irq ") and "(eth2-TxRx-0): " in first and first.endswith(" 0"), first
    assert "NIC-local" in done.stdout and "node 0 CPUs 0-7,16-23" in done.stdout


def test_a_virtio_nics_node_is_its_pci_functions(tmp_path: Path) -> None:
    """A virtio netdev's device is virtioN; its numa_node and local_cpulist are on the PCI
    function above it (as the live screen reads them, netdev.read_placement). The recorded VM
    tree's virtio_net function (platform fixtures) given a node 1 and CPUs 2-3 here (written
    by this test: that VM had one node); the bench's guest proves it on a real 2-node guest
    (tests/vm/test_profile_numa.py)."""
    from tests.support.platform_trees import vm_tree

    tree = vm_tree(tmp_path / "vm")
    fn = tree / "sys/devices/pci0000:00/0000:00:03.0"
    (fn / "numa_node").write_text("1\n")
    (fn / "local_cpulist").write_text("2-3\n")
    facts = host_facts(HostRoot.fixture(tree), "eth0")
    assert (facts.nic_node, facts.nic_cpus) == (1, frozenset({2, 3}))
