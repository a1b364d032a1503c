"""The host state's topology read (core/host/cpus.py TopologyReader) reads each CPU's
topology files again only when the CPU sets change: on a 1152-CPU host they are 3,456 files
every host-state tick (issue 38: that tick's worst). Whatever the hotplug sequence, what it
gives equals a full read_topology of the same tree."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.cpus import TopologyReader, read_topology
from tuitune.core.host.root import HostRoot

NCPUS = 8  # 2 nodes x 2 packages' worth: cpu c is core c // 2's thread c % 2


def write_tree(tree: Path, online: frozenset[int], smt_pairs: bool) -> None:
    """A kernel's view of an 8-CPU host with `online` up: an online CPU's siblings are the
    online threads of its core (one each when `smt_pairs` is off: the cores are not SMT)."""
    cpu = tree / "sys/devices/system/cpu"
    cpu.mkdir(parents=True, exist_ok=True)
    (cpu / "online").write_text(format_cpulist(online) + "\n")
    (cpu / "present").write_text(f"0-{NCPUS - 1}\n")
    for c in range(NCPUS):
        topo = cpu / f"cpu{c}/topology"
        topo.mkdir(parents=True, exist_ok=True)
        core = c // 2 if smt_pairs else c
        mates = {m for m in range(NCPUS) if (m // 2 if smt_pairs else m) == core} & online
        (topo / "thread_siblings_list").write_text(format_cpulist(mates or {c}) + "\n")
        (topo / "core_id").write_text(f"{core}\n")
        (topo / "physical_package_id").write_text(f"{c // 4}\n")
    for node in (0, 1):
        d = tree / f"sys/devices/system/node/node{node}"
        d.mkdir(parents=True, exist_ok=True)
        (d / "cpulist").write_text(
            format_cpulist(set(range(4 * node, 4 * node + 4)) & online) + "\n"
        )


@settings(max_examples=30, deadline=None)
@given(
    smt=st.booleans(),
    steps=st.lists(st.frozensets(st.integers(0, NCPUS - 1), min_size=1), min_size=1, max_size=6),
)
def test_the_cached_read_equals_a_full_read_through_any_hotplug(
    tmp_path_factory: pytest.TempPathFactory, smt: bool, steps: list[frozenset[int]]
) -> None:
    """The hardware is fixed (a core's threads do not move); CPUs go off and on line in any
    order, SMT off among them (it takes the second threads offline), the siblings listed
    following them as the kernel's do."""
    tree = tmp_path_factory.mktemp("topo")
    reader = TopologyReader()
    for online in steps:
        write_tree(tree, online, smt)
        root = HostRoot.fixture(tree)
        assert reader.read(root) == read_topology(root)


def test_a_second_read_with_the_same_cpus_opens_no_cpu_file(tmp_path: Path) -> None:
    """The saving itself: the same CPU sets, and no cpuN/topology file is read again (here
    made unreadable: a read of it would give another answer)."""
    write_tree(tmp_path, frozenset(range(NCPUS)), True)
    reader = TopologyReader()
    first = reader.read(HostRoot.fixture(tmp_path))
    for c in range(NCPUS):
        (tmp_path / f"sys/devices/system/cpu/cpu{c}/topology/core_id").write_text("99\n")
    again = reader.read(HostRoot.fixture(tmp_path))
    assert again == first and {i.core for i in again.cpus} != {99}
    write_tree(tmp_path, frozenset(range(NCPUS - 1)), True)  # a CPU went offline: read afresh
    assert reader.read(HostRoot.fixture(tmp_path)) == read_topology(HostRoot.fixture(tmp_path))
