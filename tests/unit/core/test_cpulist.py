from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tuitune.core.cpulist import (
    CpuListError,
    format_cpulist,
    format_mask,
    parse_cpulist,
    parse_mask,
)


def test_cpulist_forms() -> None:
    assert parse_cpulist("0-3,8") == {0, 1, 2, 3, 8}
    assert parse_cpulist("") == frozenset()
    assert parse_cpulist("0-7:2/4") == {0, 1, 4, 5}  # the kernel's used/group syntax
    assert format_cpulist({8, 0, 1, 2, 3, 10, 11}) == "0-3,8,10-11"


@pytest.mark.parametrize(
    "bad", ["a", "1-", "-1", "3-1", "1,,2", "0x3", "1 2", "0-7:0", "²", "0-²", "٣", "0:²"]
)
def test_cpulist_rejects(bad: str) -> None:
    with pytest.raises(CpuListError):
        parse_cpulist(bad)


def test_masks_as_the_kernel_prints_them() -> None:
    assert parse_mask("3") == {0, 1}
    assert parse_mask("ff,00000001") == {0, *range(32, 40)}
    assert format_mask({0, 1}, 2) == "3"  # 2 CPUs: one hex digit, like rps_cpus here
    assert format_mask({0}, 48) == "0000,00000001"
    assert format_mask(set(), 256).count(",") == 7  # 8 groups of 32 bits
    assert format_mask({255}, 256).startswith("80000000,")


def test_mask_fixture_48cpu(fixtures_dir: Path) -> None:
    """A 48-CPU host's smp_affinity files: one bit each, printed in two 32-bit groups."""
    text = (fixtures_dir / "sys/smp_affinity_masks_48cpu_list_coreos1275.txt").read_text()
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for line in lines:
        cpus = parse_mask(line)
        assert len(cpus) == 1
        assert format_mask(cpus, 48) == line  # we write what the kernel prints


@given(st.frozensets(st.integers(0, 1023)), st.integers(1, 1024))
def test_mask_round_trip(cpus: frozenset[int], ncpus: int) -> None:
    assert parse_mask(format_mask(cpus, ncpus)) == cpus


@given(st.frozensets(st.integers(0, 4095)))
def test_cpulist_round_trip(cpus: frozenset[int]) -> None:
    assert parse_cpulist(format_cpulist(cpus)) == cpus
