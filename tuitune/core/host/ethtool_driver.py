"""A driver's private flags through SIOCETHTOOL (ETHTOOL_[GS]PFLAGS), the same ioctl path
tuitune uses for rings, channels and pause (FEC's commands are its kind's own:
core/session/kinds/fec.py, through ethtool_device.py's IoctlRead/IoctlWrite).

The ioctl carries everything the netlink PRIVFLAGS message does for this purpose: drivers
keep at most 32 private flags (ethtool_ops->get_priv_flags returns a u32). Each function
raises OSError with the kernel's errno; callers turn it into a state.
"""

from __future__ import annotations

import ctypes
import struct

from tuitune.core.host import ethtool_ioctl as io

ETHTOOL_GPFLAGS = 0x27
ETHTOOL_SPFLAGS = 0x28
VALUE = struct.Struct("=II")  # struct ethtool_value: cmd, data


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
