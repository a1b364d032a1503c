"""The NIC's PCI function and every bridge above it: link speed and width (sysfs), MaxPayload,
MaxReadReq and relaxed ordering from the PCIe capability in config space, ASPM, MSI-X.

Config space layout (PCI Local Bus 3.0 and PCIe Base 4.0): the status register's bit 4 says a
capability list exists, its head is at 0x34; each capability is (id, next). The PCIe
capability (id 0x10) holds Device Capabilities at +4 (bits 2:0: largest payload supported),
Device Control at +8 (bit 4 relaxed ordering, 7:5 MaxPayload, 14:12 MaxReadReq), Link
Capabilities at +0xC (bits 11:10 ASPM support) and Link Control at +0x10 (bits 1:0 ASPM
enabled). MSI-X (id 0x11) holds Message Control at +2: bits 10:0 the table size minus one.

The kernel gives a process without CAP_SYS_ADMIN only the first 64 bytes of config space,
where no capability lives: the reader says so instead of guessing.
"""

from __future__ import annotations

import os
import re
import struct
from dataclasses import dataclass

from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.values import Unavailable

_BDF = re.compile(r"^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
CONFIG_READ = 4096  # the whole extended space; a plain user is given 64 bytes of it
_HEADER = 64
_ASPM = {0: "disabled", 1: "L0s", 2: "L1", 3: "L0s L1"}


@dataclass(frozen=True, slots=True)
class ConfigCaps:
    """What config space says (None: not there, or not in the bytes read)."""

    pcie: bool  # a PCIe capability was found
    mps: int | None = None  # MaxPayload in force, bytes
    mps_supported: int | None = None  # largest the function supports
    mrrs: int | None = None  # MaxReadReq in force
    relaxed_ordering: bool | None = None
    aspm_supported: str | None = None
    aspm_enabled: str | None = None
    msix_table: int | None = None  # MSI-X vectors the function supports
    msix_enabled: bool | None = None


def parse_config(data: bytes) -> ConfigCaps:
    """The capabilities in `data` (config space from offset 0); a malformed list ends the
    walk rather than raising: it is another device's bytes."""
    if len(data) < _HEADER:
        return ConfigCaps(pcie=False)
    (status,) = struct.unpack_from("<H", data, 0x06)
    if not status & 0x10:
        return ConfigCaps(pcie=False)
    found: dict[int, int] = {}
    ptr = data[0x34] & 0xFC
    for _ in range(48):  # at most 48 capabilities fit in 256 bytes: a loop is broken
        if ptr < 0x40 or ptr + 2 > len(data):
            break
        cap_id, nxt = data[ptr], data[ptr + 1] & 0xFC
        found.setdefault(cap_id, ptr)
        ptr = nxt
    caps: dict[str, object] = {}
    pcie = found.get(0x10)
    if pcie is not None and pcie + 0x14 <= len(data):
        (devcap,) = struct.unpack_from("<I", data, pcie + 0x04)
        (devctl,) = struct.unpack_from("<H", data, pcie + 0x08)
        (lnkcap,) = struct.unpack_from("<I", data, pcie + 0x0C)
        (lnkctl,) = struct.unpack_from("<H", data, pcie + 0x10)
        caps.update(
            mps_supported=128 << min(devcap & 0x7, 5),
            mps=128 << min((devctl >> 5) & 0x7, 5),
            mrrs=128 << min((devctl >> 12) & 0x7, 5),
            relaxed_ordering=bool(devctl & 0x10),
            aspm_supported=_ASPM[(lnkcap >> 10) & 0x3],
            aspm_enabled=_ASPM[lnkctl & 0x3],
        )
    msix = found.get(0x11)
    if msix is not None and msix + 4 <= len(data):
        (ctl,) = struct.unpack_from("<H", data, msix + 0x02)
        caps.update(msix_table=(ctl & 0x7FF) + 1, msix_enabled=bool(ctl & 0x8000))
    return ConfigCaps(pcie=pcie is not None, **caps)  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class PciFunction:
    bdf: str
    role: str  # "nic" (the interface's function) or "bridge" (a port above it)
    speed: str | Unavailable  # current_link_speed as sysfs prints it
    max_speed: str | Unavailable
    width: str | Unavailable
    max_width: str | Unavailable
    caps: ConfigCaps | None  # None: config space not read (see `config_note`)
    config_bytes: int  # how many bytes of config space were read
    config_note: str  # what the read gave: "4096 bytes", "64 bytes (not root) ..."
    aspm_policy: str | None  # /sys/module/pcie_aspm/parameters/policy, in force
    aspm_sysfs: tuple[tuple[str, str], ...]  # link/l0s_aspm, l1_aspm ... where present
    msix_used: int | None  # msi_irqs/ entries of kind msix (or all, on older kernels)
    iommu_group: int | None


def pci_chain(root: HostRoot, ifname: str) -> list[tuple[str, str]] | None:
    """(bdf, sysfs path relative to /sys) of the interface's PCI function, then each bridge up
    to the root port; None when the device is not on PCI. A --root tree's links must stay in
    the tree."""
    dev = root.sys_path(f"class/net/{ifname}/device")
    try:
        real = os.path.realpath(dev)
        base = os.path.realpath(root.sys)
    except OSError:
        return None
    if not real.startswith(base.rstrip("/") + "/"):
        return None
    parts = real[len(base) :].strip("/").split("/")
    chain = []
    for i, part in enumerate(parts):
        if _BDF.match(part):
            chain.append((part, "/".join(parts[: i + 1])))
    chain.reverse()  # the NIC's function first, the root port last
    return chain or None


def _aspm_sysfs(root: HostRoot, rel: str) -> tuple[tuple[str, str], ...]:
    try:
        names = sorted(root.listdir(root.sys_path(f"{rel}/link")))
    except OSError:
        return ()
    out = []
    for name in names:
        if name.endswith("_aspm") or name == "clkpm":
            value = read_value(root, root.sys_path(f"{rel}/link/{name}"), name)
            if isinstance(value, str):
                out.append((name, value))
    return tuple(out)


def _msix_used(root: HostRoot, rel: str) -> int | None:
    try:
        names = root.listdir(root.sys_path(f"{rel}/msi_irqs"))
    except OSError:
        return None
    n = 0
    for name in names:
        kind = read_value(root, root.sys_path(f"{rel}/msi_irqs/{name}"), "msi_irqs")
        # "msix" or "msi"; a directory (kernels before 5.x) reads as a state: count it
        n += 1 if not isinstance(kind, str) or kind == "msix" else 0
    return n


def _iommu_group(root: HostRoot, rel: str) -> int | None:
    try:
        target = os.readlink(root.sys_path(f"{rel}/iommu_group"))
    except OSError:
        return None
    name = target.rstrip("/").rsplit("/", 1)[-1]
    return int(name) if name.isascii() and name.isdigit() and len(name) < 10 else None


def _policy(root: HostRoot) -> str | None:
    text = read_value(root, root.sys_path("module/pcie_aspm/parameters/policy"), "aspm policy")
    if not isinstance(text, str):
        return None
    chosen = re.search(r"\[([a-z_]+)\]", text)
    return chosen.group(1) if chosen else text.split()[0] if text.split() else None


def read_function(root: HostRoot, bdf: str, rel: str, role: str) -> PciFunction:
    def attr(name: str) -> str | Unavailable:
        return read_value(root, root.sys_path(f"{rel}/{name}"), name)

    data = root.sys_bytes(f"{rel}/config", CONFIG_READ)
    if isinstance(data, Unavailable):
        caps, size, note = None, 0, f"config space not read: {data.reason}"
    else:
        size = len(data)
        caps = parse_config(data)
        if size <= _HEADER:
            caps = None
            note = f"{size} bytes of config space (not root: capabilities need root)"
        else:
            note = f"{size} bytes of config space"
            if not caps.pcie:
                note += ": no PCIe capability (conventional PCI, or emulated)"
    return PciFunction(
        bdf=bdf,
        role=role,
        speed=attr("current_link_speed"),
        max_speed=attr("max_link_speed"),
        width=attr("current_link_width"),
        max_width=attr("max_link_width"),
        caps=caps,
        config_bytes=size,
        config_note=note,
        aspm_policy=_policy(root),
        aspm_sysfs=_aspm_sysfs(root, rel),
        msix_used=_msix_used(root, rel),
        iommu_group=_iommu_group(root, rel),
    )


def read_pci_chain(root: HostRoot, ifname: str) -> tuple[PciFunction, ...] | Unavailable:
    chain = pci_chain(root, ifname)
    if chain is None:
        return Unavailable("unsupported", f"{ifname} is not a PCI device (no PCI function)")
    return tuple(
        read_function(root, bdf, rel, "nic" if i == 0 else "bridge")
        for i, (bdf, rel) in enumerate(chain)
    )
