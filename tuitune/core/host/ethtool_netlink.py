"""A minimal ethtool generic-netlink client: COALESCE_GET / COALESCE_SET for one interface.

Why netlink for coalescing: the COALESCE_GET reply carries only the parameters the driver
supports, which the ioctl cannot tell. Why not pyroute2: its synchronous classes run an event
loop per call and cost hundreds of microseconds; this is one sendto + one recv.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
from collections.abc import Iterator, Mapping

from tuitune.core.host.nlmsg import NLMSGHDR, align, messages
from tuitune.core.host.nlmsg import iter_attrs as iter_attrs  # qdisc.py, qstats.py
from tuitune.core.host.nlmsg import pack_attr as pack_attr

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_CAP_ACK = 10
NETLINK_EXT_ACK = 11

NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
NLA_F_NESTED = 0x8000

GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2

ETHTOOL_GENL_NAME = b"ethtool"
ETHTOOL_GENL_VERSION = 1
ETHTOOL_MSG_COALESCE_GET = 19
ETHTOOL_MSG_COALESCE_SET = 20
ETHTOOL_A_HEADER_DEV_NAME = 2
ETHTOOL_A_COALESCE_HEADER = 1

# ETHTOOL_A_COALESCE_* attribute -> (`ethtool -C` name, is a u8 flag). In attribute order,
# which is also the order `ethtool -c` prints. 29/30 (DIM profiles) are nests and not kept.
COALESCE_ATTRS: dict[int, tuple[str, bool]] = {
    2: ("rx-usecs", False),
    3: ("rx-frames", False),
    4: ("rx-usecs-irq", False),
    5: ("rx-frames-irq", False),
    6: ("tx-usecs", False),
    7: ("tx-frames", False),
    8: ("tx-usecs-irq", False),
    9: ("tx-frames-irq", False),
    10: ("stats-block-usecs", False),
    11: ("adaptive-rx", True),
    12: ("adaptive-tx", True),
    13: ("pkt-rate-low", False),
    14: ("rx-usecs-low", False),
    15: ("rx-frames-low", False),
    16: ("tx-usecs-low", False),
    17: ("tx-frames-low", False),
    18: ("pkt-rate-high", False),
    19: ("rx-usecs-high", False),
    20: ("rx-frames-high", False),
    21: ("tx-usecs-high", False),
    22: ("tx-frames-high", False),
    23: ("sample-interval", False),
    24: ("cqe-mode-tx", True),
    25: ("cqe-mode-rx", True),
    26: ("tx-aggr-max-bytes", False),
    27: ("tx-aggr-max-frames", False),
    28: ("tx-aggr-time-usecs", False),
}
COALESCE_BY_NAME: dict[str, tuple[int, bool]] = {
    name: (attr, flag) for attr, (name, flag) in COALESCE_ATTRS.items()
}

_GENLHDR = struct.Struct("=BBH")


class NetlinkError(OSError):
    """A netlink request the kernel refused; `extack` is the kernel's own explanation."""

    def __init__(self, code: int, extack: str | None) -> None:
        text = os.strerror(code) + (f": {extack}" if extack else "")
        super().__init__(code, text)
        self.extack = extack


def parse_error(msg: bytes, flags: int) -> tuple[int, str | None]:
    """(positive errno or 0, extack message) from an NLMSG_ERROR payload."""
    code = -struct.unpack_from("=i", msg, 0)[0]
    extack = None
    if flags & NLM_F_ACK_TLVS:
        inner_len = NLMSGHDR.unpack_from(msg, 4)[0]
        offset = 4 + (NLMSGHDR.size if flags & NLM_F_CAPPED else align(inner_len))
        for atype, payload in iter_attrs(msg, offset):
            if atype == NLMSGERR_ATTR_MSG:
                extack = payload.split(b"\0", 1)[0].decode("utf-8", "replace")
    return code, extack


def decode_coalesce(attrs: Iterator[tuple[int, bytes]]) -> tuple[tuple[str, int], ...]:
    """The parameters present in a COALESCE_GET reply, in attribute order."""
    found: dict[int, int] = {}
    for atype, payload in attrs:
        spec = COALESCE_ATTRS.get(atype)
        if spec is None:
            continue  # header, DIM profile nests, or attributes newer than this table
        found[atype] = payload[0] if spec[1] else struct.unpack_from("=I", payload)[0]
    return tuple((COALESCE_ATTRS[a][0], found[a]) for a in sorted(found))


def encode_coalesce(values: Mapping[str, int]) -> bytes:
    out = b""
    for name, value in values.items():
        attr, flag = COALESCE_BY_NAME[name]
        out += pack_attr(attr, struct.pack("=B" if flag else "=I", value))
    return out


class EthtoolNetlink:
    """ethtool genetlink requests for one interface, on one lazily opened socket.

    Raises NetlinkError (an OSError) for a kernel refusal; OSError(ENOENT) from family()
    means this kernel has no ethtool netlink at all.
    """

    def __init__(self, ifname: str) -> None:
        self._name = ifname.encode()
        self._sock: socket.socket | None = None
        self._family: int | None = None
        self._seq = 0

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        self._family = None

    def _socket(self) -> socket.socket:
        if self._sock is None:
            sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
            try:
                sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
                sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
                sock.bind((0, 0))
            except OSError:
                sock.close()
                raise
            self._sock = sock
        return self._sock

    def _request(self, mtype: int, cmd: int, version: int, attrs: bytes, ack: bool) -> bytes:
        """Send one request; return the payload (after the genl header) of its reply, or b""
        for a bare acknowledgement."""
        sock = self._socket()
        self._seq = (self._seq + 1) & 0xFFFFFFFF
        seq = self._seq
        body = _GENLHDR.pack(cmd, version, 0) + attrs
        flags = NLM_F_REQUEST | (NLM_F_ACK if ack else 0)
        sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), mtype, flags, seq, 0) + body)
        reply = b""
        while True:
            for rtype, rflags, rseq, payload in messages(sock.recv(65536)):
                if rseq != seq:
                    continue  # left over from an earlier, interrupted request
                if rtype == NLMSG_ERROR:
                    code, extack = parse_error(payload, rflags)
                    if code:
                        raise NetlinkError(code, extack)
                    return reply  # the acknowledgement ends the exchange
                if rtype == NLMSG_DONE:
                    return reply
                reply = payload[_GENLHDR.size :]
                if not ack:
                    return reply

    def dump(self, mtype: int, cmd: int, version: int, attrs: bytes) -> list[bytes]:
        """Send one dump request; return every reply's payload (after the genl header) up to
        NLMSG_DONE. Bounded: a kernel that never ends the dump stops being read."""
        sock = self._socket()
        self._seq = (self._seq + 1) & 0xFFFFFFFF
        seq = self._seq
        body = _GENLHDR.pack(cmd, version, 0) + attrs
        sock.send(NLMSGHDR.pack(NLMSGHDR.size + len(body), mtype, NLM_F_REQUEST | NLM_F_DUMP,
                                seq, 0) + body)  # fmt: skip
        return genl_replies(sock, seq, reads=1024, dump=True)

    def family(self) -> int:
        if self._family is None:
            name = pack_attr(CTRL_ATTR_FAMILY_NAME, ETHTOOL_GENL_NAME + b"\0")
            try:
                reply = self._request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 2, name, ack=False)
            except NetlinkError as exc:
                raise OSError(errno.ENOENT, "no ethtool netlink family") from exc
            for atype, payload in iter_attrs(reply):
                if atype == CTRL_ATTR_FAMILY_ID:
                    self._family = struct.unpack_from("=H", payload)[0]
            if self._family is None:
                raise OSError(errno.ENOENT, "no ethtool netlink family")
        return self._family

    def _header(self, attr: int) -> bytes:
        dev = pack_attr(ETHTOOL_A_HEADER_DEV_NAME, self._name + b"\0")
        return pack_attr(attr | NLA_F_NESTED, dev)

    def coalesce_get(self) -> tuple[tuple[str, int], ...]:
        reply = self._request(
            self.family(),
            ETHTOOL_MSG_COALESCE_GET,
            ETHTOOL_GENL_VERSION,
            self._header(ETHTOOL_A_COALESCE_HEADER),
            ack=False,
        )
        return decode_coalesce(iter_attrs(reply))

    def coalesce_set(self, values: Mapping[str, int]) -> None:
        """Names must be keys of COALESCE_BY_NAME and values already range-checked."""
        self._request(
            self.family(),
            ETHTOOL_MSG_COALESCE_SET,
            ETHTOOL_GENL_VERSION,
            self._header(ETHTOOL_A_COALESCE_HEADER) + encode_coalesce(values),
            ack=True,
        )


def genl_replies(sock: socket.socket, seq: int, reads: int, dump: bool) -> list[bytes]:
    """The replies to request `seq`, each payload after its genl header, up to NLMSG_DONE or
    the acknowledgement (a request that is not a dump: its one reply). Bounded by `reads`
    socket reads: a kernel that never ends a dump stops being read. A refusal raises."""
    replies: list[bytes] = []
    for _ in range(reads):
        for rtype, rflags, rseq, payload in messages(sock.recv(65536)):
            if rseq != seq:
                continue
            if rtype == NLMSG_ERROR:
                code, extack = parse_error(payload, rflags)
                if code:
                    raise NetlinkError(code, extack)
                return replies
            if rtype == NLMSG_DONE:
                return replies
            replies.append(payload[_GENLHDR.size :])
            if not dump:
                return replies
    return replies
