"""The CPU power reader reads each file once and the driver's tables once (issue 32 item 6):
counted with the tree reader's own trace of opened files, not timed. A 1152-CPU host read
41 000 files before (6.4 s under load here), about 16 000 now (3.1 s)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.platform_trees import widen_cpu_power
from tuitune.core.host import root as root_mod
from tuitune.core.host.cpupower import read_cpu_power
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable

NCPUS = 8
CPU = "sys/devices/system/cpu"


@pytest.fixture
def traced() -> Iterator[list[tuple[Path, bool]]]:
    got: list[tuple[Path, bool]] = []
    root_mod.TRACE = got
    try:
        yield got
    finally:
        root_mod.TRACE = None


def test_each_cpu_reads_only_its_own_files(tmp_path: Path, traced: list[tuple[Path, bool]]) -> None:
    tree = widen_cpu_power(tmp_path, "clx2s0", NCPUS)
    (tree / CPU / "cpu5/cpuidle/state3/disable").write_text("1\n")
    power = read_cpu_power(HostRoot.fixture(tree))
    opened = [str(p) for p, _ in traced]
    # The state table (name, desc, latency, residency) once, from the first CPU only.
    assert sum("/cpuidle/state3/latency" in p for p in opened) == 1
    assert sum("/cpuidle/state3/disable" in p for p in opened) == NCPUS
    assert sum(p.endswith("/scaling_available_governors") for p in opened) == 1
    # Per CPU: 4 disables, 9 cpufreq files, PM QoS; the first CPU's table and the lists once.
    assert len(opened) <= NCPUS * 14 + 30, len(opened)
    assert not isinstance(power.idle, Unavailable)
    groups = {g.cpus: [s.disabled for s in g.states] for g in power.idle}
    assert groups[frozenset({5})] == [False, False, False, True]
    assert groups[frozenset(range(NCPUS)) - {5}] == [False] * 4
    assert [s.name for s in power.idle[0].states] == ["POLL", "C1", "C1E", "C6"]
    assert not isinstance(power.freq, Unavailable) and len(power.freq) == 1
    assert power.policies[3] == (3, frozenset({3}))


def test_a_cpu_with_its_own_driver_is_read_in_full(tmp_path: Path) -> None:
    """CONFIG_CPU_IDLE_MULTIPLE_DRIVERS (big.LITTLE): cpuN/cpuidle/driver/name per CPU; the
    second driver's deeper C6 (a made-up latency) is read from its own first CPU."""
    tree = widen_cpu_power(tmp_path, "clx2s0", 4)
    for n in range(4):
        d = tree / CPU / f"cpu{n}/cpuidle/driver"
        d.mkdir()
        (d / "name").write_text("little\n" if n < 2 else "big\n")
    for n in (2, 3):
        (tree / CPU / f"cpu{n}/cpuidle/state3/latency").write_text("500\n")
    power = read_cpu_power(HostRoot.fixture(tree))
    assert not isinstance(power.idle, Unavailable)
    c6 = {g.cpus: g.states[3].latency_us for g in power.idle}
    assert c6 == {frozenset({0, 1}): 92, frozenset({2, 3}): 500}
