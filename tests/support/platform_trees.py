"""Host trees for the platform reader from the captures in tests/fixtures/platform (see its
SOURCES.md): `MODE|/sys/path|value` lines (pepc's emulation format, and this VM's own capture
in the same form) become files under DIR/sys with that mode; a NIC is then attached to a PCI
path where a test needs one."""

from __future__ import annotations

import os
import re
import struct
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "platform"
HOSTS = ("clx2s0", "hswep0", "gnr3", "turin0")


def _mode(word: str) -> int:
    if word == "rw":
        return 0o644
    if word == "ro":
        return 0o444
    return int(word, 8)


# Files a host tree already has from its own capture (tests/support/hosttree.py): an overlay
# of another host's platform keeps the tree's CPU list.
TREE_OWNS = (
    "/sys/devices/system/cpu/online",
    "/sys/devices/system/cpu/present",
    "/sys/devices/system/cpu/possible",
)


def expand(lines: str, dest: Path, keep: tuple[str, ...] = ()) -> None:
    for line in lines.splitlines():
        if line.startswith("#") or line.count("|") < 2:
            continue
        mode, path, value = line.split("|", 2)
        if path in keep:
            continue
        target = dest / path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists():
            target.chmod(0o644)  # a capture may repeat a path: its last value stands
        target.write_text(value + "\n")
        target.chmod(_mode(mode))


def pepc_tree(dest: Path, host: str, keep: tuple[str, ...] = ()) -> Path:
    """A tree of one of pepc's recorded hosts (CPUs 0-7 of it: see SOURCES.md); `keep`: paths
    the tree already has (an overlay)."""
    expand((FIXTURES / f"pepc-{host}-sys.txt").read_text(), dest, keep)
    (dest / "proc").mkdir(exist_ok=True)
    (dest / "proc" / "cmdline").write_text((FIXTURES / f"pepc-{host}-cmdline.txt").read_text())
    return dest


def vm_tree(dest: Path, keep: tuple[str, ...] = ()) -> Path:
    """This project's Debian 12 VM (Firecracker guest): haltpoll cpuidle, SMT notsupported,
    virtio_net on conventional PCI 0000:00:03.0 with its real 256-byte config space."""
    expand((FIXTURES / "vm-debian12-sys.txt").read_text(), dest, keep)
    fn = dest / "sys/devices/pci0000:00/0000:00:03.0"
    hexdump = (FIXTURES / "vm-debian12-virtio-config.hex").read_text()
    (fn / "config").write_bytes(bytes.fromhex(hexdump))
    (fn / "virtio2").mkdir(exist_ok=True)
    attach_nic(dest, "eth0", "devices/pci0000:00/0000:00:03.0/virtio2", module="virtio_net")
    (dest / "proc").mkdir(exist_ok=True)
    (dest / "proc" / "cmdline").write_text((FIXTURES / "vm-debian12-cmdline.txt").read_text())
    return dest


def attach_nic(dest: Path, ifname: str, device_rel: str, module: str | None = None) -> None:
    """class/net/IF/device -> DEVICE (relative link, as sysfs has it), and its driver's
    module link."""
    net = dest / "sys/class/net" / ifname
    net.mkdir(parents=True, exist_ok=True)
    dev = dest / "sys" / device_rel
    dev.mkdir(parents=True, exist_ok=True)
    os.symlink(os.path.relpath(dev, net), net / "device")
    if module is not None:
        mod = dest / "sys/module" / module
        mod.mkdir(parents=True, exist_ok=True)
        drv = dest / "sys/bus/pci/drivers" / module
        drv.mkdir(parents=True, exist_ok=True)
        if not (drv / "module").exists():
            os.symlink(os.path.relpath(mod, drv), drv / "module")
        os.symlink(os.path.relpath(drv, dev), dev / "driver")


def pcie_config(
    *,
    mps: int,
    mps_supported: int,
    mrrs: int,
    relaxed: bool = True,
    msix_table: int | None = None,
    size: int = 4096,
) -> bytes:
    """Config space built from the register layout (PCIe Base spec; not a capture): the
    header's capability pointer at 0x34 -> a PCIe capability at 0x40 -> MSI-X at 0x70."""
    data = bytearray(size)
    struct.pack_into("<HH", data, 0, 0x8086, 0x1593)
    struct.pack_into("<H", data, 0x06, 0x0010)  # status: capability list
    data[0x34] = 0x40

    def code(n: int) -> int:
        return n.bit_length() - 8  # 128 -> 0 .. 4096 -> 5

    data[0x40], data[0x41] = 0x10, 0x70 if msix_table else 0
    struct.pack_into("<I", data, 0x44, code(mps_supported))
    devctl = (code(mps) << 5) | (code(mrrs) << 12) | (0x10 if relaxed else 0)
    struct.pack_into("<H", data, 0x48, devctl)
    struct.pack_into("<I", data, 0x4C, 3 << 10)  # ASPM L0s and L1 supported
    struct.pack_into("<H", data, 0x50, 0)  # ASPM disabled
    if msix_table:
        data[0x70], data[0x71] = 0x11, 0
        struct.pack_into("<H", data, 0x72, 0x8000 | (msix_table - 1))
    return bytes(data)


def ixgbe_82599_config() -> bytes:
    """A real 82599's 256 bytes of config space (SOURCES.md): MaxPayload 128 of 512, MaxReadReq
    512, MSI-X table 64."""
    return bytes.fromhex((FIXTURES / "ixgbe-82599-config.hex").read_text())


# What the kernel said of that 82599's link in the same capture (sysfs's words for it).
IXGBE_82599_LINK = ("2.5 GT/s PCIe", "5.0 GT/s PCIe", "2", "8")


def pcie_nic(
    dest: Path,
    ifname: str = "ens1f0",
    *,
    nic: bytes,
    bridge: bytes,
    link: tuple[str, str, str, str] = ("16.0 GT/s PCIe", "16.0 GT/s PCIe", "8", "8"),
    msix_used: int = 8,
    iommu_type: str | None = None,
) -> Path:
    """A NIC at 0000:17:00.0 behind root port 0000:16:02.0 with the given config spaces."""
    port = dest / "sys/devices/pci0000:16/0000:16:02.0"
    fn = port / "0000:17:00.0"
    for d, cfg in ((port, bridge), (fn, nic)):
        d.mkdir(parents=True, exist_ok=True)
        (d / "config").write_bytes(cfg)
        for name, value in zip(
            ("current_link_speed", "max_link_speed", "current_link_width", "max_link_width"),
            link,
            strict=True,
        ):
            (d / name).write_text(value + "\n")
    (fn / "msi_irqs").mkdir(exist_ok=True)
    for i in range(msix_used):
        (fn / "msi_irqs" / str(100 + i)).write_text("msix\n")
    if iommu_type is not None:
        grp = dest / "sys/kernel/iommu_groups/42"
        grp.mkdir(parents=True, exist_ok=True)
        (grp / "type").write_text(iommu_type + "\n")
        os.symlink(os.path.relpath(grp, fn), fn / "iommu_group")
        (dest / "sys/class/iommu/dmar0").mkdir(parents=True, exist_ok=True)
    attach_nic(dest, ifname, "devices/pci0000:16/0000:16:02.0/0000:17:00.0", module="ice")
    return dest


def widen_cpu_power(tree: Path, host: str, ncpus: int) -> Path:
    """`tree` given pepc host `host`'s CPU 0 cpufreq policy and cpuidle states on each of
    `ncpus` CPUs (one policy a CPU, as intel_pstate makes them): the file count of a big
    host's CPU power (1152 CPUs: about 30 000 files), for the reader's cost."""
    lines = (FIXTURES / f"pepc-{host}-sys.txt").read_text().splitlines()
    cpu0 = "/sys/devices/system/cpu/cpu0/"
    pol0 = "/sys/devices/system/cpu/cpufreq/policy0/"
    mine = [ln for ln in lines if ln.count("|") >= 2 and (cpu0 in ln or pol0 in ln)]
    out = []
    for n in range(ncpus):
        for ln in mine:
            ln = ln.replace(cpu0, f"/sys/devices/system/cpu/cpu{n}/")
            ln = ln.replace(pol0, f"/sys/devices/system/cpu/cpufreq/policy{n}/")
            if ln.split("|")[1].endswith(("related_cpus", "affected_cpus")):
                ln = ln.rsplit("|", 1)[0] + f"|{n}"
            out.append(ln)
    per_cpu = re.compile(r"/cpu/cpu[0-9]|/cpufreq/policy[0-9]")
    rest = [ln for ln in lines if not per_cpu.search(ln)]
    expand("\n".join(rest + out), tree, TREE_OWNS)
    return tree
