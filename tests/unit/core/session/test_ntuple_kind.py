"""ntuple rules through the journal, against a fake driver at the SIOCETHTOOL port
(tests/support/fakes/ntuple_port.py) holding the rules of real `ethtool -n` captures (idpf,
hns3: tests/fixtures/captures/SOURCES.md). A rule added at a free location is removed by undo;
a captured rule replaced is put back exactly; a rule with fields tuitune does not carry is
left alone; a driver refusal leaves the location as it was."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from tests.support.fakes.ntuple_port import FakeNtuplePort
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.ntuple import (
    ETHTOOL_SRXCLSRLDEL,
    FLOW_EXT,
    Rule,
    RuleError,
    encode,
    parse_ethtool_n,
    parse_rule,
    read_rule,
)
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

DEV = "eno49"
CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures" / "ethtool_n"
IDPF_0 = "flow-type tcp4 src-ip 10.0.0.1 action 0"


class NtupleDevice(FakeDevice):
    port: FakeNtuplePort

    @property
    def ioctl(self) -> FakeNtuplePort:
        return self.port


def idpf(tmp_path: Path, ntuple_on: bool = True) -> tuple[Journal, FakeNtuplePort]:
    rules = parse_ethtool_n((CAPTURES / "idpf_eth1_-n_2rules.txt").read_text())
    dev = NtupleDevice(DEV)
    dev.port = FakeNtuplePort(rules, rings=2, ntuple_on=ntuple_on)
    access = HostAccess(
        HostRoot.fixture(build_host(tmp_path / "host")),
        call=lambda f, *a: f(*a),
        ethtool=lambda name: dev,
    )
    return Journal.open(access, tmp_path / "journal"), dev.port


def test_the_captures_read_back_as_ethtool_n_words() -> None:
    rules = parse_ethtool_n((CAPTURES / "idpf_eth1_-n_2rules.txt").read_text())
    assert {loc: r.text() for loc, r in rules.items()} == {
        0: IDPF_0,
        1: "flow-type udp4 src-ip 10.0.0.1 action 0",
    }
    port = FakeNtuplePort(rules, rings=2)
    assert read_rule(port, 0) == IDPF_0  # encoded to the kernel's struct and decoded back
    assert read_rule(port, 7) == "none"
    (hns3,) = parse_ethtool_n((CAPTURES / "hns3_eth1_-u_vlan_userdef.txt").read_text()).items()
    assert hns3[0] == 2 and hns3[1].action == 3


def test_typed_rules_like_ethtool_n() -> None:
    assert parse_rule("flow-type tcp4 dst-port 5201 dst-ip 10.0.0.2 action 1", 2) == (
        "flow-type tcp4 dst-ip 10.0.0.2 dst-port 5201 action 1"
    )
    assert parse_rule("flow-type udp4 src-port 53 action -1", 2).endswith("action drop")
    for bad, says in [
        ("flow-type tcp6 dst-port 1 action 0", "tuitune writes tcp4"),
        ("flow-type tcp4 action 0", "nothing to match"),
        ("flow-type tcp4 dst-port 1 action 2", "rx queues 0-1"),
        ("flow-type tcp4 dst-port 70000 action 0", "not a port"),
        ("flow-type tcp4 dst-ip 10.0.0.300 action 0", "not an IPv4"),
        ("flow-type tcp4 vlan 5 action 0", "matches on"),
        ("flow-type tcp4 dst-port 1", "no action"),
        ("flow-type tcp4 dst-port", "pairs"),
    ]:
        with pytest.raises(RuleError, match=says):
            parse_rule(bad, 2)


def test_add_at_a_free_location_then_undo_removes_it(tmp_path: Path) -> None:
    journal, port = idpf(tmp_path)
    out = journal.apply(Key.ntuple(DEV, 5), "flow-type tcp4 dst-port 5201 action 1")
    assert out.status == "changed", out.reason
    assert (out.before, out.after) == ("none", "flow-type tcp4 dst-port 5201 action 1")
    assert read_rule(port, 5) == "flow-type tcp4 dst-port 5201 action 1"
    (undone,) = journal.undo()
    assert undone.status == "changed" and 5 not in port.specs
    assert sorted(port.specs) == [0, 1]  # the captured rules untouched


def test_a_captured_rule_replaced_comes_back_byte_for_byte(tmp_path: Path) -> None:
    journal, port = idpf(tmp_path)
    before = port.specs[0]
    assert journal.apply(Key.ntuple(DEV, 0), "flow-type tcp4 dst-port 80 action 1").ok
    assert (ETHTOOL_SRXCLSRLDEL, 0) in port.calls  # the old one first (idpf: EEXIST)
    assert journal.apply(Key.ntuple(DEV, 1), "none").ok
    assert 1 not in port.specs
    outs = journal.revert_all()
    assert all(o.ok for o in outs), [o.reason for o in outs]
    assert port.specs[0] == before and read_rule(port, 1).startswith("flow-type udp4")


def test_a_rule_with_fields_tuitune_does_not_carry_is_left_alone(tmp_path: Path) -> None:
    journal, port = idpf(tmp_path)
    # hns3's capture: a TCP rule with VLAN and user-defined extension fields (FLOW_EXT).
    raw = bytearray(encode(Rule("tcp4", (), 3), 2).raw[16:184])
    struct.pack_into("=I", raw, 0, 0x01 | FLOW_EXT)
    struct.pack_into("!H", raw, 128 + 8, 0xFFFF)  # m_ext.vlan_etype
    port.put_raw(2, bytes(raw))
    assert read_rule(port, 2).startswith("other: ")
    out = journal.apply(Key.ntuple(DEV, 2), "none")
    assert out.status == "refused" and "leaves it alone" in out.reason
    assert port.specs[2] == bytes(raw)


def test_ntuple_off_is_a_refusal_and_nothing_changes(tmp_path: Path) -> None:
    journal, port = idpf(tmp_path, ntuple_on=False)
    out = journal.apply(Key.ntuple(DEV, 5), "flow-type tcp4 dst-port 5201 action 1")
    assert out.status == "refused"
    assert "ntuple on" in out.reason
    assert sorted(port.specs) == [0, 1]
