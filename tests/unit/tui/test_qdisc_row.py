"""The root qdisc's row in the NIC panel and its editor: what the row shows for each kind of
value, what the editor starts from and offers, which row a journal outcome lands on. The row
on a live veth (tbf set, fq refused as a state) was tried in tmux; see docs/qdisc.md."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.support.session_fakes import build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.session import Key
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.snapshot import NicState
from tuitune.tui.controllers.editing import EditSpec, edit_spec, row_key_of
from tuitune.tui.panels.nicpanel import QDISC_ROW, nic_entries

FQ = "fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 1000000000"


def nic(tmp_path: Path, qdisc: str | Unavailable) -> NicState:
    with HostReader(HostRoot.fixture(build_host(tmp_path / "host"))) as reader:
        got = reader.snapshot("eno49").nic
    assert got is not None
    return dataclasses.replace(got, qdisc=qdisc)


def row(n: NicState) -> tuple[str, str] | None:
    found = [(e.value, e.note) for e in nic_entries(n, 4) if e.key == QDISC_ROW]
    return found[0] if found else None


def test_the_row_shows_the_kinds_and_the_options(tmp_path: Path) -> None:
    assert row(nic(tmp_path, "mq " + FQ)) == ("mq fq", FQ[3:])
    assert row(nic(tmp_path, "default")) == ("default", "")
    assert row(nic(tmp_path, "other: htb with classes")) == ("other", "htb with classes")
    # a recorded tree has no netlink: no row rather than a row saying nothing
    with HostReader(HostRoot.fixture(build_host(tmp_path / "tree"))) as reader:
        tree_nic = reader.snapshot("eno49").nic
    assert tree_nic is not None and row(tree_nic) is None


def test_the_editor_starts_from_the_line_and_names_the_kinds(tmp_path: Path) -> None:
    spec = edit_spec(QDISC_ROW, "eno49", nic(tmp_path, "tbf rate 8 burst 1 limit 2"), None)
    assert isinstance(spec, EditSpec)
    assert spec.key == Key.qdisc("eno49") and spec.current == "tbf rate 8 burst 1 limit 2"
    assert "mq LEAF" in spec.hint and "fq_codel" in spec.hint and "refused" in spec.hint
    left = edit_spec(QDISC_ROW, "eno49", nic(tmp_path, "other: htb"), None)
    assert isinstance(left, str) and "could not build it again" in left
    assert row_key_of(Key.qdisc("eno49")) == QDISC_ROW


def test_steering_rows_and_their_editors(tmp_path: Path) -> None:
    rule = "flow-type tcp4 dst-port 5201 action 2"
    n = dataclasses.replace(
        nic(tmp_path, "default"),
        rss="table 0*64 1*64",
        flow_hash=(("tcp4", "sdfn"), ("udp4", "sd")),
        ntuple=((1023, rule),),
    )
    rows = {e.key: (e.value, e.note) for e in nic_entries(n, 4) if e.section == "steering"}
    assert rows == {
        "rss:table": ("table", "0*64 1*64"),
        "flow_hash:tcp4": ("sdfn", ""),
        "flow_hash:udp4": ("sd", ""),
        "ntuple:1023": ("action 2", rule),
    }
    for row_key, key, now in [
        ("rss:table", Key.rss("eno49"), "table 0*64 1*64"),
        ("flow_hash:udp4", Key.flow_hash("eno49", "udp4"), "sd"),
        ("ntuple:1023", Key.ntuple("eno49", 1023), rule),
    ]:
        spec = edit_spec(row_key, "eno49", n, None)
        assert isinstance(spec, EditSpec) and (spec.key, spec.current) == (key, now)
        assert row_key_of(key) == row_key
    refused = dataclasses.replace(n, rss=Unavailable("unsupported", "RSS table: not by veth"))
    assert [(e.label, e.state) for e in nic_entries(refused, 4) if e.key == "rss:table"] == [
        ("RSS table: not by veth", "unavailable")
    ]
    assert edit_spec("rss:table", "eno49", refused, None) == "RSS table: not by veth"
