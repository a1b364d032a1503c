"""fq's options, decoded from TCA_FQ_* attributes (pyroute2 has no fq decoder). Built from the
attribute numbers of <linux/pkt_sched.h>: this machine's kernel has no fq to capture from (the
VM bench's has; not from a capture)."""

from __future__ import annotations

import struct

from tuitune.core.host.ethtool_netlink import pack_attr
from tuitune.core.host.qdisc import Qdisc, fq_options, handle_text, tree_text


def test_fq_options() -> None:
    raw = b"".join(
        pack_attr(a, struct.pack("=I", v))
        for a, v in ((1, 10000), (2, 100), (3, 3028), (7, 125_000_000), (99, 7))
    )
    assert fq_options(raw) == {
        "limit": 10000,
        "flow_limit": 100,
        "quantum": 3028,
        "maxrate": 1_000_000_000,  # bits/s, as tc takes it (the kernel holds bytes/s)
    }
    assert fq_options(pack_attr(7, struct.pack("=I", 0xFFFFFFFF))) == {"maxrate": "unlimited"}


def test_handles_and_text() -> None:
    assert handle_text(0xFFFFFFFF) == "root"
    assert handle_text(0x80010003) == "8001:3"
    assert handle_text(0x10000) == "1:"
    fq = Qdisc("fq", "8001:", "1:1", {"maxrate": 1_000_000_000, "flow_limit": 100})
    assert fq.paces
    assert tree_text([Qdisc("mq", "1:", "root"), fq]) == (
        "mq root; fq 8001: parent 1:1 maxrate 1.00 Gb/s flow_limit 100"
    )
