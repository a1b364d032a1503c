"""The root qdisc as the journal's value: trees read as values, typed text made canonical, and
the netlink messages a value is built with (a fake sender at the port records them). fq is
not in this machine's kernel: its messages are checked against <linux/pkt_sched.h>'s
attribute numbers and decoded back with the reader's own fq decoder (not from a capture)."""

from __future__ import annotations

import errno
import struct

import pytest

from tuitune.core.host.ethtool_netlink import iter_attrs
from tuitune.core.host.qdisc import ROOT, Qdisc, fq_options, tbf_burst
from tuitune.core.host.qdisc_spec import (
    DEFAULT,
    SpecError,
    options_payload,
    parse_spec,
    rebuildable,
    spec_of,
    tbf_buffer_ticks,
    tree_value,
)
from tuitune.core.host.qdisc_write import (
    MQ_HANDLE,
    RTM_DELQDISC,
    RTM_NEWQDISC,
    TCA_KIND,
    TCA_OPTIONS,
    set_root,
)

FQ = "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 1000000000"


def parse(text: str, multiqueue: bool = True) -> str:
    return parse_spec(text, 1500, 1000, multiqueue)


def test_kernel_defaults_read_as_default() -> None:
    assert tree_value(()) == DEFAULT
    assert tree_value([Qdisc("noqueue", "0:", "root")]) == DEFAULT
    default_mq = [Qdisc("mq", "0:", "root"), Qdisc("pfifo_fast", "0:", "0:1")]
    assert tree_value(default_mq) == DEFAULT
    # An mq someone added: its children are the kernel's default ones (handle 0).
    assert tree_value([Qdisc("mq", "1:", "root"), Qdisc("fq_codel", "0:", "1:1")]) == "mq"


def test_typed_text_is_filled_with_the_kernels_defaults() -> None:
    assert parse("fq maxrate 1gbit") == FQ
    assert parse("mq fq maxrate 1000mbit") == "mq " + FQ
    assert parse("fq_codel") == "fq_codel limit 10240 flows 1024 quantum 1514"
    assert parse("pfifo") == "pfifo limit 1000"  # txqueuelen, as the kernel's own default
    assert parse("tbf rate 100mbit burst 32k") == "tbf rate 100000000 burst 32768 limit 657768"
    assert parse("  default ") == DEFAULT


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "empty"),
        ("htb default 10", "tuitune builds"),
        ("fq maxrate", "pairs"),
        ("fq orphan_mask 10", "no option 'orphan_mask'"),
        ("fq maxrate fast", "not a rate"),
        ("fq maxrate 1gbit maxrate 2gbit", "twice"),
        ("tbf rate 1gbit", "needs a rate and a burst"),
        ("tbf rate 40gbit burst 64k", "above the kernel's maximum"),
        ("pfifo limit 0", "at least 1"),
        ("fq " + "x " * 30, "too long"),
    ],
)
def test_bad_text_is_one_line_naming_why(text: str, says: str) -> None:
    with pytest.raises(SpecError, match=says):
        parse(text)


def test_mq_needs_more_than_one_tx_queue() -> None:
    with pytest.raises(SpecError, match="more than one tx queue"):
        parse("mq fq", multiqueue=False)


def test_a_tree_tuitune_cannot_build_again_is_other() -> None:
    htb = [Qdisc("htb", "1:", "root", {"default": "10"}), Qdisc("pfifo", "10:", "1:10")]
    assert not rebuildable(tree_value(htb))
    assert tree_value(htb).startswith("other: htb root")
    fq = {"limit": 10000, "flow_limit": 100, "quantum": 3028, "initial_quantum": 15140}
    odd = Qdisc("fq", "8001:", "root", {**fq, "maxrate": "unlimited", "buckets_log": 12})
    assert not rebuildable(tree_value([odd]))
    mixed = [
        Qdisc("mq", "1:", "root"),
        Qdisc("pfifo", "8001:", "1:1", {"limit": 10}),
        Qdisc("pfifo", "8002:", "1:2", {"limit": 20}),
    ]
    assert not rebuildable(tree_value(mixed))


def test_a_value_read_is_the_value_typed() -> None:
    o = {"limit": 10000, "flow_limit": 100, "quantum": 3028, "initial_quantum": 15140}
    read = [
        Qdisc("mq", "1:", "root"),
        *(Qdisc("fq", f"800{i}:", f"1:{i}", {**o, "maxrate": 1_000_000_000}) for i in (1, 2)),
    ]
    assert tree_value(read) == parse("mq fq maxrate 1gbit")


def test_tbf_burst_survives_the_kernels_ticks() -> None:
    for rate in (10_000_000, 100_000_000):  # a tick (64 ns) is under a byte: exact
        for burst in (1514, 4001, 32768, 1 << 20):
            assert tbf_burst(rate, tbf_buffer_ticks(rate, burst)) == burst
    # At 10 Gbit/s a tick is 80 bytes: the value says what the kernel will hold, and that
    # reads back as itself.
    value = parse("tbf rate 10gbit burst 1514 limit 9000")
    assert value == "tbf rate 10000000000 burst 1520 limit 9000"
    assert parse(value) == value


class FakeSender:
    """The netlink port: records each request; answers with the errno given per kind."""

    def __init__(self, refuse: dict[str, int] | None = None) -> None:
        self.sent: list[tuple[int, int, int, str | None, bytes]] = []
        self.refuse = refuse or {}

    def __call__(self, mtype: int, flags: int, body: bytes) -> int:
        _fam, _index, handle, parent, _info = struct.unpack_from("=BxxxiIII", body)
        attrs = dict(iter_attrs(body, 20))
        kind = attrs[TCA_KIND].rstrip(b"\0").decode() if TCA_KIND in attrs else None
        self.sent.append((mtype, handle, parent, kind, attrs.get(TCA_OPTIONS, b"")))
        if mtype == RTM_DELQDISC:
            return self.refuse.get("del", errno.ENOENT)  # nothing of ours at the root
        return self.refuse.get(kind or "", 0)


def test_mq_fq_deletes_the_root_then_builds_one_fq_per_tx_queue() -> None:
    send = FakeSender()
    set_root(send, 7, spec_of("mq " + FQ), 3)
    assert [(t, h, p, k) for t, h, p, k, _ in send.sent] == [
        (RTM_DELQDISC, 0, ROOT, None),
        (RTM_NEWQDISC, MQ_HANDLE, ROOT, "mq"),
        (RTM_NEWQDISC, 0, MQ_HANDLE | 1, "fq"),
        (RTM_NEWQDISC, 0, MQ_HANDLE | 2, "fq"),
        (RTM_NEWQDISC, 0, MQ_HANDLE | 3, "fq"),
    ]
    # The options, read back with the reader's own decoder, are the value's.
    assert fq_options(send.sent[2][4]) == {
        "limit": 10000,
        "flow_limit": 100,
        "quantum": 3028,
        "initial_quantum": 15140,
        "maxrate": 1_000_000_000,
    }


def test_default_only_deletes() -> None:
    send = FakeSender()
    set_root(send, 7, spec_of(DEFAULT), 2)
    assert [t for t, *_ in send.sent] == [RTM_DELQDISC]


def test_a_refusal_is_the_kernels_errno() -> None:
    send = FakeSender({"fq": errno.ENOENT})
    with pytest.raises(OSError) as err:
        set_root(send, 7, spec_of(FQ), 1)
    assert err.value.errno == errno.ENOENT
    with pytest.raises(OSError) as err:
        set_root(FakeSender({"del": errno.EPERM}), 7, None, 1)
    assert err.value.errno == errno.EPERM


def test_tbf_and_pfifo_payloads() -> None:
    spec = spec_of(parse("tbf rate 100mbit burst 4000 limit 30000"))
    assert spec is not None and spec.leaf is not None
    ((atype, parms),) = list(iter_attrs(options_payload(spec.leaf)))
    assert atype == 1  # TCA_TBF_PARMS
    rate = struct.unpack_from("=I", parms, 8)[0]
    limit, buffer, _mtu = struct.unpack_from("=III", parms, 24)
    assert (rate, limit, tbf_burst(100_000_000, buffer)) == (12_500_000, 30000, 4000)
    pfifo = spec_of("pfifo limit 77")
    assert pfifo is not None and pfifo.leaf is not None
    assert options_payload(pfifo.leaf) == struct.pack("=I", 77)


FQ_DEFAULTS_6_1 = {  # what a 6.1 kernel's fq_dump gives for a fresh fq (sch_fq.c fq_init), as
    # fq_options reads it: rates in bits/s
    "limit": 10000,
    "flow_limit": 100,
    "quantum": 3028,
    "initial_quantum": 15140,
    "maxrate": "unlimited",
    "buckets_log": 10,
    "refill_delay": 40000,
    "orphan_mask": 1023,
    "rate_enable": 1,
    "low_rate_threshold": 550000,  # 550000 / 8 bytes/s in fq_init, read in bits/s
    "ce_threshold": 0xFFFFFFFF,
    "timer_slack": 10000,
    "horizon": 10_000_000,
    "horizon_drop": 1,
}


def test_fq_ce_threshold_horizon_and_timer_slack_are_carried_only_when_set() -> None:
    fresh = Qdisc("fq", "8001:", "root", FQ_DEFAULTS_6_1)
    assert tree_value([fresh]) == FQ.replace("1000000000", "unlimited")  # defaults: short
    typed = parse("fq maxrate 1gbit horizon_drop 0 timer_slack 20us ce_threshold 2ms horizon 1s")
    tail = "ce_threshold 2000 timer_slack 20000 horizon 1000000 horizon_drop 0"
    assert typed == f"{FQ} {tail}"  # the kernel's units (us, ns, us), in one order
    assert (
        parse("fq ce_threshold 4000 horizon 10s")
        == f"{FQ.replace('1000000000', 'unlimited')} ce_threshold 4000"
    )
    for bad, says in [
        ("fq horizon 1.5s", "not a time"),
        ("fq timer_slack 1500ns ce_threshold 1ns", "whole number of us"),
        ("fq horizon_drop 2", "is 1 .drop"),
    ]:
        with pytest.raises(SpecError, match=says):
            parse(bad)


def test_fq_options_set_are_sent_and_read_back_from_the_message_bytes() -> None:
    """This kernel has no fq: the RTM_NEWQDISC bytes are decoded with the reader's decoder
    (TCA_FQ_CE_THRESHOLD 12, TIMER_SLACK 13, HORIZON 14 u32, HORIZON_DROP 15 u8 of
    <linux/pkt_sched.h>), and the tree they make reads as the same value: exact restore."""
    value = f"{FQ} ce_threshold 2000 timer_slack 20000 horizon 1000000 horizon_drop 0"
    send = FakeSender()
    set_root(send, 7, spec_of(value), 1)
    opts = send.sent[-1][4]
    attrs = dict(iter_attrs(opts))
    assert attrs[12] == struct.pack("=I", 2000) and attrs[13] == struct.pack("=I", 20000)
    assert attrs[14] == struct.pack("=I", 1_000_000) and attrs[15][:1] == b"\0"
    decoded = {**FQ_DEFAULTS_6_1, **fq_options(opts)}
    assert tree_value([Qdisc("fq", "8001:", "root", decoded)]) == value
    # an fq at its defaults sends none of them (a pre-5.7 kernel has no horizon)
    set_root(send, 7, spec_of(FQ), 1)
    assert not {12, 13, 14, 15} & set(dict(iter_attrs(send.sent[-1][4])))


def _nla(atype: int, payload: bytes) -> bytes:
    head = struct.pack("=HH", 4 + len(payload), atype)
    return head + payload + b"\0" * (-len(payload) % 4)


def test_a_fresh_fq_as_the_6_1_kernel_dumps_it_is_rebuildable() -> None:
    """The bytes of sch_fq.c's fq_dump for a fresh fq on a 1514-byte device, in its order and
    its units (bytes/s for rates: fq_init's low_rate_threshold is 550000 / 8; jiffies_to_usecs
    of 40 ms; the CE threshold ~0U us), read by the reader: "fq" and its defaults, nothing
    "other". The guest's mq+fq test found this read back as "other" (the fixed value was in
    the wrong unit) and every fq write rolled back."""
    u32 = [
        (1, 10000), (2, 100), (3, 3028), (4, 15140), (5, 1), (7, 0xFFFFFFFF), (9, 40000),
        (10, 1023), (11, 550000 // 8), (12, 0xFFFFFFFF), (8, 10), (13, 10000), (14, 10_000_000),
    ]  # fmt: skip
    raw = b"".join(_nla(t, struct.pack("=I", v)) for t, v in u32) + _nla(15, b"\x01")
    fresh = Qdisc("fq", "8001:", "root", fq_options(raw))
    assert tree_value([fresh]) == FQ.replace("1000000000", "unlimited")


def test_an_mq_of_fq_as_pyroute2_decodes_the_dump_reads_back_as_written() -> None:
    """The session reads the tree through pyroute2 0.9, which has no fq decoder: it hands
    fq's TCA_OPTIONS over as a "08:00:01:00:..." string. Read as no options at all, every mq
    of fq tuitune wrote read back as "other" in the bench's guest and was rolled back."""
    from pyroute2.netlink.rtnl.tcmsg import tcmsg

    from tuitune.core.host.qdisc import from_messages

    u32 = [
        (1, 10000), (2, 100), (3, 3028), (4, 15140), (5, 1), (7, 100_000_000 // 8), (9, 40000),
        (10, 1023), (11, 550000 // 8), (12, 0xFFFFFFFF), (8, 10), (13, 10000), (14, 10_000_000),
    ]  # fmt: skip
    fq_opts = b"".join(_nla(t, struct.pack("=I", v)) for t, v in u32) + _nla(15, b"\x01")

    def message(kind: str, handle: int, parent: int, opts: bytes | None) -> tcmsg:
        body = struct.pack("=BxxxiIII", 0, 7, handle, parent, 0) + _nla(1, kind.encode() + b"\0")
        body += _nla(2, opts) if opts is not None else b""
        m = tcmsg(struct.pack("=IHHII", 16 + len(body), 36, 0, 0, 0) + body)
        m.decode()
        return m

    msgs = [message("mq", 0x10000, ROOT, None)]
    msgs += [message("fq", 0x80010000 + (q << 16), 0x10001 + q, fq_opts) for q in range(4)]
    assert tree_value(from_messages(msgs)) == f"mq {FQ.replace('1000000000', '100000000')}"
