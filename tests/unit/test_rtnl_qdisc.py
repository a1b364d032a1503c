"""The hand-written RTM_GETQDISC decoding (core/host/rtnl_qdisc.py): bytes laid out as
<linux/pkt_sched.h> says decode to the Qdisc the screen shows; cut input is no message."""

from __future__ import annotations

import struct

from tuitune.core.host.nlmsg import pack_attr
from tuitune.core.host.qdisc import from_messages
from tuitune.core.host.rtnl_qdisc import TBF_QOPT, TCMSG, decode_qdisc


def body(ifindex: int, handle: int, parent: int, kind: str, options: bytes) -> bytes:
    return (
        TCMSG.pack(0, ifindex, handle, parent, 0)
        + pack_attr(1, kind.encode() + b"\0")
        + pack_attr(2, options)
    )


def test_tbf_under_mq_decodes_to_its_rate_burst_and_limit() -> None:
    rate = 12_500_000  # bytes/s: 100 Mbit/s
    parms = TBF_QOPT.pack(0, 0, 0, 0, 0, rate, 0, 0, 0, 0, 0, 0, 3000, 40_000, 1514)
    got = decode_qdisc(body(7, 0x80010000, 0xFFFFFFFF, "tbf", pack_attr(1, parms)))
    assert got is not None and got[0] == 7
    (q,) = from_messages([got[1]])
    assert (q.kind, q.handle, q.parent) == ("tbf", "8001:", "root")
    assert q.options["rate"] == 100_000_000 and q.options["limit"] == 3000
    assert "peakrate" not in q.options


def test_bfifo_and_an_unknown_kind_without_options() -> None:
    (_, bfifo) = decode_qdisc(body(2, 0x200000, 0x10014, "bfifo", struct.pack("=I", 30000)))  # type: ignore[misc]
    (_, other) = decode_qdisc(body(2, 0x10000, 0xFFFFFFFF, "cake", b"\x01"))  # type: ignore[misc]
    a, b = from_messages([bfifo, other])
    assert (a.kind, a.options) == ("cake", {}) or (b.kind, b.options) == ("cake", {})
    assert {q.kind: q.options for q in (a, b)}["bfifo"] == {}  # as pyroute2 0.9 reads it


def test_a_message_shorter_than_tcmsg_is_none() -> None:
    assert decode_qdisc(b"\0" * (TCMSG.size - 1)) is None
