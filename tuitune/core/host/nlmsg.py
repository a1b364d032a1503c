"""Netlink's framing, shared by the two small hand-written netlink clients (rtnl.py: link
reads; ethtool_netlink.py: coalescing): the message header and the walk over a datagram."""

from __future__ import annotations

import struct
from collections.abc import Iterator

NLMSGHDR = struct.Struct("=IHHII")  # struct nlmsghdr: length, type, flags, seq, pid


def align(n: int) -> int:
    return (n + 3) & ~3


def messages(data: bytes) -> Iterator[tuple[int, int, int, bytes]]:
    """(type, flags, seq, payload) of each message of one received datagram. A header that
    claims less than its own size ends the walk: what follows cannot be framed."""
    at = 0
    while at + NLMSGHDR.size <= len(data):
        length, mtype, flags, seq, _pid = NLMSGHDR.unpack_from(data, at)
        if length < NLMSGHDR.size:
            return
        yield mtype, flags, seq, data[at + NLMSGHDR.size : at + length]
        at += align(length)
