"""Profiles for `tuitune apply`: the TOML format of docs/profile.md and `show --json` documents."""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.session_fakes import CSUM, TSO, FakeDevice, build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.jsondoc import show_document
from tuitune.core.session import HostAccess, Journal, Key, WriteRefused
from tuitune.core.session.profile import (
    ProfileError,
    Request,
    load,
    parse_show_json,
    parse_toml,
    resolve,
)
from tuitune.core.watch.hostreader import HostReader

REPO = Path(__file__).resolve().parents[4]
DEV = "eno49"


@pytest.fixture
def access(tmp_path: Path) -> Iterator[HostAccess]:
    dev = FakeDevice(DEV)
    a = HostAccess(HostRoot.fixture(build_host(tmp_path / "h")), ethtool=lambda n: dev)
    yield a
    a.close()


def test_the_documented_example_parses() -> None:
    text = (REPO / "docs/profile.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    profile = parse_toml(tomllib.loads(block.group(1)))
    got = {(r.kind, r.name): r.text for r in profile.requests}
    assert profile.ifname == "eth2"
    assert got[("sysctl", "net.ipv4.tcp_rmem")] == "4096 131072 33554432"
    assert got[("sysctl", "net.ipv4.tcp_sack")] == "1"
    assert got[("feature", "gro")] == "on"
    assert got[("coalesce", "adaptive-rx")] == "off"
    assert got[("xps_cpus", "tx-0")] == "0"
    assert got[("rps_cpus", "*")] == "0-7"
    assert got[("irq_affinity", "eth2-TxRx-1")] == "1"
    assert got[("mtu", "")] == "9000"
    assert got[("qdisc", "")] == "mq fq maxrate 5gbit"
    assert got[("rss", "")] == "equal 4"
    assert got[("ntuple", "1023")] == "flow-type tcp4 dst-port 5201 action 2"
    assert got[("fec", "")] == "rs" and got[("priv_flag", "legacy-rx")] == "off"
    assert got[("flow_hash", "udp4")] == "sdfn"
    assert len(profile.requests) == 28


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        ("[sysctls]\na = 1", "unknown table(s) sysctls: expected sysctl, interface"),
        ("[interface]\nmtus = 9000", "[interface] mtus: unknown (known: name, mtu, txqueuelen"),
        ("[interface.rings]\nrx = 1.5", "[interface.rings] rx: 1.5 is not a number"),
        ("[tuitune]\nprofile = 2", "profile version 2: this tuitune reads version 1"),
        ("sysctl = 3", "sysctl must be a table"),
        ("[interface]\nname = 3", "[interface] name must be a string"),
    ],
)
def test_malformed_profiles_say_what_is_wrong(tmp_path: Path, toml: str, message: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(toml)
    with pytest.raises(ProfileError) as err:
        load(path)
    assert message in str(err.value)


def test_files_that_are_neither_say_so(tmp_path: Path) -> None:
    path = tmp_path / "p"
    path.write_text('{"schema": "other"}')
    with pytest.raises(ProfileError, match="not a `tuitune show --json` document"):
        load(path)
    path.write_text("[broken")
    with pytest.raises(ProfileError, match="not a TOML profile"):
        load(path)
    with pytest.raises(ProfileError, match="cannot read"):
        load(tmp_path / "missing.toml")


def test_resolve_expands_short_names_queues_and_irq_names(access: HostAccess) -> None:
    profile = parse_toml(
        {
            "sysctl": {"net.core.somaxconn": 1024},
            "interface": {
                "features": {"tso": False, TSO: True, "gro": False},
                "rps_cpus": {"*": "0-1"},
                "irq_affinity": {"eno49-TxRx-1": [0, 2], "eno49-TxRx-7": "1"},
                "channels": {"combined": 2},
            },
        }
    )
    pairs, errors = resolve(access, profile, DEV)
    why = "no IRQ named 'eno49-TxRx-7' serves eno49 on this host"
    assert errors == [f"[interface.irq_affinity] eno49-TxRx-7: {why}"]
    assert pairs == [
        (Key.sysctl("net.core.somaxconn"), "1024"),
        (Key.feature(DEV, TSO), "on"),  # the full name wins over "tso"
        (Key.feature(DEV, "rx-gro"), "off"),
        (Key.field(DEV, "channels", "combined"), "2"),
        (Key.rps_cpus(DEV, "rx-0"), "0-1"),
        (Key.rps_cpus(DEV, "rx-1"), "0-1"),
        (Key.irq(102, "eno49-TxRx-1", DEV), "0,2"),
    ]


def test_device_settings_need_an_interface(access: HostAccess) -> None:
    profile = parse_toml({"interface": {"mtu": 9000}})
    assert profile.needs_interface
    pairs, errors = resolve(access, profile, None)
    assert pairs == [] and errors == [
        "[interface] mtu: no interface: name one (tuitune apply FILE IFACE)"
    ]


SHOW_DOC = {
    "schema": "tuitune.report.show",
    "version": 1,
    "sysctls": [
        {"key": "net.core.somaxconn", "value": "4096", "scope": "netns"},
        {"key": "net.core.rmem_max", "value": "212992", "scope": "host"},
        {"key": "net.ipv4.route.flush", "value": None, "scope": "netns"},
        {"key": "net.ipv4.tcp_available_congestion_control", "value": "reno cubic"},
        {"key": "net.ipv4.tcp_rmem", "value": "4096 131072 6291456"},
    ],
    "interface": {
        "link": {"ifname": "eth9", "mtu": 1500, "txqlen": 1000},
        "features": [
            {
                "name": CSUM,
                "available": True,
                "requested": True,
                "active": True,
                "never_changed": False,
            },
            {
                "name": TSO,
                "available": True,
                "requested": True,
                "active": False,
                "never_changed": False,
            },
            {
                "name": "tx-checksum-ipv4",
                "available": False,
                "requested": False,
                "active": False,
                "never_changed": False,
            },
            {
                "name": "tx-lockless",
                "available": True,
                "requested": True,
                "active": True,
                "never_changed": True,
            },
        ],
        "rings": {
            "rx": 512,
            "rx_mini": 0,
            "rx_jumbo": 0,
            "tx": 256,
            "rx_max": 4096,
            "rx_mini_max": 0,
            "rx_jumbo_max": 0,
            "tx_max": 4096,
        },
        "channels": {"unavailable": "unsupported", "reason": "channels: not supported by x"},
        "pause": {"autoneg": False, "rx": True, "tx": False},
        "coalesce": {"params": {"rx-usecs": 8, "adaptive-rx": 1}, "source": "netlink"},
        "queues": [
            {"name": "rx-0", "cpus": [0, 1], "rps_flow_cnt": 2048},
            {"name": "tx-0", "cpus": [], "rps_flow_cnt": None},
            {
                "name": "tx-1",
                "cpus": {"unavailable": "missing", "reason": "x"},
                "rps_flow_cnt": None,
            },
        ],
        "irqs": [{"irq": "45", "name": "eth9-TxRx-0", "kind": "combined", "index": 0}],
        "irq_affinity": {"45": {"irq": "45", "smp_affinity": [2, 3], "effective": [2]}},
    },
}


def test_a_show_document_asks_for_every_setting_it_can_restore() -> None:
    profile = parse_show_json(SHOW_DOC)
    got = [(r.kind, r.name, r.text) for r in profile.requests]
    assert profile.ifname == "eth9" and profile.source == "show --json"
    assert got == [
        ("sysctl", "net.core.somaxconn", "4096"),
        ("sysctl", "net.core.rmem_max", "212992"),
        ("sysctl", "net.ipv4.tcp_rmem", "4096 131072 6291456"),
        ("mtu", "", "1500"),
        ("txqueuelen", "", "1000"),
        ("feature", CSUM, "on"),
        ("feature", TSO, "on"),  # the requested bit, not the active one
        ("ring", "rx", "512"),
        ("ring", "tx", "256"),
        ("pause", "autoneg", "off"),
        ("pause", "rx", "on"),
        ("pause", "tx", "off"),
        ("coalesce", "rx-usecs", "8"),
        ("coalesce", "adaptive-rx", "1"),
        ("rps_cpus", "rx-0", "0-1"),
        ("rps_flow_cnt", "rx-0", "2048"),
        ("xps_cpus", "tx-0", "none"),
        ("irq_affinity", "eth9-TxRx-0", "2-3"),
    ]
    into_ns = parse_show_json(SHOW_DOC, netns="lab")
    assert (
        Request("sysctl", "net.core.rmem_max", "212992", "sysctls net.core.rmem_max")
        not in into_ns.requests
    )
    assert len(into_ns.requests) == len(profile.requests) - 1


def test_a_malformed_show_document_is_an_error() -> None:
    doc = json.loads(json.dumps(SHOW_DOC))
    del doc["interface"]["link"]
    with pytest.raises(ProfileError, match="malformed show document"):
        parse_show_json(doc)
    with pytest.raises(ProfileError, match="version 2"):
        parse_show_json({**SHOW_DOC, "version": 2})


def test_show_json_of_a_recorded_host_resolves_on_it(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "h")
    with HostReader(HostRoot.fixture(tree)) as reader:
        doc = show_document(reader.snapshot(DEV), None)
    profile = parse_show_json(json.loads(json.dumps(doc)))
    with HostAccess(HostRoot.fixture(tree)) as access:
        pairs, errors = resolve(access, profile, profile.ifname)
        assert errors == []
        keys = dict(pairs)
        assert keys[Key.irq(101, "eno49-TxRx-0", DEV)] == "0-3"
        assert keys[Key.sysctl("net.core.netdev_max_backlog")] == "1000"
        assert keys[Key.rps_cpus(DEV, "rx-1")] == "none"
        # Applying the state a host is in changes nothing.
        current = access.read_many(keys)
        assert {k: current[k] for k in keys} == {k: access.validate(k, t) for k, t in pairs}


def test_a_fixed_feature_asked_for_the_value_it_has_is_no_error(tmp_path: Path) -> None:
    """Issue 22 item 5: `lro = false` where LRO is fixed off is what the device has already."""
    dev = FakeDevice(DEV)
    dev.features_ = tuple(
        replace(f, available=False, requested=False, active=False) if f.name == "rx-lro" else f
        for f in dev.features_
    )
    access = HostAccess(HostRoot.fixture(build_host(tmp_path / "h")), ethtool=lambda n: dev)
    profile = parse_toml(
        tomllib.loads(
            '[interface]\nname = "eno49"\n[interface.features]\nlro = false\ngro = false\n'
        )
    )
    pairs, errors = resolve(access, profile, DEV)
    assert errors == []
    with Journal.open(access, tmp_path / "journal") as journal:
        outs = journal.apply_all(pairs)
    assert sorted(o.describe() for o in outs) == [
        "eno49 rx-gro: on -> off",
        "eno49 rx-lro: already off",
    ]
    assert dev.writes == [("features", {"rx-gro": False})]
    with pytest.raises(WriteRefused, match="eno49 rx-lro: fixed, the device cannot change it"):
        access.validate(Key.feature(DEV, "rx-lro"), "on")  # another value still cannot be had
    access.close()
