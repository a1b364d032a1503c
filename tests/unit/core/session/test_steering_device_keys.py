"""The RSS table and the ntuple rules are settings of the device like its rings: listed by
`device_keys` (so a run records them and an export sees them), named in a run's record, and
carried by `show --json` back into `apply`. Against the fakes at the SIOCETHTOOL port built
from real captures (igb's `ethtool -x`, idpf's `ethtool -n`: tests/fixtures/captures)."""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path

import pytest

from tests.support.fakes.ntuple_port import FakeNtuplePort
from tests.support.fakes.rss_port import FakeRssPort, blocks
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.bench.settings import capture, order_key
from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.ntuple import (
    ETHTOOL_GRXCLSRLALL,
    ETHTOOL_GRXCLSRLCNT,
    ETHTOOL_GRXCLSRULE,
    parse_ethtool_n,
    rule_locations,
)
from tuitune.core.host.root import HostRoot
from tuitune.core.host.rss import RssState, parse_ethtool_x, read_state, state_json
from tuitune.core.session import HostAccess, Key
from tuitune.core.session.profile_model import ProfileError
from tuitune.core.session.showdoc import parse_show_json
from tuitune.report.queues import ntuple_text

DEV = "eno49"
CAPTURES = Path(__file__).parents[3] / "fixtures" / "captures"
_NTUPLE = {ETHTOOL_GRXCLSRLCNT, ETHTOOL_GRXCLSRLALL, ETHTOOL_GRXCLSRULE, 0x31, 0x32}


class BothPorts(EthtoolIoctl):
    """One device's port: ntuple commands to the idpf fake, the rest to the igb one."""

    def __init__(self, rss: FakeRssPort, ntuple: FakeNtuplePort | None) -> None:
        super().__init__("fake0")
        self.rss, self.ntuple = rss, ntuple

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        cmd = struct.unpack_from("=I", buf.raw)[0]
        if cmd in _NTUPLE:
            if self.ntuple is None:  # virtio, veth: no ntuple table
                raise OSError(95, "Operation not supported")
            return self.ntuple.call(buf)
        return self.rss.call(buf)


class SteeringDevice(FakeDevice):
    port: BothPorts

    @property
    def ioctl(self) -> BothPorts:
        return self.port


def ports(ntuple: bool = True) -> BothPorts:
    t = parse_ethtool_x((CAPTURES / "ethtool_x" / "igb_em1_32cpu_rxfh_-x.txt").read_text())
    rules = parse_ethtool_n((CAPTURES / "ethtool_n" / "idpf_eth1_-n_2rules.txt").read_text())
    return BothPorts(
        FakeRssPort(list(t.indir), t.rings or 8, fill=blocks),
        FakeNtuplePort(rules, rings=8) if ntuple else None,
    )


def access_for(tmp_path: Path, port: BothPorts) -> HostAccess:
    dev = SteeringDevice(DEV)
    dev.port = port
    return HostAccess(
        HostRoot.fixture(build_host(tmp_path / "host")),
        call=lambda f, *a: f(*a),
        ethtool=lambda name: dev,
    )


def test_rule_locations_like_ethtool_n() -> None:
    p = ports()
    assert p.ntuple is not None
    assert rule_locations(p) == (0, 1)
    p.ntuple.specs.clear()
    assert rule_locations(p) == ()
    with pytest.raises(OSError):
        rule_locations(ports(ntuple=False))


def test_device_keys_list_the_table_and_each_rule(tmp_path: Path) -> None:
    access = access_for(tmp_path, ports())
    keys = access.device_keys(DEV)
    assert Key.rss(DEV) in keys
    assert [k for k in keys if k.kind == "ntuple"] == [Key.ntuple(DEV, 0), Key.ntuple(DEV, 1)]
    # a recorded tree has no netlink: the qdisc is not one of its settings
    assert Key.qdisc(DEV) not in keys
    without = access_for(tmp_path, ports(ntuple=False)).device_keys(DEV)
    assert Key.rss(DEV) in without and not [k for k in without if k.kind == "ntuple"]


def test_a_run_records_them_by_readable_names(tmp_path: Path) -> None:
    got = capture(access_for(tmp_path, ports()), DEV, host_wide=False)
    assert got["rss"] == "table " + " ".join(f"{q}*16" for q in range(8))
    assert got["ntuple 0"] == "flow-type tcp4 src-ip 10.0.0.1 action 0"
    assert got["ntuple 1"] == "flow-type udp4 src-ip 10.0.0.1 action 0"
    names = list(got)
    # after the queues' settings, before the IRQs
    assert order_key("rss") < order_key("ntuple 0") < order_key("eno49-TxRx-0 affinity")
    assert names.index("rss") > names.index("mtu")


def _doc(rss: object, qdisc: object = "mq fq maxrate 1000000000") -> dict[str, object]:
    return {
        "schema": "tuitune.report.show",
        "version": 1,
        "interface": {"link": {"ifname": DEV}, "qdisc": qdisc},
        "rss": rss,
    }


def test_show_json_carries_them_back_to_apply() -> None:
    st = read_state(ports(), "igb")
    doc = state_json(st)
    assert doc["setting"] == "table " + " ".join(f"{q}*16" for q in range(8))
    assert doc["ntuple"] == {
        "0": "flow-type tcp4 src-ip 10.0.0.1 action 0",
        "1": "flow-type udp4 src-ip 10.0.0.1 action 0",
    }
    profile = parse_show_json(_doc(doc))
    asked = {(r.kind, r.name): r.text for r in profile.requests}
    assert asked[("qdisc", "")] == "mq fq maxrate 1000000000"
    assert asked[("rss", "")] == doc["setting"]
    assert asked[("ntuple", "1")] == "flow-type udp4 src-ip 10.0.0.1 action 0"
    hashed = parse_show_json(_doc({"flow_hash": {"udp4": "sdfn", "tcp6": ""}}))
    assert [(r.kind, r.name, r.text) for r in hashed.requests][1:] == [
        ("flow_hash", "udp4", "sdfn")
    ]
    with pytest.raises(ProfileError, match="not a flow type"):
        parse_show_json(_doc({"flow_hash": {"sctp4": "sd"}}))
    # what tuitune could not put back exactly is left as the host has it
    other = parse_show_json(_doc({"ntuple": {"2": "other: flow-type tcp4 ..."}}, "other: htb"))
    assert not other.requests


@pytest.mark.parametrize(
    ("rss", "qdisc", "says"),
    [
        ({"ntuple": {"x": "none"}}, None, "not a rule location"),
        ({"ntuple": {"1": 5}}, None, "is not an ntuple rule"),
        ({"setting": ["equal", 2]}, None, "is not an RSS table"),
        (None, "fq\nmaxrate 1", "is not a qdisc line"),
        ("equal 2", None, "expected an object"),
    ],
)
def test_a_malformed_steering_part_is_one_line(rss: object, qdisc: object, says: str) -> None:
    with pytest.raises(ProfileError, match=says):
        parse_show_json(_doc(rss, qdisc))


def test_show_lists_the_rules() -> None:
    text = ntuple_text(read_state(ports(), "igb")).plain
    assert "loc 1: flow-type udp4 src-ip 10.0.0.1 action 0" in text
    assert "none readable" in ntuple_text(RssState(None, {}, None, None)).plain
