"""The platform rules, each on a recorded tree where it fires and one where it must not: the
pegged 2xE5-2640 host (tests/support/fixture_hosts.py, 1.05 Mpps into CPU0) under the
platform of one of pepc's recorded hosts, this VM's capture, or a PCIe path built from the
register layout (tests/fixtures/platform/SOURCES.md)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.platform_trees import (
    IXGBE_82599_LINK,
    ixgbe_82599_config,
    pcie_config,
    pcie_nic,
    pepc_tree,
    vm_tree,
)
from tests.unit.advise_hosts import one, recorded
from tuitune.core.advise import Facts, advise
from tuitune.core.advise import thresholds as t
from tuitune.core.host.ethtool import Channels
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.host.platform import read_platform
from tuitune.core.host.root import HostRoot


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"))


def on(f: Facts, tree: Path, ifname: str | None = None) -> Facts:
    return replace(f, platform=read_platform(HostRoot.fixture(tree), ifname))


def notes(f: Facts, rule: str) -> list[str]:
    return [n.text for n in advise(f).notes if n.rule == rule]


def test_governor_fires_on_powersave_not_on_performance(pegged: Facts, tmp_path: Path) -> None:
    found = one(on(pegged, pepc_tree(tmp_path / "a", "clx2s0")), "cpu-governor")
    assert found is not None and found.severity == "risk"
    assert "governor powersave, EPP balance_performance" in found.evidence[0]
    assert {s.id for s in found.sources} == {"redhat-10g", "esnet-100g"}
    assert one(on(pegged, pepc_tree(tmp_path / "b", "gnr3")), "cpu-governor") is None
    assert one(on(pegged, pepc_tree(tmp_path / "c", "turin0")), "cpu-governor") is None


def test_governor_in_a_vm_is_a_note(pegged: Facts, tmp_path: Path) -> None:
    f = on(pegged, vm_tree(tmp_path))
    assert one(f, "cpu-governor") is None
    assert any("no cpufreq" in n for n in notes(f, "cpu-governor"))


def test_cstates_fire_with_the_interrupt_rate(pegged: Facts, tmp_path: Path) -> None:
    found = one(on(pegged, pepc_tree(tmp_path, "clx2s0")), "cstates-deep")
    assert found is not None
    assert any("C6 enabled, exit latency 92 us" in e for e in found.evidence)
    assert any("cpu0 takes" in e for e in found.evidence)  # the queue IRQs' CPU, with a rate


def test_cstates_silent_without_deep_states(pegged: Facts, tmp_path: Path) -> None:
    assert one(on(pegged, vm_tree(tmp_path / "vm")), "cstates-deep") is None  # haltpoll: 1 us
    tree = pepc_tree(tmp_path / "tuned", "hswep0")  # a tuned host: its deep states disabled
    for f in (tree / "sys/devices/system/cpu").glob("cpu*/cpuidle/state*/latency"):
        if int(f.read_text()) > t.CSTATE_DEEP_US:
            d = f.with_name("disable")
            d.chmod(0o644)
            d.write_text("1\n")
    assert one(on(pegged, tree), "cstates-deep") is None
    assert one(on(pegged, pepc_tree(tmp_path / "as-recorded", "hswep0")), "cstates-deep")


def _with_request(f: Facts, request: int | None, resume: str | None = None) -> Facts:
    assert f.platform is not None
    cpu = replace(f.platform.cpu, latency_request=request)
    if resume is not None:  # CPU 0's own limit (the queue IRQs' CPU on the pegged host)
        cpu = replace(cpu, resume_latency=((frozenset({0}), resume),))
    return replace(f, platform=replace(f.platform, cpu=cpu))


def test_cstates_quiet_where_a_pm_qos_limit_keeps_cpus_out(pegged: Facts, tmp_path: Path) -> None:
    f = on(pegged, pepc_tree(tmp_path, "clx2s0"))  # C6: 92 us exit latency
    held = _with_request(f, 20)  # tuned's force_latency, a DPDK application...
    assert one(held, "cstates-deep") is None
    assert "PM QoS request of 20 us keeps the CPUs out" in " ".join(notes(held, "cstates-deep"))
    assert one(_with_request(f, None, resume="n/a"), "cstates-deep") is None  # CPU 0's own
    loose = one(_with_request(f, 200), "cstates-deep")  # above C6's exit: still entered
    assert loose is not None
    assert "PM QoS request in force: 200 us (/dev/cpu_dma_latency)" in loose.evidence
    free = one(_with_request(f, None, resume="0"), "cstates-deep")
    assert free is not None
    assert "no PM QoS latency request in force (/dev/cpu_dma_latency)" in free.evidence


def _queues_on(f: Facts, cpus: list[int]) -> Facts:
    assert f.nic is not None
    aff = dict(f.nic.irq_affinity)
    for q, cpu in zip(f.queue_irqs(), cpus, strict=False):
        aff[q.irq] = IrqAffinity(q.irq, frozenset({cpu}), frozenset({cpu}), 0, None)
    return replace(f, nic=replace(f.nic, irq_affinity=aff))


def test_smt_siblings_sharing_queues(pegged: Facts) -> None:
    shared = _queues_on(pegged, [0, 16])  # CPU 16 is CPU 0's sibling on this host
    found = one(shared, "smt-shared-core")
    assert found is not None and "cpus 0, 16 are SMT siblings" in found.evidence[0]
    assert one(_queues_on(pegged, [0, 1, 2, 3, 4, 5, 6, 7]), "smt-shared-core") is None
    assert one(pegged, "smt-shared-core") is None  # all on CPU0: one CPU, not two siblings


def _path(tmp: Path, nic_mps: int, **kw: object) -> Path:
    nic = pcie_config(mps=nic_mps, mps_supported=512, mrrs=512, msix_table=64)
    bridge = pcie_config(mps=nic_mps, mps_supported=512, mrrs=512)
    return pcie_nic(tmp, nic=nic, bridge=bridge, **kw)  # type: ignore[arg-type]


def test_payload_below_the_path(pegged: Facts, tmp_path: Path) -> None:
    found = one(on(pegged, _path(tmp_path / "a", 128), "ens1f0"), "pcie-payload")
    assert found is not None and "MaxPayload 128 bytes in force" in found.evidence[0]
    assert "0000:16:02.0" in found.evidence[-1]  # the bridge is named on the path
    assert one(on(pegged, _path(tmp_path / "b", 512), "ens1f0"), "pcie-payload") is None


def test_payload_not_judged_on_conventional_pci(pegged: Facts, tmp_path: Path) -> None:
    f = on(pegged, vm_tree(tmp_path), "eth0")
    assert one(f, "pcie-payload") is None
    assert any("no PCIe capability" in n for n in notes(f, "pcie-payload"))


def test_degraded_link_from_the_platform_path(pegged: Facts, tmp_path: Path) -> None:
    slow = ("8.0 GT/s PCIe", "16.0 GT/s PCIe", "8", "8")
    found = one(on(pegged, _path(tmp_path / "a", 512, link=slow), "ens1f0"), "pcie-degraded")
    assert found is not None and "8 GT/s x8, below its 16 GT/s x8" in found.title
    assert one(on(pegged, _path(tmp_path / "b", 512), "ens1f0"), "pcie-degraded") is None


def test_a_real_82599_below_its_payload_and_link(pegged: Facts, tmp_path: Path) -> None:
    """The kernel's own dump of an 82599 (MaxPayload 128 of 512) and the link it reported,
    2.5 GT/s x2 of 5 GT/s x8 (tests/fixtures/platform/SOURCES.md), under a built root port."""

    def path(tmp: Path, bridge_supports: int, link: tuple[str, str, str, str]) -> Path:
        bridge = pcie_config(mps=128, mps_supported=bridge_supports, mrrs=512)
        return pcie_nic(tmp, nic=ixgbe_82599_config(), bridge=bridge, link=link)

    f = on(pegged, path(tmp_path / "a", 512, IXGBE_82599_LINK), "ens1f0")
    payload = one(f, "pcie-payload")
    assert payload is not None
    assert (
        "MaxPayload 128 bytes in force, while the NIC and every bridge above it support 512"
        in (payload.evidence[0])
    )
    slow = one(f, "pcie-degraded")
    assert slow is not None and "2.5 GT/s x2, below its 5 GT/s x8" in slow.title
    assert "cern-10g" in {s.id for s in slow.sources}  # CERN's half-speed slot, LAN
    # A root port that takes only 128 bytes: the NIC's 128 is all the path allows.
    full = ("5.0 GT/s PCIe", "5.0 GT/s PCIe", "8", "8")
    g = on(pegged, path(tmp_path / "b", 128, full), "ens1f0")
    assert one(g, "pcie-payload") is None
    assert one(g, "pcie-degraded") is None


def _channels(f: Facts, combined: int) -> Facts:
    assert f.nic is not None
    ch = Channels(0, 0, 1, combined, 0, 0, 1, 64)
    return replace(f, nic=replace(f.nic, channels=ch))


def test_msix_fewer_vectors_than_queues(pegged: Facts, tmp_path: Path) -> None:
    f = _channels(on(pegged, _path(tmp_path / "a", 512, msix_used=4), "ens1f0"), 8)
    found = one(f, "msix-short")
    assert found is not None and "8 queues but 4 MSI-X vectors" in found.title
    g = _channels(on(pegged, _path(tmp_path / "b", 512, msix_used=9), "ens1f0"), 8)
    assert one(g, "msix-short") is None


def test_iommu_translated_at_a_million_packets(pegged: Facts, tmp_path: Path) -> None:
    f = on(pegged, _path(tmp_path / "a", 512, iommu_type="DMA-FQ"), "ens1f0")
    found = one(f, "iommu-translated")
    assert found is not None and "DMA-FQ" in found.title
    assert [s.id for s in found.sources] == ["kernel-doc-platform"]
    g = on(pegged, _path(tmp_path / "b", 512, iommu_type="identity"), "ens1f0")
    assert one(g, "iommu-translated") is None


def test_no_platform_is_notes_not_findings(pegged: Facts) -> None:
    rules = ("cpu-governor", "cstates-deep", "pcie-payload", "iommu-translated")
    for rule in rules:
        assert one(pegged, rule) is None
        assert notes(pegged, rule)
