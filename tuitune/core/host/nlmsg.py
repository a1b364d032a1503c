"""Netlink's framing, the one parser of it: the message header and the walk over a
datagram, and the attributes (TLVs) in a message, for the small hand-written netlink
clients (rtnl.py: link reads; ethtool_netlink.py: coalescing; qstats.py: queue counters;
export/affinity_link.py: link events at boot). Malformed input ends a walk, never raises."""

from __future__ import annotations

import struct
from collections.abc import Iterator

NLMSGHDR = struct.Struct("=IHHII")  # struct nlmsghdr: length, type, flags, seq, pid
NLATTR = struct.Struct("=HH")  # struct nlattr (rtattr is the same): length, type
NLA_TYPE_MASK = 0x3FFF  # the type without NLA_F_NESTED / NLA_F_NET_BYTEORDER


def align(n: int) -> int:
    return (n + 3) & ~3


def messages(data: bytes) -> Iterator[tuple[int, int, int, bytes]]:
    """(type, flags, seq, payload) of each message of one received datagram. A header that
    claims less than its own size, or more than the datagram holds, ends the walk: what
    follows cannot be framed, and a cut message is not half read."""
    at = 0
    while at + NLMSGHDR.size <= len(data):
        length, mtype, flags, seq, _pid = NLMSGHDR.unpack_from(data, at)
        if length < NLMSGHDR.size or at + length > len(data):
            return
        yield mtype, flags, seq, data[at + NLMSGHDR.size : at + length]
        at += align(length)


def pack_attr(atype: int, payload: bytes) -> bytes:
    return (
        NLATTR.pack(NLATTR.size + len(payload), atype)
        + payload
        + b"\0" * (align(len(payload)) - len(payload))
    )


def iter_attrs(data: bytes, offset: int = 0) -> Iterator[tuple[int, bytes]]:
    """(type without flag bits, payload) for each netlink attribute in data[offset:]."""
    while offset + NLATTR.size <= len(data):
        length, atype = NLATTR.unpack_from(data, offset)
        if length < NLATTR.size or offset + length > len(data):
            return  # malformed: stop rather than read garbage
        yield atype & NLA_TYPE_MASK, data[offset + NLATTR.size : offset + length]
        offset += align(length)
