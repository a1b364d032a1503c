"""netdev qstats replies (a real dump from this lab machine's virtio_net) read as per-queue
counters, and merged with ethtool -S by the queue-rate pipeline."""

from __future__ import annotations

import struct
from pathlib import Path

from tuitune.core.host.ethtool_netlink import pack_attr
from tuitune.core.host.qstats import decode
from tuitune.core.host.queuestats import parse_ethtool_s, per_queue

CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures"
DUMP = CAPTURES / "qstats" / "virtio_net_eth0_qstats-get_dump_kernel6.18.hex"


def replies() -> list[bytes]:
    lines = DUMP.read_text().splitlines()
    return [bytes.fromhex(x) for x in lines if x and not x.startswith("#")]


def test_a_real_dump_decodes_per_queue() -> None:
    assert decode(replies(), 4) == (
        ("rx-0.packets", 26150),
        ("rx-0.bytes", 1044667910),
        ("tx-0.packets", 15425),
        ("tx-0.bytes", 2116061),
    )
    assert decode(replies(), 5) == ()  # another interface's replies are not ours


def test_qstats_and_the_drivers_drops_make_one_queue() -> None:
    ethtool = parse_ethtool_s(
        (CAPTURES / "ethtool_S" / "virtio_net_eth0_-S_kernel6.18_thismachine.txt").read_text()
    )
    drops = tuple(p for p in ethtool if p[0] == "rx0_drops")
    got = {(q.direction, q.queue): dict(q.values) for q in per_queue(decode(replies(), 4) + drops)}
    assert got[("rx", 0)] == {"packets": 26150, "bytes": 1044667910, "drops": 0}


def test_hostile_replies_are_bounded() -> None:
    def attr(a: int, v: int) -> bytes:
        return pack_attr(a, struct.pack("=Q", v))

    huge_queue = attr(1, 4) + attr(2, 0) + attr(3, 1 << 40) + attr(8, 5)
    bad_type = attr(1, 4) + attr(2, 7) + attr(3, 0) + attr(8, 5)
    truncated = attr(1, 4)[:-3]
    assert decode([huge_queue, bad_type, truncated, b""], 4) == ()
