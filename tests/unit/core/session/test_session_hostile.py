"""A value with a line break (a crafted profile, a paste) never reaches a kernel file or the
device with the line break in it: every kind refuses it as invalid, or (where whitespace is the
separator, the three-number sysctls) writes the canonical one-line form."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.access import write_file

DEV = "eno49"
INVALID: list[tuple[Key, str]] = [
    (Key.field(DEV, "ring", "rx"), "1024\n2048"),
    (Key.field(DEV, "channels", "combined"), "2\n8"),
    (Key.field(DEV, "coalesce", "rx-usecs"), "10\n0"),
    (Key.field(DEV, "coalesce", "adaptive-rx"), "off\non"),
    (Key.field(DEV, "pause", "rx"), "off\non"),
    (Key.feature(DEV, "rx-gro"), "off\non"),
    (Key.mtu(DEV), "9000\n1500"),
    (Key.txqueuelen(DEV), "5000\n0"),
    (Key.rps_cpus(DEV, "rx-0"), "0-1\n2"),
    (Key.xps_cpus(DEV, "tx-1"), "1\nnone"),
    (Key.rps_flow_cnt(DEV, "rx-0"), "4096\n1"),
    (Key.irq(101, "eno49-TxRx-0", DEV), "1\n2"),
    (Key.sysctl("net.core.somaxconn"), "1024\nnet.core.rmem_max = 1"),
    (Key.sysctl("net.ipv4.tcp_congestion_control"), "reno\ncubic"),
    (Key.sysctl("net.core.default_qdisc"), "fq\nfq_codel"),
    (Key.service("irqbalance"), "stopped\nrunning: /bin/sh"),
]


@pytest.mark.parametrize(("key", "text"), INVALID, ids=[k.label for k, _ in INVALID])
def test_a_line_break_is_invalid_and_nothing_is_written(
    tmp_path: Path, key: Key, text: str
) -> None:
    tree = build_host(tmp_path / "host")
    dev = FakeDevice(DEV)
    files: list[tuple[Path, str]] = []

    def writer(path: Path, value: str) -> None:
        files.append((path, value))
        write_file(path, value)

    with HostAccess(HostRoot.fixture(tree), ethtool=lambda _n: dev, writer=writer) as access:
        journal = Journal.open(access, tmp_path / "journal")
        out = journal.apply(key, text)
        journal.close_keeping_changes()
    assert out.status == "invalid", out
    assert (files, dev.writes) == ([], [])


def test_a_triple_takes_the_line_break_as_a_separator_and_writes_one_line(
    tmp_path: Path,
) -> None:
    tree = build_host(tmp_path / "host")
    written: list[str] = []

    def writer(path: Path, value: str) -> None:
        written.append(value)
        write_file(path, value)

    with HostAccess(HostRoot.fixture(tree), writer=writer) as access:
        journal = Journal.open(access, tmp_path / "journal")
        out = journal.apply(Key.sysctl("net.ipv4.tcp_rmem"), "4096 87380\n6291456")
        journal.close_keeping_changes()
    assert out.status == "changed"
    assert written == ["4096 87380 6291456"]
