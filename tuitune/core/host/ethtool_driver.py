"""A driver's private flags and FEC mode through SIOCETHTOOL (ETHTOOL_[GS]PFLAGS,
ETHTOOL_[GS]FECPARAM), the same ioctl path tuitune uses for rings, channels and pause.

The ioctl carries everything the netlink PRIVFLAGS/FEC messages do for this purpose: drivers
keep at most 32 private flags (ethtool_ops->get_priv_flags returns a u32), and the FEC set
takes the configured modes as one mask. Each function raises OSError with the kernel's errno;
callers turn it into a state.
"""

from __future__ import annotations

import ctypes
import struct
from dataclasses import dataclass

from tuitune.core.host import ethtool_ioctl as io

ETHTOOL_GPFLAGS = 0x27
ETHTOOL_SPFLAGS = 0x28
ETHTOOL_GFECPARAM = 0x50
ETHTOOL_SFECPARAM = 0x51
VALUE = struct.Struct("=II")  # struct ethtool_value: cmd, data
FECPARAM = struct.Struct("=4I")  # struct ethtool_fecparam: cmd, active_fec, fec, reserved
FEC_MODES = ("none", "auto", "off", "rs", "baser", "llrs")  # ETHTOOL_FEC_*_BIT order
# What a user (or ethtool --set-fec) may ask for: "none" is what a driver reports when it
# has no FEC configuration, and the kernel refuses it in a set (ethtool_set_fecparam).
FEC_SETTABLE = FEC_MODES[1:]


@dataclass(frozen=True, slots=True)
class Fec:
    configured: int  # ETHTOOL_FEC_* mask: what the driver was told (auto, or fixed modes)
    active: int  # the encoding in use on the link now

    @property
    def configured_names(self) -> str:
        return fec_names(self.configured)

    @property
    def active_names(self) -> str:
        return fec_names(self.active)


def fec_names(mask: int) -> str:
    """ "auto rs" for a mask, in the kernel's bit order; "none" for no bit."""
    return " ".join(n for i, n in enumerate(FEC_MODES) if mask >> i & 1) or "none"


def fec_mask(text: str) -> int | None:
    """The mask of "auto rs" (or "Auto RS", "auto,rs", "BaseR" as ethtool prints it); None
    for a word that is no FEC mode."""
    mask = 0
    for word in text.replace(",", " ").lower().split():
        if word not in FEC_MODES:
            return None
        mask |= 1 << FEC_MODES.index(word)
    return mask


def read_priv_flags(eth: io.EthtoolIoctl) -> tuple[tuple[str, bool], ...] | None:
    """(name, on) of each private flag, bit i the i-th; None: the driver has none."""
    count = eth.sset_count(io.ETH_SS_PRIV_FLAGS)
    if not count:
        return None
    names = io.decode_strings(eth.strings_raw(io.ETH_SS_PRIV_FLAGS, count), count)
    buf = ctypes.create_string_buffer(VALUE.size)
    VALUE.pack_into(buf, 0, ETHTOOL_GPFLAGS, 0)
    eth.call(buf)
    bits = VALUE.unpack_from(buf.raw)[1]
    return tuple((n, bool(bits >> i & 1)) for i, n in enumerate(names[:32]))


def priv_mask(flags: tuple[tuple[str, bool], ...]) -> int:
    return sum(1 << i for i, (_, on) in enumerate(flags[:32]) if on)


def write_priv_flags(eth: io.EthtoolIoctl, mask: int) -> None:
    """Set every flag at once: the ioctl takes the whole mask, bit i for the i-th name."""
    eth.call(ctypes.create_string_buffer(VALUE.pack(ETHTOOL_SPFLAGS, mask), VALUE.size))


def read_fec(eth: io.EthtoolIoctl) -> Fec:
    buf = ctypes.create_string_buffer(FECPARAM.size)
    FECPARAM.pack_into(buf, 0, ETHTOOL_GFECPARAM, 0, 0, 0)
    eth.call(buf)
    _, active, configured, _ = FECPARAM.unpack_from(buf.raw)
    return Fec(configured, active)


def write_fec(eth: io.EthtoolIoctl, mask: int) -> None:
    eth.call(ctypes.create_string_buffer(FECPARAM.pack(ETHTOOL_SFECPARAM, 0, mask, 0), 16))
