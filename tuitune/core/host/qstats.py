"""The kernel's per-queue statistics (netdev generic netlink, `qstats-get`, Linux 6.10+).

Drivers that implement them (virtio_net, mlx5, bnxt, gve, ice, fbnic, ...) report each queue's
packets, bytes and drops in one form, where `ethtool -S` spells them per driver; since 6.10
virtio_net keeps only drops and XDP counters in `ethtool -S`. veth does not implement them.

The pairs returned are named like i40e's `ethtool -S` (`rx-0.packets`, `tx-3.hw_drops`), so
core/host/queuestats.py reads them with the scheme it already has.
"""

from __future__ import annotations

import errno
import socket
import struct

from tuitune.core.host.ethtool_netlink import (
    CTRL_ATTR_FAMILY_ID,
    CTRL_ATTR_FAMILY_NAME,
    CTRL_CMD_GETFAMILY,
    GENL_ID_CTRL,
    NETLINK_GENERIC,
    NLM_F_REQUEST,
    NetlinkError,
    genl_replies,
    iter_attrs,
    pack_attr,
)
from tuitune.core.host.nlmsg import NLMSGHDR

NLM_F_DUMP = 0x300
NETDEV_CMD_QSTATS_GET = 12
NETDEV_A_QSTATS_IFINDEX = 1
NETDEV_A_QSTATS_QUEUE_TYPE = 2  # 0 rx, 1 tx
NETDEV_A_QSTATS_QUEUE_ID = 3
NETDEV_A_QSTATS_SCOPE = 4
NETDEV_QSTATS_SCOPE_QUEUE = 1
# include/uapi/linux/netdev.h, NETDEV_A_QSTATS_*: the counters kept (others are checksum and
# GRO/GSO detail). Names as queuestats.py's measures read them.
QSTATS_ATTRS: dict[int, str] = {
    8: "packets",  # RX_PACKETS
    9: "bytes",  # RX_BYTES
    10: "packets",  # TX_PACKETS
    11: "bytes",  # TX_BYTES
    12: "alloc_fail",  # RX_ALLOC_FAIL
    13: "hw_drops",  # RX_HW_DROPS
    14: "hw_drop_overruns",  # RX_HW_DROP_OVERRUNS
    24: "hw_drops",  # TX_HW_DROPS
    25: "hw_drop_errors",  # TX_HW_DROP_ERRORS
}
_RX_ONLY = {8, 9, 12, 13, 14}
_TX_ONLY = {10, 11, 24, 25}
_GENLHDR = struct.Struct("=BBH")


def _uint(payload: bytes) -> int:
    return int.from_bytes(payload[:8], "little")  # nla_put_uint: 4 or 8 bytes


def decode(replies: list[bytes], ifindex: int) -> tuple[tuple[str, int], ...]:
    """`rx-N.what` pairs from qstats-get replies (genl payloads) of one interface."""
    out: list[tuple[str, int]] = []
    for reply in replies:
        attrs = list(iter_attrs(reply))
        meta = {a: _uint(p) for a, p in attrs if a <= NETDEV_A_QSTATS_SCOPE}
        if meta.get(NETDEV_A_QSTATS_IFINDEX) != ifindex or NETDEV_A_QSTATS_QUEUE_ID not in meta:
            continue
        qtype = meta.get(NETDEV_A_QSTATS_QUEUE_TYPE)
        if qtype not in (0, 1):
            continue
        d, allowed = ("rx", _RX_ONLY) if qtype == 0 else ("tx", _TX_ONLY)
        q = meta[NETDEV_A_QSTATS_QUEUE_ID]
        if q > 65535:
            continue
        for a, p in attrs:
            if a in allowed and a in QSTATS_ATTRS:
                out.append((f"{d}-{q}.{QSTATS_ATTRS[a]}", _uint(p)))
    return tuple(out)


class QstatsNetlink:
    """qstats-get for one interface index; raises OSError (ENOENT: no netdev family, i.e. a
    kernel before 6.10) or NetlinkError (EOPNOTSUPP: the driver has no queue stats)."""

    def __init__(self) -> None:
        self._sock: socket.socket | None = None
        self._family: int | None = None
        self._seq = 0

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _exchange(
        self, mtype: int, flags: int, cmd: int, version: int, attrs: bytes
    ) -> list[bytes]:
        if self._sock is None:
            self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
            self._sock.bind((0, 0))
        self._seq = (self._seq + 1) & 0xFFFFFFFF
        body = _GENLHDR.pack(cmd, version, 0) + attrs
        self._sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), mtype, flags, self._seq, 0) + body)
        # A dump of every queue: bounded, however many the kernel sends.
        return genl_replies(self._sock, self._seq, reads=4096, dump=bool(flags & NLM_F_DUMP))

    def _family_id(self) -> int:
        if self._family is None:
            name = pack_attr(CTRL_ATTR_FAMILY_NAME, b"netdev\0")
            try:
                (reply,) = self._exchange(GENL_ID_CTRL, NLM_F_REQUEST, CTRL_CMD_GETFAMILY, 2, name)
            except (NetlinkError, ValueError) as exc:
                raise OSError(
                    errno.ENOENT, "no netdev netlink family (kernel before 6.10?)"
                ) from exc
            for atype, payload in iter_attrs(reply):
                if atype == CTRL_ATTR_FAMILY_ID:
                    self._family = struct.unpack_from("=H", payload)[0]
            if self._family is None:
                raise OSError(errno.ENOENT, "no netdev netlink family")
        return self._family

    def queues(self, ifindex: int) -> tuple[tuple[str, int], ...]:
        attrs = pack_attr(NETDEV_A_QSTATS_IFINDEX, struct.pack("=I", ifindex))
        attrs += pack_attr(NETDEV_A_QSTATS_SCOPE, struct.pack("=I", NETDEV_QSTATS_SCOPE_QUEUE))
        replies = self._exchange(
            self._family_id(), NLM_F_REQUEST | NLM_F_DUMP, NETDEV_CMD_QSTATS_GET, 1, attrs
        )
        return decode(replies, ifindex)
