"""RSS hash fields per flow type (`ethtool -N IF rx-flow-hash udp4 sdfn`) through the journal,
against the fake driver at the SIOCETHTOOL port (tests/support/fakes/rss_port.py) with igb's
defaults (TCP on addresses and ports, UDP on addresses only: igb_get_rxnfc in the kernel's
drivers/net/ethernet/intel/igb). Changed, restored exactly, refused as a state, exported."""

from __future__ import annotations

from pathlib import Path

from tests.support.fakes.rss_port import FakeRssPort, blocks
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.export import Change, DeviceMatch, ExportContext, build_plan, udev
from tuitune.core.host.root import HostRoot
from tuitune.core.host.rss import fields_bits
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.profile import parse_toml

DEV = "eno49"
TCP4, UDP4 = 0x01, 0x02


class HashDevice(FakeDevice):
    port: FakeRssPort

    @property
    def ioctl(self) -> FakeRssPort:
        return self.port


def igb(tmp_path: Path) -> tuple[Journal, FakeRssPort]:
    dev = HashDevice(DEV)
    dev.port = FakeRssPort(blocks(128, 4), 4, fill=blocks)
    dev.port.hashes = {TCP4: fields_bits("sdfn"), UDP4: fields_bits("sd")}
    access = HostAccess(
        HostRoot.fixture(build_host(tmp_path / "host")),
        call=lambda f, *a: f(*a),
        ethtool=lambda name: dev,
    )
    return Journal.open(access, tmp_path / "journal"), dev.port


def test_udp_hashed_on_ports_then_restored_exactly(tmp_path: Path) -> None:
    journal, port = igb(tmp_path)
    keys = journal.access.device_keys(DEV)
    assert [k for k in keys if k.kind == "flow_hash"] == [
        Key.flow_hash(DEV, "tcp4"),
        Key.flow_hash(DEV, "udp4"),
    ]
    out = journal.apply(Key.flow_hash(DEV, "udp4"), "nfds")  # any order: the kernel's is kept
    assert (out.status, out.before, out.after) == ("changed", "sd", "sdfn")
    assert port.hashes == {TCP4: fields_bits("sdfn"), UDP4: fields_bits("sdfn")}
    journal.close_restoring(False)
    assert port.hashes[UDP4] == fields_bits("sd")


def test_a_driver_refusal_and_bad_letters_change_nothing(tmp_path: Path) -> None:
    journal, port = igb(tmp_path)
    out = journal.apply(Key.flow_hash(DEV, "tcp4"), "sdfnm")  # igb refuses the L2 dst
    assert out.status in ("refused", "failed") and "rx-flow-hash tcp4" in out.reason
    assert port.hashes[TCP4] == fields_bits("sdfn")
    bad = journal.apply(Key.flow_hash(DEV, "tcp4"), "sdx")
    assert bad.status == "invalid" and "letters of" in bad.reason
    port.hashes[TCP4] |= 1 << 9  # a field tuitune has no letter for (RXH_IP6_FL, 6.x)
    other = journal.apply(Key.flow_hash(DEV, "tcp4"), "sd")
    assert other.status == "refused" and "left alone" in other.reason
    journal.close_restoring(False)


def test_exported_after_the_table_and_read_back_by_verify() -> None:
    ctx = ExportContext(ifname=DEV, match=DeviceMatch("name", DEV), etc=Path("/nonexistent"))
    plan = build_plan(
        [
            Change(Key.flow_hash(DEV, "udp4"), "sd", "sdfn"),
            Change(Key.rss(DEV), "default", "equal 2"),
        ],
        ctx,
        ("udev",),
        read_installed=False,
    )
    (f,) = plan.files
    runs = [n for n in f.text.splitlines() if n.startswith("RUN+=")]
    assert runs == [
        'RUN+="/usr/sbin/ethtool -X $name equal 2"',
        'RUN+="/usr/sbin/ethtool -N $name rx-flow-hash udp4 sdfn"',
    ]
    got = {k: v for k, v, _ in udev.parse(f.text, DEV)}
    assert got[Key.flow_hash(DEV, "udp4")] == "sdfn"


def test_a_profile_names_them_by_flow_type() -> None:
    p = parse_toml({"interface": {"rx_flow_hash": {"udp4": "sdfn"}}})
    assert [(r.kind, r.name, r.text) for r in p.requests] == [("flow_hash", "udp4", "sdfn")]
