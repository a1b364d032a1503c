"""/proc/net/dev: the per-tick link counters (read_counters' first choice)."""

from __future__ import annotations

from pathlib import Path

from tuitune.core.host.netdev import parse_net_dev, read_counters
from tuitune.core.host.root import HostRoot

# This machine's /proc/net/dev layout (kernel 6.18), with made-up counts.
TEXT = "\n".join(
    [
        "Inter-|   Receive                                                |  Transmit",
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets"
        " errs drop fifo colls carrier compressed",
        "    lo:    9579      87    0    0    0     0          0         0     9579      87"
        "    0    0    0     0       0          0",
        "  eth0: 123456789 98765    1    2    3     4          5         6  987654321  45678"
        "    7    8    9    10      11         12",
        "eth0.200:   500      5    0    0    0     0          0         0      600       6"
        "    0    0    0     0       0          0",
        "",
    ]
)


def test_an_interface_row_maps_to_the_counter_names() -> None:
    c = parse_net_dev(TEXT, "eth0")
    assert c is not None
    assert c.values == {
        "rx_bytes": 123456789,
        "rx_packets": 98765,
        "rx_errors": 1,
        "rx_dropped": 2,
        "rx_fifo_errors": 3,
        "multicast": 6,
        "tx_bytes": 987654321,
        "tx_packets": 45678,
        "tx_errors": 7,
        "tx_dropped": 8,
        "tx_fifo_errors": 9,
        "collisions": 10,
    }


def test_a_name_with_a_dot_and_an_unknown_name() -> None:
    c = parse_net_dev(TEXT, "eth0.200")
    assert c is not None and c.get("tx_bytes") == 600
    assert parse_net_dev(TEXT, "eth1") is None
    assert parse_net_dev("eth1: garbage", "eth1") is None


def test_a_tree_without_net_dev_falls_back_to_sysfs(tmp_path: Path) -> None:
    stats = tmp_path / "sys/class/net/eth9/statistics"
    stats.mkdir(parents=True)
    (stats / "rx_bytes").write_text("42\n")
    (tmp_path / "proc").mkdir()
    c = read_counters(HostRoot.fixture(tmp_path), "eth9")
    assert c.get("rx_bytes") == 42


def test_a_tree_with_net_dev_reads_it(tmp_path: Path) -> None:
    (tmp_path / "proc/net").mkdir(parents=True)
    (tmp_path / "proc/net/dev").write_text(TEXT)
    (tmp_path / "sys").mkdir()
    c = read_counters(HostRoot.fixture(tmp_path), "eth0")
    assert c.get("rx_packets") == 98765


def test_missed_rx_is_split_out_of_the_drop_column(tmp_path: Path) -> None:
    """`show --json`'s rates.link has collisions and rx_missed_errors, as netlink counts them:
    /proc/net/dev's rx "drop" is rx_dropped + rx_missed_errors (net-procfs.c)."""
    (tmp_path / "proc/net").mkdir(parents=True)
    (tmp_path / "proc/net/dev").write_text(TEXT.replace("    1    2    3", "    1   70    3"))
    stats = tmp_path / "sys/class/net/eth0/statistics"
    stats.mkdir(parents=True)
    (stats / "rx_missed_errors").write_text("64\n")
    c = read_counters(HostRoot.fixture(tmp_path), "eth0")
    assert c is not None
    assert c.get("rx_missed_errors") == 64
    assert c.get("rx_dropped") == 70 - 64
    assert c.get("collisions") == 10
