"""Netlink framing, the one parser of it (core/host/nlmsg.py): messages of a datagram and the
attributes of a message, built here byte by byte as the kernel lays them out."""

from __future__ import annotations

from tuitune.core.host.nlmsg import NLMSGHDR, iter_attrs, messages, pack_attr


def _message(mtype: int, payload: bytes, seq: int = 1) -> bytes:
    pad = b"\0" * (-len(payload) % 4)
    return NLMSGHDR.pack(NLMSGHDR.size + len(payload), mtype, 0, seq, 0) + payload + pad


def test_each_message_of_a_datagram_with_its_payload() -> None:
    data = _message(16, b"abcde", seq=7) + _message(17, b"", seq=8)
    assert list(messages(data)) == [(16, 0, 7, b"abcde"), (17, 0, 8, b"")]


def test_a_message_cut_by_the_datagram_ends_the_walk() -> None:
    whole = _message(16, b"x" * 12)
    assert list(messages(whole + whole[:-4])) == [(16, 0, 1, b"x" * 12)]
    lying = NLMSGHDR.pack(4, 16, 0, 1, 0) + b"rest"  # claims less than its own header
    assert list(messages(lying + whole)) == []


def test_attributes_round_trip_with_their_flag_bits_dropped() -> None:
    data = pack_attr(3, b"eth0\0") + pack_attr(0x8000 | 18, pack_attr(1, b"veth\0"))
    found = list(iter_attrs(data))
    assert found == [(3, b"eth0\0"), (18, pack_attr(1, b"veth\0"))]
    assert list(iter_attrs(found[1][1])) == [(1, b"veth\0")]
