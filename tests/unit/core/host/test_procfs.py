"""/proc/stat, /proc/softirqs and softnet_stat parsers on the real captures."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from tuitune.core.host.procfs import SoftnetRow, parse_softirqs, parse_softnet, parse_stat


def read(fixtures: Path, rel: str) -> str:
    return (fixtures / rel).read_text()


def test_stat_hyperv_two_cpus(fixtures_dir: Path) -> None:
    s = parse_stat(read(fixtures_dir, "stat/hyperv_2cpu_rhel8-4.18.txt"))
    assert sorted(s.cpus) == [0, 1]
    c0 = s.cpus[0]
    # cpu0 6088 14 5849 193612 93 2230 1398 0 0 0
    assert (c0.user, c0.nice, c0.system, c0.idle, c0.iowait, c0.irq, c0.softirq) == (
        6088,
        14,
        5849,
        193612,
        93,
        2230,
        1398,
    )
    assert s.total.user == 12333
    assert s.ctxt == 5562073
    assert s.intr_total == 1164323


def test_stat_procfs_eight_cpus(fixtures_dir: Path) -> None:
    s = parse_stat(read(fixtures_dir, "stat/procfs_fixture_8cpu.txt"))
    assert sorted(s.cpus) == list(range(8))
    assert s.cpus[7].nice == 268
    assert s.procs_running == 2
    # guest is inside user, so the total must not add it twice
    assert s.cpus[0].total == 44490 + 19 + 21045 + 1087069 + 220 + 1 + 3410


def test_stat_offline_cpu_gap() -> None:
    text = "cpu  1 2 3 4\ncpu0 1 1 1 1\ncpu2 0 1 2 3 4 5 6 7\n"
    s = parse_stat(text)
    assert sorted(s.cpus) == [0, 2]  # CPU1 offline: no line, no invented row
    assert s.cpus[2].softirq == 6


@pytest.mark.parametrize(
    ("name", "cpus"),
    [
        ("e1000e-laptop_8cpu_x86_64_pcp.txt", 8),
        ("hyperv_2cpu.txt", 2),
        ("netutils_series_dualcore_2cpu_snap1.txt", 4),  # 4 possible CPUs, 2 present
        ("netutils_series_i7_8cpu_snap3.txt", 8),
        ("netutils_strange-cpu-layout_8cpu.txt", 8),
    ],
)
def test_softirqs_every_fixture(fixtures_dir: Path, name: str, cpus: int) -> None:
    s = parse_softirqs(read(fixtures_dir, f"softirqs/{name}"))
    assert len(s.cpus) == cpus
    assert len(s.counts["NET_RX"]) == cpus
    assert len(s.counts["NET_TX"]) == cpus


def test_softirqs_values(fixtures_dir: Path) -> None:
    s = parse_softirqs(read(fixtures_dir, "softirqs/netutils_series_i7_8cpu_snap1.txt"))
    assert s.per_cpu("NET_RX")[4] == 3497390485
    assert s.per_cpu("NET_TX")[5] == 338057
    old = parse_softirqs(read(fixtures_dir, "softirqs/e1000e-laptop_8cpu_x86_64_pcp.txt"))
    assert old.counts["BLOCK_IOPOLL"] == (0,) * 8  # pre-4.x row name kept


@pytest.mark.parametrize(
    ("name", "rows", "columns"),
    [
        ("hyperv_2cpu_11col.txt", 2, {11}),
        ("ixgbe_host_32cpu_centos7_10col.txt", 32, {10}),
        ("node_exporter_fixture_4cpu_11col.txt", 4, {11}),
        ("procfs_fixture_mixed_9-13col.txt", 5, {9, 10, 11, 13}),
        ("netutils_series_snap1.txt", 8, {10}),
        ("netutils_strange-cpu-layout_8cpu.txt", 8, {10}),
    ],
)
def test_softnet_every_fixture(fixtures_dir: Path, name: str, rows: int, columns: set[int]) -> None:
    s = parse_softnet(read(fixtures_dir, f"softnet_stat/{name}"))
    assert len(s) == rows
    assert {r.columns for r in s.values()} == columns


def test_softnet_mixed_columns(fixtures_dir: Path) -> None:
    s = parse_softnet(read(fixtures_dir, "softnet_stat/procfs_fixture_mixed_9-13col.txt"))
    # row 2: 00953d1a 00000446 000000b1 ... 008eeb9a 0000002b 000000dc 00000001 (13 columns)
    r1 = s[1]
    assert (r1.processed, r1.dropped, r1.time_squeeze) == (0x953D1A, 0x446, 0xB1)
    assert (r1.received_rps, r1.flow_limit_count, r1.backlog_len) == (0x8EEB9A, 0x2B, 0xDC)
    assert s[3].received_rps is None  # the 9-column row predates received_rps


def test_softnet_rows_follow_online_cpus_on_old_kernels() -> None:
    text = "00000001 00000000 00000000 0 0 0 0 0 0 0\n00000002 00000000 00000000 0 0 0 0 0 0 0\n"
    s = parse_softnet(text, online=[0, 3])  # CPU1 and CPU2 offline: row 2 is CPU3
    assert sorted(s) == [0, 3]
    assert s[3].processed == 2


def test_softnet_cpu_column_wins_over_order() -> None:
    line = " ".join(["00000005"] + ["00000000"] * 11 + ["00000007"])
    assert list(parse_softnet(line + "\n")) == [7]


@given(st.text())
@example(":²")  # a digit to str.isdigit(), not to int()
@example("cpu² 1 2 3")
@example("CPU0 CPU²\nNET_RX: 1 ²")
def test_parsers_never_raise(text: str) -> None:
    parse_stat(text)
    parse_softirqs(text)
    parse_softnet(text)


@settings(deadline=None)  # a loaded machine, not a slow parse
@given(
    st.lists(
        st.lists(st.integers(0, 3), min_size=1, max_size=5),  # one row per online CPU
        min_size=1,
        max_size=6,
    ),
    st.sampled_from([9, 11, 13]),
)
def test_softnet_reusing_unchanged_lines_parses_as_afresh(
    ticks: list[list[int]], ncols: int
) -> None:
    """The live screen's softnet parse keeps the last tick's rows by line (issue 18): the
    result is always what a fresh parse gives, as lines change, CPUs go offline and return."""
    seen: dict[tuple[int, str], SoftnetRow] = {}
    for tick in ticks:
        online = [cpu * 2 for cpu in range(len(tick))]  # odd CPUs offline
        lines = [
            " ".join(f"{(v + c * k) % 3:08x}" for k in range(ncols - 1))
            + (f" {online[c]:08x}" if ncols >= 13 else f" {v:08x}")
            for c, v in enumerate(tick)
        ]
        text = "\n".join(lines) + "\n"
        assert parse_softnet(text, online, seen) == parse_softnet(text, online)
