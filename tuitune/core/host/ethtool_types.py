"""What ethtool reports about a device, as plain values: driver info, features, rings,
channels, pause and coalescing, and the `ethtool -K` short names. No sockets here: the session,
the exports and the screen use these without opening a device (tuitune/core/host/ethtool.py
reads and writes them)."""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME

U32_MAX = 0xFFFFFFFF

# `ethtool -K` short names -> the kernel feature names they stand for (ethtool's off_flag_def).
LEGACY_FEATURE_ALIASES: Mapping[str, str] = {
    "rx": "rx-checksum",
    "tx": "tx-checksum-*",
    "sg": "tx-scatter-gather*",
    "tso": "tx-tcp*-segmentation",
    "ufo": "tx-udp-fragmentation",
    "gso": "tx-generic-segmentation",
    "gro": "rx-gro",
    "lro": "rx-lro",
    "rxvlan": "rx-vlan-hw-parse",
    "txvlan": "tx-vlan-hw-insert",
    "ntuple": "rx-ntuple-filter",
    "rxhash": "rx-hashing",
}


def short_name(feature: str) -> str:
    """The `ethtool -K` short name that moves this kernel feature (tx-tcp6-segmentation:
    "tso"), or "" when none does."""
    return next(
        (s for s, pat in LEGACY_FEATURE_ALIASES.items() if fnmatch.fnmatchcase(feature, pat)), ""
    )


COALESCE_IOCTL_NAMES: tuple[str, ...] = tuple(name for _, name in io.COALESCE_IOCTL_NAMES)
COALESCE_FLAGS = frozenset(n for n, (_, flag) in COALESCE_BY_NAME.items() if flag)


@dataclass(frozen=True, slots=True)
class DriverInfo:
    driver: str
    version: str
    firmware: str
    erom_version: str
    bus_info: str
    n_priv_flags: int
    n_stats: int
    testinfo_len: int
    eedump_len: int
    regdump_len: int


@dataclass(frozen=True, slots=True)
class Feature:
    name: str  # kernel name, as `ethtool -k` prints it (tx-checksum-ipv4, rx-gro, ...)
    index: int  # bit number in the kernel's feature set
    available: bool  # changeable on this device
    requested: bool  # what the user asked for (kept even when the kernel cannot honour it)
    active: bool  # what the device does now
    never_changed: bool  # never changeable on any device

    @property
    def fixed(self) -> bool:
        """What `ethtool -k` marks "[fixed]"."""
        return not self.available or self.never_changed


@dataclass(frozen=True, slots=True)
class FeatureChange:
    """Outcome of `set_features`."""

    refused: tuple[str, ...]  # asked-for features whose active state is not what was asked
    changed: tuple[tuple[str, bool], ...]  # every feature whose active state changed (new value)
    features: tuple[Feature, ...]  # all features after the write
    kernel_wish: bool  # the kernel answered ETHTOOL_F_WISH: some wishes recorded, not honoured


@dataclass(frozen=True, slots=True)
class Rings:
    rx: int
    rx_mini: int
    rx_jumbo: int
    tx: int
    rx_max: int
    rx_mini_max: int
    rx_jumbo_max: int
    tx_max: int


@dataclass(frozen=True, slots=True)
class Channels:
    rx: int
    tx: int
    other: int
    combined: int
    rx_max: int
    tx_max: int
    other_max: int
    combined_max: int


@dataclass(frozen=True, slots=True)
class Pause:
    autoneg: bool
    rx: bool
    tx: bool


@dataclass(frozen=True, slots=True)
class Coalesce:
    """Coalescing parameters by their `ethtool -C` names, in `ethtool -c` order.

    From netlink: exactly the parameters the driver supports. From the ioctl fallback (kernels
    without ethtool netlink): all 22 fields of struct ethtool_coalesce, supported or not.
    Flags (adaptive-rx/tx, cqe-mode-rx/tx) are 0 or 1.
    """

    params: tuple[tuple[str, int], ...]
    source: Literal["netlink", "ioctl"]

    def get(self, name: str) -> int | None:
        return dict(self.params).get(name)

    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.params)
