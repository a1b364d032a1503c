"""Every additional RSS context, listed by the ethtool netlink RSS_GET dump (Linux 6.12+), or
said plainly to be unlistable (the VM bench's 6.1, anything before 6.12): the reply bytes
are this machine's kernel's own (tests/fixtures/captures/SOURCES.md, ethtool_netlink/), a
context's reply built in net/ethtool/rss.c's rss_fill_reply order around them. No driver here
or in the VM bench has contexts: the kernel tier checks the dump is accepted
(tests/kernel/test_rss_kernel.py)."""

from __future__ import annotations

import errno
import json
import struct
from pathlib import Path

from rich.console import Console

from tests.support.fakes.ethtool_text import FakeEthtool
from tests.unit.core.host.test_rss_contexts import EQUAL_2, port
from tuitune.core.host.nlmsg import iter_attrs, messages, pack_attr
from tuitune.core.host.root import HostRoot
from tuitune.core.host.rss import RssTable, read_state, state_json
from tuitune.core.host.rss_netlink import (
    CANNOT_LIST,
    ETHTOOL_A_RSS_CONTEXT,
    ETHTOOL_A_RSS_HEADER,
    ETHTOOL_A_RSS_HKEY,
    ETHTOOL_A_RSS_INDIR,
    ETHTOOL_A_RSS_START_CONTEXT,
    decode_contexts,
    dump_request,
    listing_refused,
)
from tuitune.report.queues import contexts_text, ntuple_text

CAPTURE = (
    Path(__file__).parents[3]
    / "fixtures/captures/ethtool_netlink/rss_get_dump_eth0_virtio_net_linux6.18.hex"
)
GENL = 4  # struct genlmsghdr: cmd, version, reserved


def _real() -> list[bytes]:
    """The genl payloads of the captured dump datagram (NLMSG_DONE dropped)."""
    data = bytes.fromhex(CAPTURE.read_text().strip())
    return [p[GENL:] for t, _f, _s, p in messages(data) if t > 3]


def _context_reply(ctx: int, indir: list[int], key: bytes, ifname: bytes = b"eth0") -> bytes:
    """A context's reply as rss_fill_reply writes it: the header (the captured one, or the
    same nest for another name), then CONTEXT, INDIR, HFUNC, HKEY."""
    (real,) = _real()
    attrs = dict(iter_attrs(real))
    header = attrs[ETHTOOL_A_RSS_HEADER]
    if ifname != b"eth0":
        header = pack_attr(1, struct.pack("=I", 9)) + pack_attr(2, ifname + b"\0")
    return (
        pack_attr(ETHTOOL_A_RSS_HEADER | 0x8000, header)
        + pack_attr(ETHTOOL_A_RSS_CONTEXT, struct.pack("=I", ctx))
        + pack_attr(ETHTOOL_A_RSS_INDIR, struct.pack(f"={len(indir)}I", *indir))
        + pack_attr(3, attrs[3])  # the captured HFUNC (toeplitz)
        + pack_attr(ETHTOOL_A_RSS_HKEY, key)
    )


def test_the_captured_reply_is_context_0_and_is_skipped() -> None:
    (real,) = _real()
    attrs = dict(iter_attrs(real))
    assert struct.unpack("=I", attrs[3])[0] == 1  # HFUNC: ETH_RSS_HASH_TOP, as ethtool -x says
    assert ETHTOOL_A_RSS_CONTEXT not in attrs  # context 0 has no number in its reply
    assert decode_contexts(_real(), "eth0", 4) == {}


def test_contexts_of_the_device_are_read_and_others_are_not() -> None:
    key = bytes(range(40))
    replies = [
        *_real(),
        _context_reply(1, EQUAL_2, key),
        _context_reply(2, [3] * 8, b""),
        _context_reply(5, [0, 1], key, ifname=b"eth1"),  # another device's: not ours
        b"\x04\x00",  # a cut attribute: ignored, never raises
    ]
    got = decode_contexts(replies, "eth0", 13)
    assert got == {
        1: RssTable(tuple(EQUAL_2), key, "toeplitz", 13),
        2: RssTable((3,) * 8, b"", "toeplitz", 13),
    }


def test_the_request_is_the_kernels_dump_filter() -> None:
    """ethnl_rss_dump_start: the header's device filters; START_CONTEXT 1 skips context 0."""
    attrs = list(iter_attrs(dump_request("eth0")))
    assert [a for a, _ in attrs] == [ETHTOOL_A_RSS_HEADER, ETHTOOL_A_RSS_START_CONTEXT]
    assert dict(iter_attrs(attrs[0][1])) == {2: b"eth0\0"}
    assert struct.unpack("=I", attrs[1][1]) == (1,)
    raw = dump_request("eth0")
    assert struct.unpack_from("=H", raw, 2)[0] & 0x8000  # the header is a nest (NLA_F_NESTED)


def _lister(tables: dict[int, RssTable] | OSError):  # type: ignore[no-untyped-def]
    def lister(rings: int | None) -> dict[int, RssTable]:
        if isinstance(tables, OSError):
            raise tables
        return tables

    return lister


def test_a_listing_kernel_shows_every_context_even_one_no_rule_names() -> None:
    listed = {1: RssTable(tuple(EQUAL_2), b"", None, 13), 7: RssTable((4,) * 16, b"", None, 13)}
    st = read_state(port(), "mlx5_core", _lister(listed), listing_refused)
    assert [c.id for c in st.contexts] == [1, 7]  # 7: no rule steers into it
    assert st.contexts_why is None
    assert state_json(st)["contexts_unlisted"] is None
    out = _text(contexts_text(st))
    assert "context 7: 16 slots, table 4*16" in out
    assert "cannot list" not in out


def test_a_kernel_that_cannot_list_says_so_and_reads_what_rules_name() -> None:
    refused = OSError(errno.EOPNOTSUPP, "Operation not supported")
    st = read_state(port(), "sfc", _lister(refused), listing_refused)
    assert [c.id for c in st.contexts] == [1]  # the rule's, through the ioctl
    assert st.contexts_why == CANNOT_LIST
    doc = json.loads(json.dumps(state_json(st)))
    assert doc["contexts_unlisted"] == CANNOT_LIST
    out = _text(contexts_text(st))
    assert "context 1: 16 slots, equal 2" in out
    assert "this kernel cannot list them (the netlink RSS_GET dump is Linux 6.12+)" in out
    # The rule that steers into context 1 shows that context's table beside it.
    rules = _text(ntuple_text(st))
    assert "rss context 1" in rules and "[context 1: equal 2]" in rules


def test_other_refusals_are_named() -> None:
    assert listing_refused(OSError(errno.ENOENT, "x")) == CANNOT_LIST  # no ethtool netlink
    why = listing_refused(OSError(errno.EPERM, "Operation not permitted"))
    assert why.startswith("RSS contexts: not listed (Operation not permitted)")


def test_no_table_no_claim() -> None:
    """A driver without RSS (veth) has no contexts to list: nothing said about them."""
    from tests.support.fakes.rss_port import FakeRssPort
    from tests.unit.core.session.test_steering_device_keys import BothPorts

    class NoTable(FakeRssPort):
        def call(self, buf):  # type: ignore[no-untyped-def]
            raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    refused = OSError(errno.EOPNOTSUPP, "x")
    st = read_state(BothPorts(NoTable([0], 1), None), "veth", _lister(refused), listing_refused)
    assert st.table is None and st.contexts_why is None
    assert contexts_text(st) is None


def test_the_panel_says_it_on_a_whole_line(tmp_path: Path) -> None:
    from tests.support.session_fakes import build_host
    from tuitune.core.watch.hostreader import HostReader
    from tuitune.tui.panels.nicpanel import steering_entries

    dev = FakeEthtool({}, "eno49")
    dev.ioctl = port()  # type: ignore[attr-defined]
    dev.rss_contexts = _lister(OSError(errno.EOPNOTSUPP, "x"))  # type: ignore[attr-defined]
    with HostReader(HostRoot.fixture(build_host(tmp_path / "host")), ethtool=lambda n: dev) as r:
        nic = r.nic_state("eno49")
    assert nic.rss_contexts_note == CANNOT_LIST
    rows = {e.key: e for e in steering_entries(nic)}
    assert rows["rss_context:unlisted"].label == CANNOT_LIST
    assert rows["rss_context:unlisted"].state == "unavailable"
    assert rows["rss_context:1"].value == "equal 2"


def _text(renderable: object) -> str:
    assert renderable is not None
    console = Console(width=200, record=True)
    console.print(renderable)
    return console.export_text()
