"""irqbalance, topology and sysctl notes on small recorded trees built here."""

from __future__ import annotations

from pathlib import Path

from tests.support.hosttree import TreeSpec, build_tree
from tuitune.core.host.cpus import read_topology
from tuitune.core.host.irqbalance import read_irqbalance
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable
from tuitune.core.watch.hostreader import HostReader


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_irqbalance_running_with_banned_cpus_and_irqs(tmp_path: Path) -> None:
    root = HostRoot.fixture(tmp_path)
    _write(tmp_path / "proc/4242/comm", "irqbalance\n")
    _write(tmp_path / "proc/17/comm", "sshd\n")
    _write(
        tmp_path / "etc/default/irqbalance",
        '# irqbalance settings\nIRQBALANCE_BANNED_CPULIST="2-3,8"\n'
        'IRQBALANCE_ARGS="--banirq=38 --banirq 39 --foreground"\n',
    )
    state = read_irqbalance(root)
    assert state.running and state.pids == (4242,)
    assert state.banned_cpus == {2, 3, 8}
    assert state.banned_irqs == ("38", "39")
    # The host's own path, not where the tree lies (a capture's is a new directory each time).
    assert state.config_file == "/etc/default/irqbalance"


def test_irqbalance_absent_and_old_mask_form(tmp_path: Path) -> None:
    root = HostRoot.fixture(tmp_path)
    (tmp_path / "proc").mkdir()
    assert not read_irqbalance(root).running
    _write(tmp_path / "etc/sysconfig/irqbalance", "IRQBALANCE_BANNED_CPUS=0000000f\n")
    assert read_irqbalance(root).banned_cpus == {0, 1, 2, 3}


def test_topology_groups_smt_siblings_and_nodes(tmp_path: Path) -> None:
    """4 cores x 2 threads on 2 nodes, numbered as Intel does: thread 2 of core 0 is CPU 4."""
    cpu = tmp_path / "sys/devices/system/cpu"
    _write(cpu / "online", "0-7\n")
    _write(cpu / "present", "0-7\n")
    _write(cpu / "isolated", "6-7\n")
    for c in range(8):
        core = c % 4
        _write(cpu / f"cpu{c}/topology/core_id", f"{core}\n")
        _write(cpu / f"cpu{c}/topology/physical_package_id", f"{core // 2}\n")
        _write(cpu / f"cpu{c}/topology/thread_siblings_list", f"{core},{core + 4}\n")
    _write(tmp_path / "sys/devices/system/node/node0/cpulist", "0-1,4-5\n")
    _write(tmp_path / "sys/devices/system/node/node1/cpulist", "2-3,6-7\n")
    topo = read_topology(HostRoot.fixture(tmp_path))
    assert topo.order() == [0, 4, 1, 5, 2, 6, 3, 7]  # node, package, core: threads together
    assert topo.isolated == {6, 7}
    assert {c.cpu: c.node for c in topo.cpus} == {0: 0, 1: 0, 4: 0, 5: 0, 2: 1, 3: 1, 6: 1, 7: 1}


def test_sysctl_notes_follow_the_kernel_release(tmp_path: Path) -> None:
    def values(kernel: str) -> dict[str, object]:
        tree = build_tree(
            tmp_path / kernel,
            TreeSpec(
                ncpus=1,
                interrupts="",
                kernel=kernel,
                sysctls={"net.ipv4.tcp_low_latency": "0", "net.ipv4.tcp_tw_recycle": "0"},
            ),
        )
        with HostReader(HostRoot.fixture(tree)) as r:
            return {s.key: (s.value, s.note) for s in r.host_state().sysctls}

    old = values("3.10.0-693.el7.x86_64")
    assert old["net.ipv4.tcp_low_latency"] == ("0", None)
    assert old["net.ipv4.tcp_tw_recycle"] == ("0", None)
    new = values("6.1.0-13-amd64")
    assert new["net.ipv4.tcp_low_latency"] == ("0", "no effect since Linux 4.14")
    # A tree from a new kernel that lacks the file says why.
    tree = build_tree(tmp_path / "gone", TreeSpec(ncpus=1, interrupts="", kernel="5.15.0"))
    with HostReader(HostRoot.fixture(tree)) as r:
        gone = {s.key: s.value for s in r.host_state().sysctls}
    assert gone["net.ipv4.tcp_tw_recycle"] == Unavailable(
        "missing", "net.ipv4.tcp_tw_recycle: removed in Linux 4.12"
    )
