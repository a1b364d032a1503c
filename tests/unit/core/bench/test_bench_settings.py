"""The settings a run ran with, by readable names, and the changes between two runs: on a
recorded host tree with a fake NIC (every ethtool group), and on feature sets as the kernel
reports them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.session_fakes import TSO, FakeDevice, build_host
from tuitune.core.bench.settings import capture, changes, diff, feature_settings, setting_name
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

DEV = "eno49"


@pytest.fixture
def host(tmp_path: Path) -> Iterator[tuple[HostAccess, FakeDevice, Path]]:
    tree = build_host(tmp_path / "host")
    dev = FakeDevice(DEV)
    access = HostAccess(HostRoot.fixture(tree), ethtool=lambda name: dev)
    yield access, dev, tmp_path
    access.close()


def test_capture_names_everything_readably(host: tuple[HostAccess, FakeDevice, Path]) -> None:
    access, _, _ = host
    got = capture(access, DEV)
    expected_part = {
        "tso": "on",
        "gso": "on",
        "gro": "on",
        "sg": "on",
        "tx": "on",
        "rx": "on",
        "mtu": "1500",
        "txqueuelen": "1000",
        "rings rx": "512",
        "channels combined": "4",
        "coalesce rx-usecs": "50",
        "coalesce adaptive-rx": "on",
        "pause rx": "on",
        "rx-0 rps_cpus": "none",
        "tx-1 xps_cpus": "none",
        "eno49-TxRx-0 affinity": "0-3",
        "eno49-TxRx-1 affinity": "1",
        "net.core.rmem_max": "212992",
        "net.ipv4.tcp_rmem": "4096 131072 6291456",
    }
    assert {k: got.get(k) for k in expected_part} == expected_part
    # Kernel names only where no short name covers them; fixed features are not settings.
    assert not any(k.startswith("tx-checksum") or k == TSO for k in got)
    assert "rings rx-mini" not in got  # a ring the device does not have
    names = list(got)
    assert names.index("rx") < names.index("mtu") < names.index("rings rx")
    assert names.index("pause tx") < names.index("rx-0 rps_cpus") < names.index("eno49 affinity")
    assert names.index("eno49-TxRx-1 affinity") < names.index("net.core.default_qdisc")


def test_a_change_through_the_journal_shows_by_name(
    host: tuple[HostAccess, FakeDevice, Path],
) -> None:
    access, _, tmp = host
    before = capture(access, DEV)
    with Journal.open(access, tmp / "journal") as j:
        keys = [*access.feature_keys(DEV, "tso"), Key.field(DEV, "ring", "rx")]
        outs = j.apply_all([(k, "256" if k.kind == "ring" else "off") for k in keys])
        assert all(o.ok for o in outs)
        after = capture(access, DEV)
        j.revert_all()
    assert changes(before, after) == ["tso off", "rings rx 256"]
    assert changes(after, before) == ["tso on", "rings rx 512"]
    assert capture(access, DEV) == before


def test_setting_names() -> None:
    assert setting_name(Key.sysctl("net.core.rmem_max")) == "net.core.rmem_max"
    assert setting_name(Key.field("e", "coalesce", "rx-usecs")) == "coalesce rx-usecs"
    assert setting_name(Key.field("e", "channels", "combined")) == "channels combined"
    assert setting_name(Key.field("e", "pause", "rx")) == "pause rx"
    assert setting_name(Key.field("e", "ring", "rx")) == "rings rx"
    assert setting_name(Key.mtu("e")) == "mtu"
    assert setting_name(Key.txqueuelen("e")) == "txqueuelen"
    assert setting_name(Key.rps_cpus("e", "rx-0")) == "rx-0 rps_cpus"
    assert setting_name(Key.xps_cpus("e", "tx-3")) == "tx-3 xps_cpus"
    assert setting_name(Key.irq(45, "e-TxRx-3", "e")) == "e-TxRx-3 affinity"
    assert setting_name(Key.irq(45, None)) == "irq 45 affinity"


# Features as veth reports them on Linux 6.18 after `ethtool -K dev tx off`: the kernel stops
# TSO (it needs checksumming) but one TSO member stays on.
TSO_MEMBERS = (
    "tx-tcp-segmentation",
    "tx-tcp-ecn-segmentation",
    "tx-tcp-mangleid-segmentation",
    "tx-tcp6-segmentation",
    "tx-tcp-accecn-segmentation",
)


def test_short_names_fold_their_members() -> None:
    requested = {n: "on" for n in TSO_MEMBERS} | {"tx-checksum-ip-generic": "off"}
    requested |= {"tx-checksum-sctp": "off", "tx-nocache-copy": "off", "rx-gro-list": "on"}
    active = {n: False for n in requested} | {"tx-tcp-accecn-segmentation": True}
    active |= {"rx-gro-list": True}
    got = feature_settings(requested, active)
    assert got == {
        "tso": "off [requested on] (tx-tcp-accecn-segmentation on)",
        "tx": "off",
        "rx-gro-list": "on",
        "tx-nocache-copy": "off",
    }
    assert list(got) == ["tso", "tx", "rx-gro-list", "tx-nocache-copy"]


def test_without_active_states_the_requested_ones_count() -> None:
    requested = {n: "off" for n in TSO_MEMBERS} | {"rx-gro": "on"}
    assert feature_settings(requested) == {"tso": "off", "gro": "on"}


def test_changes_order_and_gone() -> None:
    base = {
        "tso": "on",
        "gso": "on",
        "mtu": "1500",
        "rings rx": "512",
        "net.core.rmem_max": "212992",
        "rx-1 rps_cpus": "none",
        "eth2-TxRx-3 affinity": "3",
    }
    other = {
        "net.core.rmem_max": "67108864",
        "mtu": "9000",
        "tso": "off",
        "gso": "off",
        "rings rx": "512",
        "eth2-TxRx-3 affinity": "0",
        "rx-10 rps_cpus": "0-1",
    }
    assert changes(base, other) == [
        "tso off",
        "gso off",
        "mtu 9000",
        "rx-1 rps_cpus (gone)",
        "rx-10 rps_cpus 0-1",
        "eth2-TxRx-3 affinity 0",
        "net.core.rmem_max 67108864",
    ]
    assert diff(base, base) == []
