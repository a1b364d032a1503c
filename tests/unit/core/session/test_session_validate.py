"""Invalid input on every editor: a message that says what is wrong, and no write anywhere.

Runs on a recorded host tree (CPU 3 present but offline) with a fake NIC that has every ethtool
group; the tree's files and the fake's setter log prove that nothing was written.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, InvalidValue, Journal, Key, WriteRefused
from tuitune.core.session.journal_file import read_records

DEV = "eno49"
RX = Key.field(DEV, "ring", "rx")
COMBINED = Key.field(DEV, "channels", "combined")
USECS = Key.field(DEV, "coalesce", "rx-usecs")
ADAPTIVE = Key.field(DEV, "coalesce", "adaptive-rx")
PAUSE_RX = Key.field(DEV, "pause", "rx")
GRO = Key.feature(DEV, "rx-gro")
MTU = Key.mtu(DEV)
TXQ = Key.txqueuelen(DEV)
RPS = Key.rps_cpus(DEV, "rx-0")
XPS = Key.xps_cpus(DEV, "tx-1")
FLOWS = Key.rps_flow_cnt(DEV, "rx-0")
IRQ = Key.irq(101, "eno49-TxRx-0", DEV)
SOMAXCONN = Key.sysctl("net.core.somaxconn")
RMEM = Key.sysctl("net.ipv4.tcp_rmem")
CC = Key.sysctl("net.ipv4.tcp_congestion_control")
SACK = Key.sysctl("net.ipv4.tcp_sack")
BACKLOG = Key.sysctl("net.core.netdev_max_backlog")

INVALID: list[tuple[Key, str, str]] = [
    # rings (max 4096)
    (RX, "", "eno49 rings rx: empty; enter a value such as 1"),
    (RX, "lots", "eno49 rings rx: 'lots' is not a whole number"),
    (RX, "-1", "eno49 rings rx: cannot be negative (-1)"),
    (RX, "4097", "eno49 rings rx: 4097 is above the maximum 4096"),
    (RX, "1.5", "eno49 rings rx: '1.5' is not a whole number"),
    (RX, "١٠٢٤", "eno49 rings rx: '١٠٢٤' is not a whole number"),  # digits, not ASCII ones
    # channels (combined max 8; no rx/tx channels, so 0 combined leaves nothing)
    (COMBINED, "", "eno49 channels combined: empty"),
    (COMBINED, "four", "eno49 channels combined: 'four' is not a whole number"),
    (COMBINED, "-2", "eno49 channels combined: cannot be negative (-2)"),
    (COMBINED, "9", "eno49 channels combined: 9 is above the maximum 8"),
    (COMBINED, "0", "eno49 channels combined: 0 would leave no rx or no tx channel"),
    # coalescing
    (USECS, "", "eno49 coalesce rx-usecs: empty"),
    (USECS, "fast", "eno49 coalesce rx-usecs: 'fast' is not a whole number"),
    (USECS, "-5", "eno49 coalesce rx-usecs: cannot be negative (-5)"),
    (USECS, "4294967296", "eno49 coalesce rx-usecs: 4294967296 is above the maximum 4294967295"),
    (ADAPTIVE, "maybe", "eno49 coalesce adaptive-rx: 'maybe' is not on or off"),
    (Key.field(DEV, "coalesce", "rx-usec"), "5", "eno49 coalesce rx-usec: no such parameter"),
    # pause and features
    (PAUSE_RX, "", "eno49 pause rx: empty; enter a value such as on or off"),
    (PAUSE_RX, "sometimes", "eno49 pause rx: 'sometimes' is not on or off"),
    (GRO, "", "eno49 rx-gro: empty"),
    (GRO, "2", "eno49 rx-gro: '2' is not on or off"),
    (GRO, "-1", "eno49 rx-gro: '-1' is not on or off"),
    (Key.feature(DEV, "rx-magic"), "on", "eno49 rx-magic: no such feature on eno49"),
    # link
    (MTU, "", "eno49 mtu: empty"),
    (MTU, "jumbo", "eno49 mtu: 'jumbo' is not a whole number"),
    (MTU, "-1", "eno49 mtu: cannot be negative (-1)"),
    (MTU, "67", "eno49 mtu: 67 is below the minimum 68"),
    (MTU, "4294967296", "eno49 mtu: 4294967296 is above the maximum 4294967295"),
    (TXQ, "", "eno49 txqueuelen: empty"),
    (TXQ, "long", "eno49 txqueuelen: 'long' is not a whole number"),
    (TXQ, "-10", "eno49 txqueuelen: cannot be negative (-10)"),
    (TXQ, "4294967296", "eno49 txqueuelen: 4294967296 is above the maximum 4294967295"),
    # RPS / XPS (CPUs 0-2 online, 3 offline, 4+ absent)
    (RPS, "", "eno49 rx-0 rps_cpus: empty; enter a value such as 0-3,8 or none"),
    (RPS, "abc", "eno49 rx-0 rps_cpus: 'abc' in 'abc' is not a CPU number or range like 0-3"),
    (RPS, "0-", "eno49 rx-0 rps_cpus: '0-' in '0-' is not a CPU number or range like 0-3"),
    (RPS, "2-1", "eno49 rx-0 rps_cpus: range '2-1' in '2-1' runs backwards"),
    (RPS, "0,,1", "eno49 rx-0 rps_cpus: empty item in CPU list '0,,1'"),
    (RPS, "-1", "eno49 rx-0 rps_cpus: '-1' in '-1' is not a CPU number or range like 0-3"),
    (RPS, "3", "eno49 rx-0 rps_cpus: CPU 3 is offline (online: 0-2)"),
    (RPS, "0-9", "eno49 rx-0 rps_cpus: CPUs 4-9 not on this host (online CPUs: 0-2)"),
    (XPS, "7", "eno49 tx-1 xps_cpus: CPU 7 not on this host (online CPUs: 0-2)"),
    (XPS, "ff", "eno49 tx-1 xps_cpus: 'ff' in 'ff' is not a CPU number or range like 0-3"),
    (FLOWS, "", "eno49 rx-0 rps_flow_cnt: empty"),
    (FLOWS, "many", "eno49 rx-0 rps_flow_cnt: 'many' is not a whole number"),
    (FLOWS, "-4", "eno49 rx-0 rps_flow_cnt: cannot be negative (-4)"),
    (FLOWS, "100", "eno49 rx-0 rps_flow_cnt: 100 is not a power of two (the kernel would make"),
    (FLOWS, "2147483648", "eno49 rx-0 rps_flow_cnt: 2147483648 is above the maximum 1073741824"),
    # IRQ affinity
    (IRQ, "", "IRQ 101 (eno49-TxRx-0) affinity: empty; enter a value such as 0-3,8"),
    (IRQ, "none", "IRQ 101 (eno49-TxRx-0) affinity: needs at least one CPU"),
    (IRQ, "x", "IRQ 101 (eno49-TxRx-0) affinity: 'x' in 'x' is not a CPU number"),
    (IRQ, "1-", "IRQ 101 (eno49-TxRx-0) affinity: '1-' in '1-' is not a CPU number"),
    (IRQ, "-3", "IRQ 101 (eno49-TxRx-0) affinity: '-3' in '-3' is not a CPU number"),
    (IRQ, "3", "IRQ 101 (eno49-TxRx-0) affinity: CPU 3 is offline (online: 0-2)"),
    (IRQ, "2-3", "IRQ 101 (eno49-TxRx-0) affinity: CPU 3 is offline (online: 0-2)"),
    (IRQ, "64", "IRQ 101 (eno49-TxRx-0) affinity: CPU 64 not on this host (online CPUs: 0-2)"),
    # sysctls, through the catalog's own parser
    (SOMAXCONN, "", "net.core.somaxconn: empty; enter a value such as a whole number"),
    (SOMAXCONN, "lots", "net.core.somaxconn needs an integer, got 'lots'"),
    (
        SOMAXCONN,
        "-1",
        "net.core.somaxconn must be between 0 and 2147483647 connections, got -1",
    ),
    (SOMAXCONN, "2147483648", "between 0 and 2147483647 connections, got 2147483648"),
    (BACKLOG, "0", "netdev_max_backlog must be between 1 and 2147483647 packets, got 0"),
    (
        RMEM,
        "4096 87380",
        "net.ipv4.tcp_rmem needs three integers min default max, got '4096 87380'",
    ),
    (RMEM, "5000 4096 4096", "needs min <= default <= max, got 5000 4096 4096"),
    (RMEM, "a b c", "needs three integers"),
    (SACK, "2", "net.ipv4.tcp_sack needs 0 or 1, got '2'"),
    (
        CC,
        "bbr",
        "net.ipv4.tcp_congestion_control: 'bbr' is not available here (available: cubic, reno)",
    ),
    (CC, "", "net.ipv4.tcp_congestion_control: empty"),
    (Key.sysctl("net.core.somaxcon"), "1", "did you mean net.core.somaxconn"),
]

REFUSED: list[tuple[Key, str, str]] = [
    (Key.field(DEV, "ring", "rx-mini"), "1", "eno49 rings rx-mini: not on this device"),
    (Key.feature(DEV, "tx-checksum-ipv4"), "on", "eno49 tx-checksum-ipv4: fixed"),  # off: has it
    (Key.sysctl("net.ipv4.tcp_available_congestion_control"), "reno", "read-only"),
    (Key.rps_cpus(DEV, "rx-7"), "0", "eno49 rx-7 rps_cpus: no queue rx-7 (now)"),
    (Key.irq(999, None, DEV), "0", "IRQ 999 affinity: not present"),
    (Key.irq(101, "eno49-TxRx-9", DEV), "0", "no IRQ serves eno49-TxRx-9 now"),
]


def tree_files(tree: Path) -> dict[str, str]:
    return {str(p): p.read_text() for p in sorted(tree.rglob("*")) if p.is_file()}


@pytest.fixture
def host(tmp_path: Path) -> Iterator[tuple[Path, FakeDevice, HostAccess]]:
    tree = build_host(tmp_path / "host")
    dev = FakeDevice(DEV)
    access = HostAccess(HostRoot.fixture(tree), ethtool=lambda name: dev)
    yield tree, dev, access
    access.close()


@pytest.mark.parametrize(
    ("key", "text", "message"), INVALID, ids=[f"{k.label}={t!r}" for k, t, _ in INVALID]
)
def test_invalid_input_gets_a_message_and_writes_nothing(
    host: tuple[Path, FakeDevice, HostAccess], tmp_path: Path, key: Key, text: str, message: str
) -> None:
    tree, dev, access = host
    before = tree_files(tree)
    with pytest.raises(InvalidValue) as err:
        access.validate(key, text)
    assert message in err.value.message
    with Journal.open(access, tmp_path / "j") as journal:
        out = journal.apply(key, text)
        assert (out.status, out.reason) == ("invalid", err.value.message)
        assert journal.originals() == {}
        path = journal.path
    assert not [r for r in read_records(path) if r["t"] in ("orig", "intent")]
    assert dev.writes == []
    assert tree_files(tree) == before


@pytest.mark.parametrize(("key", "text", "message"), REFUSED, ids=[k.label for k, _, _ in REFUSED])
def test_settings_that_cannot_change_here_are_refused_states(
    host: tuple[Path, FakeDevice, HostAccess], tmp_path: Path, key: Key, text: str, message: str
) -> None:
    tree, dev, access = host
    before = tree_files(tree)
    with pytest.raises(WriteRefused) as err:
        access.validate(key, text)
    assert message in err.value.state.reason
    with Journal.open(access, tmp_path / "j") as journal:
        out = journal.apply(key, text)
    assert out.status == "refused" and out.state == err.value.state
    assert dev.writes == []
    assert tree_files(tree) == before


@pytest.mark.parametrize(
    ("key", "text", "canonical"),
    [
        (RX, " 1024 ", "1024"),
        (RX, "+8", "8"),
        (GRO, "OFF", "off"),
        (GRO, "true", "on"),
        (ADAPTIVE, "0", "off"),
        (RPS, "2,0-1", "0-2"),
        (RPS, "NONE", "none"),
        (IRQ, "0-2:1/2", "0,2"),
        (IRQ, "0-3", "0-3"),  # the current value, offline CPU 3 and all: keeping it is fine
        (FLOWS, "0", "0"),
        (FLOWS, "4096", "4096"),
        (RMEM, "4096\t87380   6291456", "4096 87380 6291456"),
        (SACK, "0", "0"),
        (CC, "reno", "reno"),
        (MTU, "9000", "9000"),
    ],
)
def test_valid_input_is_made_canonical(
    host: tuple[Path, FakeDevice, HostAccess], key: Key, text: str, canonical: str
) -> None:
    assert host[2].validate(key, text) == canonical


def test_a_namespace_refuses_host_wide_sysctls(tmp_path: Path) -> None:
    """Inside a namespace, a host-scope sysctl would change the whole machine: refused unless
    the session was allowed to (this root names a namespace but is never entered)."""
    tree = build_host(tmp_path / "host")
    root = HostRoot(proc=tree / "proc", sys=tree / "sys", netns="lab", live=False)
    with HostAccess(root, call=lambda fn, *a: fn(*a)) as access:
        with pytest.raises(WriteRefused) as err:
            access.validate(BACKLOG, "5000")
        assert "host-wide: not changed from inside network namespace 'lab'" in str(err.value)
        assert access.read(BACKLOG) == "1000"  # still read, from the host's files
        assert BACKLOG not in access.sysctl_keys()
        assert SOMAXCONN in access.sysctl_keys()


def test_an_agreed_host_wide_change_goes_to_the_host_and_is_journaled(tmp_path: Path) -> None:
    """With host_writes, a namespace session changes a host-wide sysctl in the host's tree
    (not the namespace's), journals it beside the namespace's own keys, and puts it back."""
    ns_tree = build_host(tmp_path / "ns")
    host_tree = build_host(tmp_path / "machine")
    backlog = "sys/net/core/netdev_max_backlog"
    (host_tree / "proc" / backlog).write_text("2000\n")
    root = HostRoot(proc=ns_tree / "proc", sys=ns_tree / "sys", netns="lab", live=False)
    host = HostRoot.fixture(host_tree)
    with HostAccess(root, call=lambda fn, *a: fn(*a), host=host, host_writes=True) as access:
        assert access.read(BACKLOG) == "2000"
        assert BACKLOG in access.sysctl_keys() and SOMAXCONN in access.sysctl_keys()
        with Journal.open(access, tmp_path / "journal") as j:
            assert j.apply(BACKLOG, "250000").status == "changed"
            assert j.apply(SOMAXCONN, "8192").status == "changed"
            assert (host_tree / "proc" / backlog).read_text().strip() == "250000"
            assert (ns_tree / "proc" / backlog).read_text().strip() == "1000"
            assert (ns_tree / "proc/sys/net/core/somaxconn").read_text().strip() == "8192"
            assert j.originals() == {BACKLOG: "2000", SOMAXCONN: "4096"}
            outs = j.revert_all()
            assert {o.key: o.status for o in outs} == {BACKLOG: "changed", SOMAXCONN: "changed"}
        assert (host_tree / "proc" / backlog).read_text().strip() == "2000"
        assert (ns_tree / "proc/sys/net/core/somaxconn").read_text().strip() == "4096"
