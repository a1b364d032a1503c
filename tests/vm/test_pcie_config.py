"""MaxPayload and MaxReadReq of the guest's emulated PCIe NICs (issue 32), as `tuitune show
--json` names them for the NIC's function and each bridge above it, against the guest kernel's
config space read here on its own: the e1000e sits on the root complex (pcie.0, no bridge),
the virtio NIC behind a pcie-root-port on the expander bridge (scripts/vm).

The test walks config space itself (PCIe Base spec: capability list head at 0x34, the PCIe
capability id 0x10, Device Control at +8, MaxPayload bits 7:5 and MaxReadReq bits 14:12, each
128 << n bytes), and also asks `lspci -vv` where pciutils is installed on the root the guest
shares (it is not on the bench's host today, so the walk is the check)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import Nics, pci_dir, show_json

pytestmark = pytest.mark.vm


def devctl_sizes(bdf: str) -> tuple[int, int]:
    """(MPS, MRRS) in bytes from the function's Device Control register."""
    data = Path(f"/sys/bus/pci/devices/{bdf}/config").read_bytes()
    assert len(data) >= 256, f"{bdf}: {len(data)} bytes of config space (not root?)"
    assert data[0x06] & 0x10, f"{bdf}: no capability list"
    ptr, seen = data[0x34] & 0xFC, 0
    while ptr and data[ptr] != 0x10:
        ptr, seen = data[ptr + 1] & 0xFC, seen + 1
        assert seen < 48, f"{bdf}: capability list loops"
    assert ptr, f"{bdf}: no PCIe capability"
    devctl = int.from_bytes(data[ptr + 8 : ptr + 10], "little")
    return 128 << ((devctl >> 5) & 7), 128 << ((devctl >> 12) & 7)


def lspci_sizes(bdf: str) -> tuple[int, int] | None:
    lspci = shutil.which("lspci")
    if lspci is None:
        return None
    text = subprocess.run([lspci, "-vv", "-s", bdf], capture_output=True, text=True).stdout
    # DevCtl's continuation line: "MaxPayload 128 bytes, MaxReadReq 512 bytes".
    m = re.search(r"DevCtl:.*?MaxPayload (\d+) bytes, MaxReadReq (\d+) bytes", text, re.S)
    assert m, text
    return int(m.group(1)), int(m.group(2))


def chain(ifname: str) -> list[str]:
    """The NIC's PCI function, then each bridge above it, from the kernel's device path."""
    parts = str(pci_dir(ifname)).split("/")
    bdf = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
    return [p for p in reversed(parts) if bdf.match(p)]


@pytest.mark.parametrize("which", ["e1000e", "virtio"])
def test_mps_and_mrrs_from_config_space(nics: Nics, which: str) -> None:
    ifname = getattr(nics, which)
    rows = show_json(ifname)["platform"]["pcie"]
    assert isinstance(rows, list), rows
    want = chain(ifname)
    assert [r["bdf"] for r in rows] == want, (rows, want)
    assert [r["role"] for r in rows] == ["nic"] + ["bridge"] * (len(want) - 1)
    if which == "virtio":
        assert len(want) >= 2, f"the virtio NIC sits behind a root port: {want}"
    for row in rows:
        mps, mrrs = devctl_sizes(row["bdf"])
        assert row["pcie_capability"] is True, row
        assert (row["mps"], row["mrrs"]) == (mps, mrrs), row
        assert row["mps_supported"] >= row["mps"], row
        assert row["config_bytes"] >= 256, row
        seen = lspci_sizes(row["bdf"])
        assert seen is None or seen == (mps, mrrs), (row, seen)
