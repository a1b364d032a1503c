"""How the files find the device again after a reboot: by ID_PATH, by permanent MAC, by name,
or (asked for, for a fleet) by driver.

ID_PATH (the bus position, "pci-0000:3b:00.0") survives renames and a changed MAC; a MAC is
only stable when it is the hardware's own (addr_assign_type 0, not random or set by someone);
a name may be handed to another device at the next boot, so that last resort comes with a
warning. ID_PATH comes from udev's own path_id builtin (`udevadm test-builtin path_id`, which
needs no running udevd and writes nothing) or, without udevadm or on a recorded tree, from the
PCI address in sysfs, which is what path_id gives for a PCI NIC.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from typing import Literal

from tuitune.core import proc
from tuitune.core.host.netdev import read_placement
from tuitune.core.host.root import HostRoot, read_value

MatchKind = Literal["path", "mac", "name", "driver"]
NET_ADDR_PERM = "0"  # addr_assign_type: the address the hardware came with


@dataclass(frozen=True, slots=True)
class DeviceMatch:
    """What a rule matches on. `dev_port` is set when several interfaces share one ID_PATH
    (two ports on one PCI function), to tell them apart."""

    kind: MatchKind
    value: str
    dev_port: str | None = None
    warning: str | None = None

    @property
    def describe(self) -> str:
        if self.kind == "path":
            port = f", port {self.dev_port}" if self.dev_port is not None else ""
            return f"ID_PATH {self.value}{port} (its bus position: survives renames and reboots)"
        if self.kind == "mac":
            return f"permanent MAC {self.value} (the hardware's own address)"
        if self.kind == "driver":
            return f"driver {self.value} (every NIC that driver runs on each host)"
        return f"name {self.value} (see the warning: a name may not be stable)"


def udev_path_id(root: HostRoot, ifname: str) -> str | None:
    """ID_PATH from `udevadm test-builtin path_id` (inside the namespace for --netns)."""
    udevadm = proc.find("udevadm")
    if udevadm is None or not root.live:
        return None
    cmd = [udevadm, "test-builtin", "path_id", f"/sys/class/net/{ifname}"]
    if root.netns is not None:
        cmd = ["ip", "netns", "exec", root.netns, *cmd]
    try:
        out = proc.run(cmd, timeout=30)
    except (proc.ProgramRefused, OSError, subprocess.TimeoutExpired):
        return None
    for line in out.stdout.splitlines():
        if line.startswith("ID_PATH="):
            return line.partition("=")[2].strip() or None
    return None


def bound_driver(root: HostRoot, ifname: str) -> str | None:
    """The driver bound to the interface's device ("e1000e", "virtio_net"); None for a
    virtual interface (veth, bridge), which has no device."""
    try:
        return os.path.basename(os.readlink(root.sys_path(f"class/net/{ifname}/device/driver")))
    except OSError:
        return None


def sysfs_path_id(root: HostRoot, ifname: str) -> str | None:
    """ID_PATH as path_id computes it for a NIC on PCI (virtio included): "pci-" + address."""
    bus = read_placement(root, ifname).bus
    return f"pci-{bus}" if bus else None


def _dev_port(root: HostRoot, ifname: str) -> str | None:
    """The interface's dev_port when its device carries more than one interface."""
    siblings = root.sys_path(f"class/net/{ifname}/device/net")
    try:
        if len(os.listdir(siblings)) < 2:
            return None
    except OSError:
        return None
    port = read_value(root, root.sys_path(f"class/net/{ifname}/dev_port"), "dev_port")
    return port if isinstance(port, str) and port.isdigit() else None


def identify(root: HostRoot, ifname: str, *, use_udevadm: bool = True) -> DeviceMatch:
    path = (udev_path_id(root, ifname) if use_udevadm else None) or sysfs_path_id(root, ifname)
    if path:
        return DeviceMatch("path", path, _dev_port(root, ifname))
    base = f"class/net/{ifname}"
    assign = read_value(root, root.sys_path(f"{base}/addr_assign_type"), "addr_assign_type")
    address = read_value(root, root.sys_path(f"{base}/address"), "address")
    if assign == NET_ADDR_PERM and isinstance(address, str) and address.strip("0:"):
        return DeviceMatch("mac", address.lower())
    why = "no ID_PATH (not on a bus udev can name)"
    why += " and no permanent MAC" if assign != NET_ADDR_PERM else " and an all-zero MAC"
    return DeviceMatch(
        "name",
        ifname,
        warning=f"{ifname} has {why}: the files match it by name, and after a reboot that "
        "name may belong to another device (or to none); check the rules before relying on them",
    )
