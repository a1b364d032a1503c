"""Help for the knobs that are not sysctls: offloads, rings, coalescing, queues, MTU, affinity.

Same Advice shape as the sysctl catalog (tuitune.core.catalog); keyed by a short name.

Offload dependencies: NASA reported, on CentOS 6.2 (no kernel version given), that toggling
rx checksumming also toggled GRO, tx checksumming also toggled SG and TSO, and SG also toggled
TSO. On Linux 6.18 (checked with ethtool on a veth pair) the kernel's rules are narrower: tx
checksumming off drops TSO but leaves SG alone, SG off drops TSO and GSO, and rx checksumming
off leaves software GRO on (only hardware GRO, rx-gro-hw, needs it). Drivers may add rules of
their own, so re-read the features after every change. `turns_off` holds the 6.x behaviour,
`turns_off_reported` NASA's.

The entries are data: tuitune/core/catalog/data/device.toml, read once at import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

from tuitune.core.catalog import Advice, check_advice
from tuitune.core.catalog.load import DATA_DIR, load


@dataclass(frozen=True, slots=True)
class DeviceHelp:
    name: str
    summary: str  # one line, <= 70 chars
    help: str
    sources: tuple[Advice, ...]
    tool: str | None = None  # how it is changed by hand, for the help pane
    turns_off: tuple[str, ...] = ()  # features the kernel also clears when this goes off (6.x)
    turns_off_reported: tuple[str, ...] = ()  # what NASA saw flip with it (CentOS 6.2)


def _check(d: DeviceHelp) -> None:
    check_advice(d.sources)


def load_device_help(path: Path = DATA_DIR / "device.toml") -> tuple[DeviceHelp, ...]:
    """The entries of a device-help data file; CatalogDataError naming the file and entry."""
    return load(path, "device", DeviceHelp, id_field="name", check=_check)


DEVICE_HELP: Mapping[str, DeviceHelp] = MappingProxyType({d.name: d for d in load_device_help()})


def device_help(name: str) -> DeviceHelp:
    try:
        return DEVICE_HELP[name]
    except KeyError:
        known = ", ".join(DEVICE_HELP)
        raise KeyError(f"no device help for {name!r} (known: {known})") from None
