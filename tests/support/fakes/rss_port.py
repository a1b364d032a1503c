"""A driver's RSS at the SIOCETHTOOL port: answers ETHTOOL_GRSSH, GRXRINGS, SRSSH (and
GRXFH/SRXFH when given hash fields) like the kernel's ethtool core over a driver (struct
layouts of <linux/ethtool.h>), starting from a table read off a real `ethtool -x` capture.

What it keeps from the kernel: a table set by the user is "configured" (netif_is_rxfh_
configured) and stays put when the channel count changes, so new queues get no slot; an
unconfigured one is refilled with the driver's default; indir_size 0 resets to that default;
a table of the wrong size or naming a queue past the rings is EINVAL; lowering the channels
below a queue a configured table uses is EINVAL (ethtool_set_channels)."""

from __future__ import annotations

import ctypes
import errno
import struct
from collections.abc import Callable

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.rss import ETHTOOL_GRSSH, ETHTOOL_GRXFH, ETHTOOL_GRXRINGS, ETHTOOL_SRXFH
from tuitune.core.host.rss_spec import ETHTOOL_SRSSH

Fill = Callable[[int, int], list[int]]


def modulo(size: int, rings: int) -> list[int]:
    return [i % rings for i in range(size)]


def blocks(size: int, rings: int) -> list[int]:
    """igb's own default: contiguous equal blocks (igb_setup_mrqc)."""
    return [i * rings // size for i in range(size)]


class FakeRssPort(EthtoolIoctl):
    def __init__(
        self, indir: list[int], rings: int, key: bytes = bytes(40), fill: Fill = modulo
    ) -> None:
        super().__init__("fake0")
        self.indir, self.rings, self.key, self.fill = list(indir), rings, key, fill
        self.configured = False
        self.writes: list[list[int] | None] = []
        # flow type -> RXH_* bits (ETHTOOL_GRXFH/SRXFH); None: the driver answers neither.
        self.hashes: dict[int, int] | None = None
        self.hashable = 0xF0 | (1 << 3)  # s d f n and t: what most drivers take (not m, v)
        # Additional RSS contexts (`ethtool -X IF context new`): id -> table. GRSSH with
        # another rss_context is ENOENT, as the kernel's core answers for an unknown one.
        self.contexts: dict[int, list[int]] = {}

    def set_channels(self, rings: int) -> None:
        if self.configured and max(self.indir) >= rings:
            raise OSError(errno.EINVAL, "Invalid argument")
        self.rings = rings
        if not self.configured:
            self.indir = self.fill(len(self.indir), rings)

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        cmd = struct.unpack_from("=I", buf.raw)[0]
        if cmd == ETHTOOL_GRSSH:
            ctx, n_indir, n_key = struct.unpack_from("=III", buf.raw, 4)
            if ctx and ctx not in self.contexts:
                raise OSError(errno.ENOENT, "No such file or directory")
            indir = self.contexts[ctx] if ctx else self.indir
            struct.pack_into("=IIB", buf, 8, len(indir), len(self.key), 1)
            if n_indir == len(indir) and n_key == len(self.key):
                struct.pack_into(f"={n_indir}I", buf, 24, *indir)
                ctypes.memmove(ctypes.addressof(buf) + 24 + 4 * n_indir, self.key, n_key)
            return 0
        if cmd in (ETHTOOL_GRXFH, ETHTOOL_SRXFH) and self.hashes is not None:
            ft, data = struct.unpack_from("=IQ", buf.raw, 4)
            if ft not in self.hashes:
                raise OSError(errno.EINVAL, "Invalid argument")
            if cmd == ETHTOOL_GRXFH:
                struct.pack_into("=Q", buf, 8, self.hashes[ft])
            elif data & ~self.hashable:
                raise OSError(errno.EINVAL, "Invalid argument")  # as igb, ixgbe refuse m/v
            else:
                self.hashes[ft] = data
            return 0
        if cmd == ETHTOOL_GRXRINGS:
            struct.pack_into("=Q", buf, 8, self.rings)
            return 0
        if cmd == ETHTOOL_SRSSH:
            n_indir, n_key = struct.unpack_from("=II", buf.raw, 8)
            if n_key:
                raise OSError(errno.EINVAL, "Invalid argument")
            if n_indir == 0:
                self.writes.append(None)
                self.indir, self.configured = self.fill(len(self.indir), self.rings), False
                return 0
            new = list(struct.unpack_from(f"={n_indir}I", buf.raw, 24))
            if n_indir != len(self.indir) or max(new) >= self.rings:
                raise OSError(errno.EINVAL, "Invalid argument")
            self.writes.append(new)
            self.indir, self.configured = new, True
            return 0
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")
