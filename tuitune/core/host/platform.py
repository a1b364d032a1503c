"""The platform under a NIC, in ESnet's order (BIOS/platform, firmware, driver): CPU power and
SMT (cpupower.py), the PCIe path (pcie.py), the IOMMU, and the driver's module parameters,
private flags, the plug-in module's EEPROM (module_eeprom.py) and what each setting kind
reads of the interface for itself (`KindRead`: its handler declares it, in
core/session/kinds; this module runs the reads it is given without naming any).

One `read_platform` for a live host and a --root tree alike; what a tree cannot hold (private
flags and the kinds' reads come from the driver through SIOCETHTOOL) is a state there, as is
every feature the host lacks.
"""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from tuitune.core.host import ethtool_driver as drv
from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host import module_eeprom as sff
from tuitune.core.host.cpupower import CpuPower, Smt, read_cpu_power, read_smt
from tuitune.core.host.pcie import PciFunction, pci_chain, read_pci_chain
from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.values import Unavailable, from_oserror

_MODULE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
# The kernel command line words that choose the IOMMU's mode (kernel-parameters.txt).
_IOMMU_WORDS = ("intel_iommu=", "amd_iommu=", "iommu=", "iommu.passthrough=", "iommu.strict=")
NOT_IN_TREE = "not recorded in a host tree (read from the driver on a live host)"
_NO_OPTICS = Unavailable("missing", NOT_IN_TREE)


@dataclass(frozen=True, slots=True)
class ModuleParam:
    name: str
    value: str | Unavailable
    writable: bool  # the owner write bit: the kernel takes a new value at run time


@dataclass(frozen=True, slots=True)
class Iommu:
    enabled: bool | None  # an IOMMU unit is registered (/sys/class/iommu); None: not read
    units: tuple[str, ...]
    group: int | None  # the NIC's iommu_group
    domain_type: str | None  # identity (passthrough), DMA, DMA-FQ, blocked
    cmdline: tuple[str, ...]  # the command line words that set the mode


class KindValue(Protocol):
    """What a kind's read of the interface gave (its handler's own type)."""

    @property
    def kept(self) -> str | Unavailable:
        """What a capture records of it (core/capture/device.py keeps it under the kind)."""
        ...


class KindRead(Protocol):
    """A setting kind's own read of one interface for the platform snapshot (the Host view's
    row, `show --json`, a capture): its handler declares it (`platform_read`,
    core/session/kinds); `read_driver` runs each it is given, keyed by `kind`."""

    @property
    def kind(self) -> str: ...

    @property
    def what(self) -> str:
        """The words a refusal starts with ("FEC: needs root")."""
        ...

    def live(self, eth: io.EthtoolIoctl) -> KindValue:
        """The read on a live host (OSError: the kernel's refusal, made a state here)."""
        ...

    def replay(self, kept: str | Unavailable) -> KindValue:
        """The value of what a capture kept, or of the state the read is where it was not
        made (a tree, no interface, a refusal)."""
        ...


@dataclass(frozen=True, slots=True)
class DriverPlatform:
    module: str | None
    params: tuple[ModuleParam, ...] | Unavailable
    priv_flags: tuple[tuple[str, bool], ...] | Unavailable
    # The SFP/QSFP module's EEPROM (`ethtool -m`), read-only.
    optics: sff.Optics | Unavailable = _NO_OPTICS
    # Each kind's own read (`KindRead`), by kind: its handler reads it back.
    kinds: Mapping[str, KindValue] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Platform:
    cpu: CpuPower
    smt: Smt
    pcie: tuple[PciFunction, ...] | Unavailable
    iommu: Iommu
    driver: DriverPlatform


def driver_module(root: HostRoot, ifname: str) -> str | None:
    """The kernel module that drives the interface (device/driver/module; for a built-in driver
    its /sys/module entry), None for a virtual device."""
    dev = f"class/net/{ifname}/device/driver"
    try:
        target = os.readlink(root.sys_path(f"{dev}/module"))
    except OSError:
        # Built in: no module link, but /sys/module/NAME/parameters still holds its knobs.
        try:
            target = os.readlink(root.sys_path(dev)).replace("-", "_")
        except OSError:
            return None
        name = target.rstrip("/").rsplit("/", 1)[-1]
        return name if _MODULE.match(name) and root.sys_path(f"module/{name}").is_dir() else None
    name = target.rstrip("/").rsplit("/", 1)[-1]
    return name if _MODULE.match(name) else None


def read_module_params(root: HostRoot, module: str | None) -> tuple[ModuleParam, ...] | Unavailable:
    if module is None:
        return Unavailable("unsupported", "no module (driver built in, or a virtual device)")
    rel = f"module/{module}/parameters"
    try:
        names = sorted(root.listdir(root.sys_path(rel)))
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return Unavailable("unsupported", f"{module} has no module parameters")
        return from_oserror(exc, f"/sys/{rel}")
    out = []
    for name in names:
        if not _MODULE.match(name):
            continue
        path = root.sys_path(f"{rel}/{name}")
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            continue
        value = read_value(root, path, f"{module}.{name}")
        out.append(ModuleParam(name, value, stat.S_ISREG(mode) and bool(mode & stat.S_IWUSR)))
    return tuple(out)


def read_iommu(root: HostRoot, ifname: str) -> Iommu:
    try:
        units = tuple(sorted(root.listdir(root.sys_path("class/iommu"))))
        enabled: bool | None = bool(units)
    except OSError:
        units, enabled = (), None
    chain = pci_chain(root, ifname)
    group = None
    if chain:
        try:
            target = os.readlink(root.sys_path(f"{chain[0][1]}/iommu_group"))
            name = target.rstrip("/").rsplit("/", 1)[-1]
            group = int(name) if name.isascii() and name.isdigit() and len(name) < 10 else None
        except OSError:
            group = None
    kind = None
    if group is not None:
        text = read_value(root, root.sys_path(f"kernel/iommu_groups/{group}/type"), "type")
        kind = text if isinstance(text, str) else None
    cmdline = root.proc_text("cmdline")
    line = cmdline.split() if isinstance(cmdline, str) else []
    words = tuple(w for w in line if w.startswith(_IOMMU_WORDS))
    return Iommu(enabled, units, group, kind, words)


def _priv_flags(ifname: str) -> tuple[tuple[str, bool], ...] | Unavailable:
    eth = io.EthtoolIoctl(ifname)
    try:
        flags = drv.read_priv_flags(eth)
    except OSError as exc:
        return from_oserror(exc, "private flags")
    finally:
        eth.close()
    if flags is None:
        return Unavailable("unsupported", "the driver has no private flags")
    return tuple(f for f in flags if f[0])


def _kind_read(ifname: str, read: KindRead) -> KindValue:
    eth = io.EthtoolIoctl(ifname)
    try:
        return read.live(eth)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.ENOTSUP):
            return read.replay(Unavailable("unsupported", "not supported by this driver"))
        return read.replay(from_oserror(exc, read.what))
    finally:
        eth.close()


def _states(reads: Sequence[KindRead], state: Unavailable) -> dict[str, KindValue]:
    return {r.kind: r.replay(state) for r in reads}


def _optics(ifname: str) -> sff.Optics | Unavailable:
    eth = io.EthtoolIoctl(ifname)
    try:
        standard, data = sff.read_eeprom(eth)
    except OSError as exc:
        if exc.errno in (errno.EOPNOTSUPP, errno.ENOTSUP):
            return Unavailable("unsupported", "no module EEPROM (the driver has no access)")
        if exc.errno in (errno.ENODEV, errno.EIO, errno.ENXIO):
            return Unavailable("missing", "no module in the port (or it does not answer)")
        return from_oserror(exc, "module EEPROM")
    finally:
        eth.close()
    got = sff.parse(standard, data)
    if got is None:
        return Unavailable("unsupported", f"{standard} ({len(data)} bytes): not decoded here")
    return got


def _direct(fn: Callable[..., Any], *args: object) -> Any:
    return fn(*args)


def read_driver(
    root: HostRoot,
    ifname: str,
    call: Callable[..., Any] = _direct,
    reads: Sequence[KindRead] = (),
) -> DriverPlatform:
    """`call` runs the ioctls (a HostReader's `call`: inside its namespace); `reads`: the
    kinds' own (core/session/kinds/table.py's PLATFORM_READS)."""
    module = driver_module(root, ifname)
    optics: sff.Optics | Unavailable = _NO_OPTICS
    if root.live:
        flags: tuple[tuple[str, bool], ...] | Unavailable = call(_priv_flags, ifname)
        kinds = {r.kind: call(_kind_read, ifname, r) for r in reads}
        optics = call(_optics, ifname)
    else:
        flags = Unavailable("missing", NOT_IN_TREE)
        kinds = _states(reads, flags)
        if root.jail is not None:  # a capture holds what the ioctls said (core/capture)
            from tuitune.core.capture.device import NOT_CAPTURED, CapturedDevice, load_device

            dev = load_device(Path(root.jail), ifname)
            if isinstance(dev, CapturedDevice):
                params = read_module_params(root, module)
                optics = dev.dev.optics if dev.dev.optics is not None else _NO_OPTICS
                kept = dev.dev.kinds
                kinds = {r.kind: r.replay(kept.get(r.kind, NOT_CAPTURED)) for r in reads}
                return DriverPlatform(module, params, dev.dev.priv_flags, optics, kinds)
    params = read_module_params(root, module)
    return DriverPlatform(module, params, flags, optics, kinds)


def read_platform(
    root: HostRoot,
    ifname: str | None,
    call: Callable[..., Any] = _direct,
    reads: Sequence[KindRead] = (),
) -> Platform:
    """Everything above, for `ifname` (None: the CPU side only). The sysfs reads run where
    this is called (a big host's cpuidle is tens of thousands of files: the live screen calls
    it on a worker thread, not the kernel thread the sampler needs); `call` runs the ioctls
    (a HostReader's `call`, so a --netns host's are the namespace's); `reads`: the kinds'
    own reads of the interface (core/session/kinds/table.py's PLATFORM_READS)."""
    none = Unavailable("missing", "no interface")
    cpu = read_cpu_power(root)
    if ifname and not root.live and root.jail is not None:
        # A capture keeps the PM QoS request it read (/dev is not in a tree).
        from tuitune.core.capture.device import captured_request

        req = captured_request(Path(root.jail), ifname, cpu.latency_request)
        cpu = replace(cpu, latency_request=req)
    return Platform(
        cpu=cpu,
        smt=read_smt(root),
        pcie=read_pci_chain(root, ifname) if ifname else none,
        iommu=read_iommu(root, ifname) if ifname else Iommu(None, (), None, None, ()),
        driver=(
            read_driver(root, ifname, call, reads)
            if ifname
            else DriverPlatform(None, none, none, kinds=_states(reads, none))
        ),
    )
