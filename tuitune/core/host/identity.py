"""Who made the NIC and what model it is, in words ("Intel Corporation", "82574L Gigabit
Network Connection"), the way udev names it.

On a live host udev's own view comes first (pyudev: the properties udevd stored from its
hardware database, ID_VENDOR_FROM_DATABASE / ID_MODEL_FROM_DATABASE). Where no udevd ran (a
container, these test machines) or on a recorded tree, the device's modalias from sysfs is
looked up in the same hardware database with `systemd-hwdb query`, a root-owned program run
through core/proc.py. A modalias in a recorded tree is hostile text: only the shape the kernel
writes is passed on, as one argument. Answers are cached per modalias: the state is re-read
every few seconds, the database is not.
"""

from __future__ import annotations

import os
import re
import subprocess
from functools import lru_cache
from pathlib import Path

from tuitune.core import proc
from tuitune.core.host.root import HostRoot, read_kernel_file, read_value

# pci:v00008086d000010D3sv00008086sd0000A01Fbc02sc00i00, usb:v0BDAp8153d3000dc00..., virtio:d...
_MODALIAS = re.compile(r"[a-z0-9]{1,16}:[A-Za-z0-9*]{1,96}")
_HWDB_TIMEOUT = 5.0
# Where udevd keeps what it learnt of each device (libudev reads it from here: a device with no
# file there has no ID_*_FROM_DATABASE property).
UDEV_DATA = Path("/run/udev/data")


def modalias(root: HostRoot, device: Path) -> str | None:
    """The device's modalias (its PCI function's, for a virtio netdev) when it has the
    kernel's shape; None otherwise."""
    for path in (device, device.parent):
        text = read_value(root, path / "modalias", "modalias")
        if isinstance(text, str) and _MODALIAS.fullmatch(text.strip()):
            alias = text.strip()
            if not alias.startswith("virtio:"):  # the virtio device says less than its PCI parent
                return alias
    return None


def udev_may_know(device: Path) -> bool:
    """False when udevd surely holds no record of the (live, resolved) device: its file in the
    udev database, named as libudev names it ("+SUBSYSTEM:SYSNAME" for a device with neither
    a device number nor an interface index: a NIC's PCI function, a virtio device), is absent.
    True whenever that cannot be told this cheaply: pyudev is then asked."""
    uevent = read_kernel_file(device / "uevent", "uevent", 4096, None)
    if not isinstance(uevent, str) or any(
        line.startswith(("MAJOR=", "IFINDEX=")) for line in uevent.splitlines()
    ):
        return True
    try:
        subsystem = os.path.basename(os.readlink(device / "subsystem"))
    except OSError:
        return True
    if not subsystem or "!" in device.name or subsystem == "drivers":
        return True
    return (UDEV_DATA / f"+{subsystem}:{device.name}").exists()


@lru_cache(maxsize=64)
def _udev_names(device: Path) -> tuple[str | None, str | None]:
    """What udevd stored for the device (live host only); (None, None) without a udevd.
    Cached per device path: placement is re-read every few ticks, a NIC's model is not.
    pyudev (~2.5 MB resident with libudev) is imported only for a device udevd has a record
    of: where no udevd ran, a small host's first frame does not load it (issue 38, goal 3)."""
    if not udev_may_know(device):
        return None, None
    try:
        import pyudev

        dev = pyudev.Devices.from_sys_path(pyudev.Context(), str(device))
        props = dev.properties
        return props.get("ID_VENDOR_FROM_DATABASE"), props.get("ID_MODEL_FROM_DATABASE")
    except (ImportError, OSError, ValueError, pyudev.DeviceNotFoundError):
        return None, None


@lru_cache(maxsize=64)
def hwdb_names(alias: str) -> tuple[str | None, str | None]:
    """(vendor, model) for a modalias from the hardware database; (None, None) when it has
    no entry or systemd-hwdb is not there."""
    if not _MODALIAS.fullmatch(alias):
        return None, None
    try:
        out = proc.run(["systemd-hwdb", "query", alias], timeout=_HWDB_TIMEOUT)
    except (proc.ProgramRefused, OSError, subprocess.TimeoutExpired):
        return None, None
    found: dict[str, str] = {}
    for line in out.stdout.splitlines()[:64]:
        key, sep, value = line.partition("=")
        if sep and key in ("ID_VENDOR_FROM_DATABASE", "ID_MODEL_FROM_DATABASE"):
            found[key] = value.strip()[:120]
    return found.get("ID_VENDOR_FROM_DATABASE"), found.get("ID_MODEL_FROM_DATABASE")


def nic_names(root: HostRoot, device: Path) -> tuple[str | None, str | None]:
    """(vendor, model) of the netdev whose sysfs `device` link is given."""
    if root.live:
        real = device.resolve()
        vendor, model = _udev_names(real)
        if vendor or model:
            return vendor, model
        # A virtio netdev's device is virtioN: its PCI parent is what the database knows.
        if real.name.startswith("virtio"):
            vendor, model = _udev_names(real.parent)
            if vendor or model:
                return vendor, model
    alias = modalias(root, device.resolve())
    return hwdb_names(alias) if alias else (None, None)
