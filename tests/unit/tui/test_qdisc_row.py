"""The root qdisc's row in the NIC panel and its editor: what the row shows for each kind of
value, what the editor starts from and offers, which row a journal outcome lands on. The row
on a live veth (tbf set, fq refused as a state) was tried in tmux; see docs/qdisc.md."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.support.session_fakes import build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.hostreader import HostReader
from tuitune.core.session import Key
from tuitune.core.snapshot import NicState
from tuitune.core.values import Unavailable
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
