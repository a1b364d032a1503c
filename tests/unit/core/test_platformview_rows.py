"""The Host view's and `show`'s platform rows: every row opens a catalog help entry (Enter in
the Host view), the PM QoS request has a row of its own, and the kernel command line is not
told to cap C-states that a latency request already keeps the CPUs out of."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.platform_trees import pcie_config, pcie_nic, pepc_tree, vm_tree
from tuitune.core.catalog.device import DEVICE_HELP
from tuitune.core.host.platform import read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.platformview import (
    boot_words,
    cmdline_suggestions,
    platform_json,
    platform_rows,
)
from tuitune.core.session.kinds.table import PLATFORM_READS


def _tree(tmp: Path, host: str) -> Path:
    if host == "vm":
        return vm_tree(tmp / "vm")
    nic = pcie_config(mps=256, mps_supported=512, mrrs=512, msix_table=64)
    bridge = pcie_config(mps=256, mps_supported=512, mrrs=128)
    return pcie_nic(pepc_tree(tmp / host, host), "eth0", nic=nic, bridge=bridge)


@pytest.mark.parametrize("host", ["clx2s0", "vm"])
def test_every_row_opens_a_help_entry(tmp_path: Path, host: str) -> None:
    plat = read_platform(HostRoot.fixture(_tree(tmp_path, host)), "eth0", reads=PLATFORM_READS)
    rows = platform_rows(plat)
    assert [r.label for r in rows if r.help not in DEVICE_HELP] == []
    labels = {r.label: r for r in rows}
    for label, entry in (
        ("SMT", "smt"),
        ("IOMMU", "iommu"),
        ("FEC", "fec"),
        ("private flags", "private-flags"),
        ("PM QoS request", "pm-qos"),
    ):
        assert labels[label].help == entry
    assert "not recorded in a host tree" in labels["PM QoS request"].value


def test_pm_qos_request_row_and_json(tmp_path: Path) -> None:
    plat = read_platform(HostRoot.fixture(_tree(tmp_path, "clx2s0")), "eth0")
    held = replace(plat, cpu=replace(plat.cpu, latency_request=20))
    (row,) = [r for r in platform_rows(held) if r.label == "PM QoS request"]
    assert row.value.startswith("20 us") and not row.unavailable
    assert platform_json(held)["cpu_power"]["pm_qos_request_us"] == 20
    free = replace(plat, cpu=replace(plat.cpu, latency_request=None))
    assert platform_json(free)["cpu_power"]["pm_qos_request_us"] is None
    tree = platform_json(plat)["cpu_power"]["pm_qos_request_us"]
    assert tree["unavailable"] == "missing"


def test_no_max_cstate_word_where_a_request_holds_cpus_out(tmp_path: Path) -> None:
    plat = read_platform(HostRoot.fixture(_tree(tmp_path, "clx2s0")), "eth0")
    assert any(w.startswith("intel_idle.max_cstate=1") for w in cmdline_suggestions(plat))
    held = replace(plat, cpu=replace(plat.cpu, latency_request=2))
    assert not any("max_cstate" in w for w in cmdline_suggestions(held))


def test_resume_latency_words_read_as_meant(tmp_path: Path) -> None:
    plat = read_platform(HostRoot.fixture(_tree(tmp_path, "clx2s0")), "eth0")
    resume = ((frozenset({0}), "0"), (frozenset({1}), "n/a"), (frozenset({2}), "20"))
    rows = platform_rows(replace(plat, cpu=replace(plat.cpu, resume_latency=resume)))
    (row,) = [r for r in rows if r.label == "PM QoS resume"]
    assert row.value == "cpus 0: no limit; cpus 1: 0 us (no C-state allowed); cpus 2: 20 us"


def test_export_notes_the_boot_words_from_the_reads_they_need(tmp_path: Path) -> None:
    (word,) = boot_words(HostRoot.fixture(_tree(tmp_path, "clx2s0")), "eth0")  # C6, no SMT file
    assert word.startswith("intel_idle.max_cstate=1:")
    assert boot_words(HostRoot.fixture(_tree(tmp_path, "vm")), "eth0") == []  # haltpoll: shallow


def test_the_holders_are_named_sanitised(tmp_path: Path) -> None:
    plat = read_platform(HostRoot.fixture(_tree(tmp_path, "clx2s0")), "eth0")
    who = (((812, "tuned"), (9, "x\x1b[2J")), False)
    cpu = replace(plat.cpu, latency_request=20, latency_holders=who)
    held = replace(plat, cpu=cpu)
    (row,) = [r for r in platform_rows(held) if r.label == "PM QoS request"]
    assert row.value.startswith("20 us, held by tuned[812], x")
    assert "/proc not all searched: no C-state slower to leave" in row.value
    assert "\x1b" not in row.value
    doc = platform_json(held)["cpu_power"]["pm_qos_holders"]
    assert doc == {
        "processes": [{"pid": 812, "comm": "tuned"}, {"pid": 9, "comm": "x\x1b[2J"}],
        "complete": False,
    }
    assert platform_json(plat)["cpu_power"]["pm_qos_holders"] is None  # not looked for in a tree
