"""The platform reader on recorded hosts (pepc's real sysfs captures, this VM's own capture)
and on config space built from the PCIe register layout."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.platform_trees import (
    ixgbe_82599_config,
    pcie_config,
    pcie_nic,
    pepc_tree,
    vm_tree,
)
from tuitune.core.host.cpupower import read_cpu_power, read_smt
from tuitune.core.host.pcie import parse_config, read_pci_chain
from tuitune.core.host.platform import read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable


def test_clx2s0_one_line_for_cpus_that_agree(tmp_path: Path) -> None:
    power = read_cpu_power(HostRoot.fixture(pepc_tree(tmp_path, "clx2s0")))
    assert not isinstance(power.freq, Unavailable)
    (only,) = power.freq  # eight policies, one setting: one group
    assert only.cpus == frozenset(range(8))
    p = only.policy
    assert (p.driver, p.governor, p.epp, p.epb) == (
        "intel_pstate",
        "powersave",
        "balance_performance",
        "7",
    )
    assert (p.min_khz, p.max_khz) == (1000000, 3900000)
    assert power.boost == "on"  # intel_pstate/no_turbo = 0
    assert not isinstance(power.idle, Unavailable)
    (idle,) = power.idle
    assert [(s.name, s.latency_us, s.residency_us, s.disabled) for s in idle.states] == [
        ("POLL", 0, 0, False),
        ("C1", 2, 2, False),
        ("C1E", 10, 20, False),
        ("C6", 92, 276, False),
    ]
    assert power.idle_driver == "intel_idle"


def test_hswep0_disabled_state_is_read(tmp_path: Path) -> None:
    power = read_cpu_power(HostRoot.fixture(pepc_tree(tmp_path, "hswep0")))
    assert not isinstance(power.idle, Unavailable)
    states = {s.name: s.disabled for s in power.idle[0].states}
    assert states["C3"] is True and states["C6"] is False


def test_cpus_that_differ_are_separate_groups(tmp_path: Path) -> None:
    tree = pepc_tree(tmp_path, "clx2s0")
    cpu = tree / "sys/devices/system/cpu"
    for n in (2, 3):  # C6 disabled by hand on two CPUs
        f = cpu / f"cpu{n}/cpuidle/state3/disable"
        f.chmod(0o644)
        f.write_text("1\n")
    power = read_cpu_power(HostRoot.fixture(tree))
    assert not isinstance(power.idle, Unavailable)
    assert [sorted(g.cpus) for g in power.idle] == [[0, 1, 4, 5, 6, 7], [2, 3]]


def test_amd_boost_from_cpufreq_boost(tmp_path: Path) -> None:
    power = read_cpu_power(HostRoot.fixture(pepc_tree(tmp_path, "turin0")))
    assert power.boost == "on"
    assert not isinstance(power.freq, Unavailable)
    assert power.freq[0].policy.driver == "amd-pstate-epp"
    assert power.freq[0].policy.governor == "performance"


def test_vm_guest_states_not_tracebacks(tmp_path: Path) -> None:
    root = HostRoot.fixture(vm_tree(tmp_path))
    power = read_cpu_power(root)
    assert isinstance(power.freq, Unavailable) and "no cpufreq" in power.freq.reason
    assert power.idle_driver == "haltpoll"
    smt = read_smt(root)
    assert smt.control == "notsupported" and smt.active is False
    plat = read_platform(root, "eth0")
    assert not isinstance(plat.pcie, Unavailable)
    (fn,) = plat.pcie
    # The real virtio config space: 256 bytes, MSI-X with 3 vectors, no PCIe capability.
    assert fn.config_bytes == 256 and fn.caps is not None and not fn.caps.pcie
    assert fn.caps.msix_table == 3 and fn.msix_used == 3
    assert "no PCIe capability" in fn.config_note
    assert plat.driver.module == "virtio_net"
    assert not isinstance(plat.driver.params, Unavailable)
    writable = {p.name: p.writable for p in plat.driver.params}
    assert writable == {"csum": False, "gso": False, "napi_tx": True, "napi_weight": False}
    assert isinstance(plat.driver.priv_flags, Unavailable)  # a tree holds no ioctl answers


def test_a_missing_tree_is_all_states(tmp_path: Path) -> None:
    (tmp_path / "proc").mkdir()
    plat = read_platform(HostRoot.fixture(tmp_path), "eth9")
    assert isinstance(plat.cpu.freq, Unavailable)
    assert isinstance(plat.cpu.idle, Unavailable)
    assert isinstance(plat.smt.control, Unavailable)
    assert isinstance(plat.pcie, Unavailable)
    assert isinstance(plat.driver.params, Unavailable)


def test_mps_mrrs_of_nic_and_bridge(tmp_path: Path) -> None:
    nic = pcie_config(mps=256, mps_supported=512, mrrs=4096, msix_table=64, relaxed=False)
    bridge = pcie_config(mps=256, mps_supported=512, mrrs=512)
    root = HostRoot.fixture(pcie_nic(tmp_path, nic=nic, bridge=bridge, iommu_type="DMA-FQ"))
    chain = read_pci_chain(root, "ens1f0")
    assert not isinstance(chain, Unavailable)
    assert [(f.bdf, f.role) for f in chain] == [("0000:17:00.0", "nic"), ("0000:16:02.0", "bridge")]
    caps = chain[0].caps
    assert caps is not None
    got = (caps.mps, caps.mps_supported, caps.mrrs, caps.relaxed_ordering)
    assert got == (256, 512, 4096, False)
    assert (caps.msix_table, chain[0].msix_used) == (64, 8)
    plat = read_platform(root, "ens1f0")
    assert (plat.iommu.enabled, plat.iommu.group, plat.iommu.domain_type) == (True, 42, "DMA-FQ")


def test_a_plain_users_64_bytes_say_so(tmp_path: Path) -> None:
    cfg = pcie_config(mps=256, mps_supported=512, mrrs=512)
    root = HostRoot.fixture(pcie_nic(tmp_path, nic=cfg[:64], bridge=cfg[:64]))
    chain = read_pci_chain(root, "ens1f0")
    assert not isinstance(chain, Unavailable)
    assert chain[0].caps is None and "not root" in chain[0].config_note


def test_capability_loop_ends() -> None:
    cfg = bytearray(pcie_config(mps=128, mps_supported=128, mrrs=128, size=256))
    cfg[0x41] = 0x40  # the PCIe capability points at itself
    assert parse_config(bytes(cfg)).pcie


def test_config_link_out_of_tree_is_refused(tmp_path: Path) -> None:
    cfg = pcie_config(mps=256, mps_supported=512, mrrs=512)
    tree = pcie_nic(tmp_path / "t", nic=cfg, bridge=cfg)
    secret = tmp_path / "secret"
    secret.write_bytes(cfg)
    fn = tree / "sys/devices/pci0000:16/0000:16:02.0/0000:17:00.0/config"
    fn.unlink()
    os.symlink(secret, fn)
    chain = read_pci_chain(HostRoot.fixture(tree), "ens1f0")
    assert not isinstance(chain, Unavailable)
    assert chain[0].caps is None and "out of the host tree" in chain[0].config_note


@pytest.mark.parametrize("host", ["clx2s0", "hswep0", "gnr3", "turin0"])
def test_every_recorded_host_reads(tmp_path: Path, host: str) -> None:
    plat = read_platform(HostRoot.fixture(pepc_tree(tmp_path, host)), None)
    assert not isinstance(plat.cpu.freq, Unavailable)
    assert not isinstance(plat.cpu.idle, Unavailable)


def test_a_real_82599s_config_space() -> None:
    """The kernel's own dump of an 82599 (tests/fixtures/platform/SOURCES.md): the capability
    walk PM -> MSI -> MSI-X -> PCIe -> VPD, and the values lspci would print from it."""
    caps = parse_config(ixgbe_82599_config())
    assert caps.pcie is True
    assert (caps.mps, caps.mps_supported, caps.mrrs) == (128, 512, 512)
    assert caps.relaxed_ordering is True and caps.msix_table == 64
