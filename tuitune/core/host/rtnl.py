"""The live screen's rtnetlink reads without pyroute2: RTM_GETLINK of one interface by name,
and its qdiscs (a RTM_GETQDISC dump, decoded in rtnl_qdisc.py).

The live screen reads a link's MTU, its bounds, txqueuelen, state and counters through this:
`import pyroute2` loads its whole library (about 200 modules, 8.5 MB resident here, issue
18 goal 5) and took 0.1 to 0.5 s of the first sample. Writes (MTU, txqueuelen) still go
through pyroute2, imported at the first write.

`LinkReader().link("get", ifname=NAME)` answers like pyroute2's IPRoute.link: a list of one
message with `.get(attr)` and `["index"]`, attributes by pyroute2's names (mtu, min_mtu,
max_mtu, txqlen, operstate, carrier, address, perm_address, num_rx_queues, num_tx_queues,
linkinfo -> {"kind"}, stats64 / stats -> {rx_bytes, ...}), so read_link takes either. A
kernel refusal raises `NetlinkError` with the errno in `.code`, as pyroute2's does. The
socket is opened in the namespace of the thread that creates the reader (the kernel thread).
"""

from __future__ import annotations

import os
import socket
import struct
from typing import Any

from tuitune.core.host.nlmsg import NLATTR, NLMSGHDR, iter_attrs, messages
from tuitune.core.host.rtnl_qdisc import (
    NLMSG_DONE,
    RTM_NEWQDISC,
    QdiscMessage,
    decode_qdisc,
    dump_request,
)

RTM_NEWLINK, RTM_GETLINK = 16, 18
NLMSG_ERROR = 2
NLM_F_REQUEST = 1
IFLA_IFNAME = 3
_IFI = struct.Struct("=BxHiII")  # ifinfomsg

OPERSTATES = ("UNKNOWN", "NOTPRESENT", "DOWN", "LOWERLAYERDOWN", "TESTING", "DORMANT", "UP")
# struct rtnl_link_stats64 / rtnl_link_stats, in order (linux/if_link.h).
STATS = (
    "rx_packets", "tx_packets", "rx_bytes", "tx_bytes", "rx_errors", "tx_errors",
    "rx_dropped", "tx_dropped", "multicast", "collisions", "rx_length_errors",
    "rx_over_errors", "rx_crc_errors", "rx_frame_errors", "rx_fifo_errors",
    "rx_missed_errors", "tx_aborted_errors", "tx_carrier_errors", "tx_fifo_errors",
    "tx_heartbeat_errors", "tx_window_errors", "rx_compressed", "tx_compressed",
    "rx_nohandler", "rx_otherhost_dropped",
)  # fmt: skip
_U32 = {4: "mtu", 13: "txqlen", 31: "num_tx_queues", 32: "num_rx_queues", 50: "min_mtu",
        51: "max_mtu"}  # fmt: skip
_MAC = {1: "address", 54: "perm_address"}
IFLA_STATS, IFLA_OPERSTATE, IFLA_LINKINFO, IFLA_STATS64, IFLA_CARRIER = 7, 16, 18, 23, 33
IFLA_INFO_KIND = 1


class NetlinkError(OSError):
    """The kernel's answer to the request was an error (`code`: the errno)."""

    def __init__(self, code: int, text: str) -> None:
        super().__init__(code, text)
        self.code = code


class LinkMessage(dict[str, Any]):
    """The decoded attributes, read with .get(name) or [name] like a pyroute2 message."""


def _mac(raw: bytes) -> str:
    return ":".join(f"{b:02x}" for b in raw)


def decode_link(data: bytes) -> LinkMessage:
    """One RTM_NEWLINK message body (after nlmsghdr): ifinfomsg then attributes."""
    _family, _type, index, _flags, _change = _IFI.unpack_from(data, 0)
    msg = LinkMessage(index=index)
    for kind, raw in iter_attrs(data, _IFI.size):
        if kind in _U32 and len(raw) >= 4:
            msg[_U32[kind]] = struct.unpack_from("=I", raw)[0]
        elif kind in _MAC and raw:
            msg[_MAC[kind]] = _mac(raw)
        elif kind == IFLA_IFNAME:
            msg["ifname"] = raw.split(b"\0", 1)[0].decode("utf-8", "replace")
        elif kind == IFLA_OPERSTATE and raw:
            msg["operstate"] = OPERSTATES[raw[0]] if raw[0] < len(OPERSTATES) else "UNKNOWN"
        elif kind == IFLA_CARRIER and raw:
            msg["carrier"] = raw[0]
        elif kind == IFLA_LINKINFO:
            info = {}
            for sub, value in iter_attrs(raw, 0):
                if sub == IFLA_INFO_KIND:
                    info["kind"] = value.split(b"\0", 1)[0].decode("ascii", "replace")
            msg["linkinfo"] = info
        elif kind in (IFLA_STATS64, IFLA_STATS):
            width = 8 if kind == IFLA_STATS64 else 4
            n = min(len(raw) // width, len(STATS))
            values = struct.unpack_from(f"={n}{'Q' if width == 8 else 'I'}", raw)
            name = "stats64" if kind == IFLA_STATS64 else "stats"
            msg[name] = dict(zip(STATS[:n], values, strict=True))
    return msg


class LinkReader:
    """A NETLINK_ROUTE socket for RTM_GETLINK requests; close() when done."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
        self._sock.bind((0, 0))
        self._seq = 0

    def link(self, command: str, *, ifname: str) -> list[LinkMessage]:
        if command != "get":
            raise ValueError("LinkReader only reads: link('get', ifname=...)")
        self._seq += 1
        name = ifname.encode() + b"\0"
        attr = NLATTR.pack(NLATTR.size + len(name), IFLA_IFNAME) + name
        attr += b"\0" * (-len(attr) % 4)
        body = _IFI.pack(socket.AF_UNSPEC, 0, 0, 0, 0) + attr
        hdr = NLMSGHDR.pack(NLMSGHDR.size + len(body), RTM_GETLINK, NLM_F_REQUEST, self._seq, 0)
        self._sock.send(hdr + body)
        while True:
            for kind, _flags, seq, part in messages(self._sock.recv(65536)):
                if seq != self._seq:
                    continue  # an answer to an earlier request that timed out: not ours
                if kind == NLMSG_ERROR:
                    code = -struct.unpack_from("=i", part)[0]
                    if code == 0:  # an acknowledgement, not an answer
                        continue
                    raise NetlinkError(code, os.strerror(code))
                if kind == RTM_NEWLINK:
                    return [decode_link(part)]

    def qdiscs(self, ifindex: int) -> list[QdiscMessage]:
        """The qdiscs of interface `ifindex` (a dump of all, kept by ifindex), as pyroute2's
        get_qdiscs(index=...) lists them: rtnl_qdisc.py."""
        self._seq += 1
        self._sock.send(dump_request(self._seq))
        out: list[QdiscMessage] = []
        while True:
            for kind, _flags, seq, part in messages(self._sock.recv(65536)):
                if seq != self._seq:
                    continue
                if kind == NLMSG_DONE:
                    return out
                if kind == NLMSG_ERROR:
                    code = -struct.unpack_from("=i", part)[0]
                    if code == 0:
                        continue
                    raise NetlinkError(code, os.strerror(code))
                got = decode_qdisc(part) if kind == RTM_NEWQDISC else None
                if got is not None and got[0] == ifindex:
                    out.append(got[1])

    def close(self) -> None:
        self._sock.close()
