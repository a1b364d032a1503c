"""Additional RSS contexts (`ethtool -x IF context N`), read only, against a fake driver at the
SIOCETHTOOL port built from real captures (tests/fixtures/captures/SOURCES.md): the kernel
documentation's context 1 set `equal 2` over 13 rings, and ethtool's own example of a rule
steering into context 1. The ioctl has no list of contexts: those the ntuple rules name are
read (ETHTOOL_GRSSH with rss_context), and shown in `show`, `show --json` and the NIC panel.
No driver on this machine has contexts (veth, virtio: none)."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console

from tests.support.fakes.ethtool_text import FakeEthtool
from tests.support.fakes.ntuple_port import FakeNtuplePort, context_rules
from tests.support.fakes.rss_port import FakeRssPort, modulo
from tests.support.session_fakes import build_host
from tests.unit.core.session.test_steering_device_keys import BothPorts
from tuitune.core.host.root import HostRoot
from tuitune.core.host.rss import RssContext, parse_ethtool_x, read_state, state_json
from tuitune.core.session.showdoc import parse_show_json
from tuitune.core.watch.hostreader import HostReader
from tuitune.report.queues import contexts_text
from tuitune.tui.panels.nicpanel import steering_entries

CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures"
CONTEXT_1 = CAPTURES / "ethtool_x" / "eth0_-x_context1_equal2_13rings_scaling-doc.txt"
RULE = CAPTURES / "ethtool_n" / "eth0_-n_rule0_rss_context1_ethtool-rxclass.txt"
EQUAL_2 = [i % 2 for i in range(16)]


def port(with_context: bool = True) -> BothPorts:
    ctx = parse_ethtool_x(CONTEXT_1.read_text())
    assert list(ctx.indir) == EQUAL_2 and ctx.rings == 13  # the capture, as read
    rss = FakeRssPort(modulo(len(ctx.indir), 13), 13)  # context 0: the driver's default
    ntuple = FakeNtuplePort({}, rings=13)
    for loc, (spec, n) in context_rules(RULE.read_text()).items():
        ntuple.put_raw(loc, spec)
        ntuple.rule_contexts[loc] = n
    if with_context:
        rss.contexts[1] = list(ctx.indir)
    return BothPorts(rss, ntuple)


def test_the_context_a_rule_names_is_read() -> None:
    st = read_state(port(), "sfc")
    assert st.table is not None and st.setting == "default"
    assert st.contexts == (RssContext(1, st.contexts[0].table),)
    c = st.contexts[0]
    assert c.table is not None and list(c.table.indir) == EQUAL_2
    assert c.setting == "equal 2"
    assert st.rules is not None and "rss context 1" in st.rules[0]
    assert st.rules[0].startswith("other: ")  # never written back: not a rule tuitune carries


def test_a_context_the_driver_does_not_answer_is_a_reason() -> None:
    st = read_state(port(with_context=False), "sfc")
    (c,) = st.contexts
    assert c.table is None and c.why is not None
    assert c.why.startswith("RSS context 1: not read from sfc (")


def test_show_and_json_carry_them() -> None:
    st = read_state(port(), "sfc")
    doc = json.loads(json.dumps(state_json(st)))
    assert doc["contexts"]["1"]["table"] == EQUAL_2
    assert doc["contexts"]["1"]["setting"] == "equal 2"
    assert doc["contexts"]["1"]["slots_per_queue"] == {"0": 8, "1": 8}
    assert doc["setting"] == "default"  # context 0's, the one `apply` takes back
    text = contexts_text(st)
    assert text is not None
    console = Console(width=100, record=True)
    console.print(text)
    out = console.export_text()
    assert "additional RSS contexts" in out
    assert "context 1: 16 slots, equal 2; slots per queue: q0 8, q1 8" in out
    assert contexts_text(read_state(BothPorts(FakeRssPort([0, 1], 2), None), "virtio")) is None


def test_the_panel_shows_them_read_only(tmp_path: Path) -> None:
    dev = FakeEthtool({}, "eno49")
    dev.ioctl = port()  # type: ignore[attr-defined]  # what _with_steering asks of a device
    with HostReader(HostRoot.fixture(build_host(tmp_path / "host")), ethtool=lambda n: dev) as r:
        nic = r.nic_state("eno49")
    assert nic.rss_contexts == ((1, "equal 2"),)
    rows = {e.key: e for e in steering_entries(nic)}
    assert rows["rss_context:1"].label == "RSS context 1"
    assert rows["rss_context:1"].value == "equal 2"
    from tuitune.tui.controllers.editing import edit_spec

    assert isinstance(edit_spec("rss_context:1", "eno49", nic, None), str)  # not editable
    # show --json's interface carries them; `apply` of that document takes it (and no context)
    from tuitune.core.jsondoc import jsonable

    iface = json.loads(json.dumps(jsonable(nic)))
    assert iface["rss_contexts"] == [[1, "equal 2"]]
    doc = {"schema": "tuitune.report.show", "version": 1, "interface": iface}
    doc["interface"]["link"]["counters"] = {}
    parse_show_json(doc)


def test_a_capture_keeps_them_and_an_older_one_reads_without() -> None:
    """`tuitune capture` stores the RssState through the record codec: contexts come back as
    read; a capture written before them (no `contexts`) reads as none."""
    from tuitune.core.record.codec import decode, encode

    st = read_state(port(), "sfc")
    assert decode(encode(st), type(st), "dev.json") == st
    old = encode(st)
    old.pop("contexts")
    assert decode(old, type(st), "dev.json").contexts == ()
