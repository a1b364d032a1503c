"""`tuitune show --root` with a platform: the JSON names governor, C-states, SMT, MPS/MRRS and
module parameters; the text prints the Host view's rows. Trees: this VM's own capture (its
/proc/interrupts and platform), and pepc's recorded hosts over an 8-CPU interrupts capture
with a PCIe path built from the register layout (tests/fixtures/platform/SOURCES.md)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.command import tuitune
from tests.support.hosttree import TreeSpec, build_tree
from tests.support.platform_trees import (
    FIXTURES,
    IXGBE_82599_LINK,
    TREE_OWNS,
    ixgbe_82599_config,
    pcie_config,
    pcie_nic,
    pepc_tree,
    vm_tree,
)


def run(tree: Path, iface: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return tuitune("show", "--root", tree, iface, *extra)


def vm_host(tmp: Path) -> Path:
    spec = TreeSpec(
        ncpus=2, interrupts=(FIXTURES / "vm-debian12-interrupts.txt").read_text(), ifname="eth0"
    )
    return vm_tree(build_tree(tmp, spec), keep=TREE_OWNS)


def pepc_host(tmp: Path, fixtures_dir: Path, host: str) -> Path:
    interrupts = (fixtures_dir / "interrupts/ena_8cpu_aarch64_graviton.txt").read_text()
    tree = build_tree(tmp, TreeSpec(ncpus=8, interrupts=interrupts, ifname="eth0"))
    pepc_tree(tree, host, keep=TREE_OWNS)
    nic = pcie_config(mps=256, mps_supported=512, mrrs=512, msix_table=64)
    return pcie_nic(tree, "eth0", nic=nic, bridge=pcie_config(mps=256, mps_supported=512, mrrs=128))


def platform_of(out: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert out.returncode == 0, out.stderr
    doc: dict[str, Any] = json.loads(out.stdout)
    assert doc["schema"] == "tuitune.report.show" and doc["version"] == 1
    plat: dict[str, Any] = doc["platform"]
    return plat


def test_vm_json(tmp_path: Path) -> None:
    plat = platform_of(run(vm_host(tmp_path), "eth0", "--json"))
    cpu = plat["cpu_power"]
    assert cpu["frequency"]["unavailable"] == "unsupported"  # the guest has no cpufreq
    assert [s["name"] for s in cpu["idle"][0]["states"]] == ["POLL", "haltpoll idle"]
    assert plat["smt"] == {"control": "notsupported", "active": False}
    (fn,) = plat["pcie"]
    assert fn["bdf"] == "0000:00:03.0" and fn["pcie_capability"] is False
    assert fn["mps"] is None and fn["msix_table"] == 3
    params = {p["name"]: (p["value"], p["writable"]) for p in plat["driver"]["parameters"]}
    assert params["napi_tx"] == ("Y", True) and params["napi_weight"] == ("64", False)


@pytest.mark.parametrize(
    ("host", "governor", "deepest"),
    [
        ("clx2s0", "powersave", "C6"),
        # hswep0: test_a_real_82599_config_space_in_show_json (one subprocess fewer).
        ("gnr3", "performance", "C6P"),
        ("turin0", "performance", "C2"),
    ],
)
def test_pepc_hosts_json(
    tmp_path: Path, fixtures_dir: Path, host: str, governor: str, deepest: str
) -> None:
    plat = platform_of(run(pepc_host(tmp_path, fixtures_dir, host), "eth0", "--json"))
    cpu = plat["cpu_power"]
    assert cpu["frequency"][0]["governor"] == governor
    assert cpu["idle"][0]["states"][-1]["name"] == deepest
    assert plat["smt"]["control"]["unavailable"]  # pepc's captures hold no smt/control
    nic, bridge = plat["pcie"]
    assert (nic["mps"], nic["mps_supported"], nic["mrrs"]) == (256, 512, 512)
    assert (bridge["role"], bridge["mrrs"]) == ("bridge", 128)
    assert plat["driver"]["module"] == "ice"
    assert plat["driver"]["parameters"]["reason"] == "ice has no module parameters"


def test_show_text_has_the_host_rows(tmp_path: Path, fixtures_dir: Path) -> None:
    out = run(pepc_host(tmp_path, fixtures_dir, "clx2s0"), "eth0")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "worst: hint: pcie-payload" not in text  # MPS 256 of 512: a hint, the governor a risk
    assert "worst: risk: cpu-governor" in text
    assert "intel_pstate powersave EPP balance_performance" in text
    assert "MPS 256/512 MRRS 512" in text


def test_cmdline_suggestions_are_printed_not_written(tmp_path: Path, fixtures_dir: Path) -> None:
    tree = pepc_host(tmp_path, fixtures_dir, "clx2s0")
    before = sorted(p.relative_to(tree) for p in tree.rglob("*"))
    plat = platform_of(run(tree, "eth0", "--json"))
    (word,) = plat["cmdline_suggestions"]  # C6 is enabled; no IOMMU, no SMT control here
    assert word.startswith("intel_idle.max_cstate=1:")
    assert sorted(p.relative_to(tree) for p in tree.rglob("*")) == before
    vm = platform_of(run(vm_host(tmp_path / "vm"), "eth0", "--json"))
    assert vm["cmdline_suggestions"] == []  # haltpoll's states are shallow, SMT unsupported


def test_advise_on_a_recorded_host_judges_its_platform(tmp_path: Path, fixtures_dir: Path) -> None:
    tree = pepc_host(tmp_path, fixtures_dir, "clx2s0")
    out = tuitune("advise", "--root", tree, "eth0", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    ids = {f["id"] for f in doc["findings"]}
    assert {"cpu-governor", "cstates-deep"} <= ids  # powersave; C6 enabled
    assert "pcie-payload" in ids  # MPS 256 where the NIC and its bridge both support 512


def test_the_link_row_names_an_unreported_duplex_once(tmp_path: Path) -> None:
    """A NIC whose duplex file is unreadable (lo, a veth, a VM's virtio) reads "duplex: not
    reported", not "duplex duplex: not reported" (seen as a plain user, 2026-12-07)."""
    tree = vm_host(tmp_path)
    (tree / "sys/class/net/eth0/duplex").unlink(missing_ok=True)
    link = next(ln for ln in run(tree, "eth0").stdout.splitlines() if ln.startswith("link"))
    assert "duplex: not reported" in link and "duplex duplex" not in link


def test_a_real_82599_config_space_in_show_json(tmp_path: Path, fixtures_dir: Path) -> None:
    """A real NIC's config space (the kernel's dump of an 82599, SOURCES.md) on a recorded
    host: the document names its MaxPayload/MaxReadReq and MSI-X table as config space holds
    them, beside the host's governor and C-states, and the PM QoS request as a tree's state."""
    interrupts = (fixtures_dir / "interrupts/ena_8cpu_aarch64_graviton.txt").read_text()
    tree = build_tree(tmp_path, TreeSpec(ncpus=8, interrupts=interrupts, ifname="eth0"))
    pepc_tree(tree, "hswep0", keep=TREE_OWNS)
    bridge = pcie_config(mps=128, mps_supported=256, mrrs=512)
    pcie_nic(tree, "eth0", nic=ixgbe_82599_config(), bridge=bridge, link=IXGBE_82599_LINK)
    plat = platform_of(run(tree, "eth0", "--json"))
    nic = plat["pcie"][0]
    assert (nic["mps"], nic["mps_supported"], nic["mrrs"], nic["msix_table"]) == (128, 512, 512, 64)
    assert (nic["speed"], nic["max_width"]) == ("2.5 GT/s PCIe", "8")
    cpu = plat["cpu_power"]
    assert cpu["frequency"][0]["governor"] == "schedutil"
    assert cpu["idle"][0]["states"][-1]["name"] == "C6"
    assert plat["smt"]["control"]["unavailable"]  # pepc's captures hold no smt/control
    assert plat["driver"]["module"] == "ice"
    assert cpu["pm_qos_request_us"]["unavailable"] == "missing"


def test_export_prints_the_boot_words_and_writes_none(
    tmp_path: Path, fixtures_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`export` notes on stderr what only the kernel command line sets (deep C-states here),
    and no file it writes holds it (in process: the CLI's own entry point)."""
    from tuitune.cli import main

    tree = pepc_host(tmp_path / "tree", fixtures_dir, "clx2s0")
    out = tmp_path / "out"
    assert (
        main(["export", "--root", str(tree), "eth0", "--profile", "lan-10g", "--out", str(out)])
        == 0
    )
    err = capsys.readouterr().err
    assert "note: kernel command line, printed only (the bootloader is yours): " in err
    assert "intel_idle.max_cstate=1: deep C-states are enabled" in err
    assert not any("max_cstate" in f.read_text() for f in out.iterdir())
