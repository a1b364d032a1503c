"""SMT off on trial (issue 32), on a recorded 4-CPU host given two cores of two threads
(0,2 and 1,3): the CPUs it would take offline are named from the topology before the write;
the kernel's part (CPUs 2-3 offline, an IRQ pinned to them broken to the online CPUs) is
simulated in the writer, since a tree cannot offline CPUs; putting the trial back brings SMT
on first, then the IRQ's own CPUs. A kernel without hotplug SMT is a state, not a write."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key, is_risky
from tuitune.core.session.kinds.base import write_file
from tuitune.core.session.kinds.smt import offlined

SMT = Key.smt()
IRQ103 = Key.irq("103", None)


def smt_tree(base: Path, control: str = "on") -> Path:
    tree = build_host(base / "host", online="0-3")
    cpu = tree / "sys/devices/system/cpu"
    (cpu / "smt").mkdir(exist_ok=True)
    (cpu / "smt/control").write_text(control + "\n")
    for n, siblings in ((0, "0,2"), (2, "0,2"), (1, "1,3"), (3, "1,3")):
        (cpu / f"cpu{n}/topology").mkdir(parents=True, exist_ok=True)
        (cpu / f"cpu{n}/topology/thread_siblings_list").write_text(siblings + "\n")
    (tree / "proc/irq/103/smp_affinity_list").write_text("3\n")  # only on a sibling
    return tree


def kernel_like(root: HostRoot) -> object:
    """A write as the kernel takes it, and what it does with SMT off: the siblings go
    offline and an IRQ whose CPUs were all among them is given the online ones."""

    def writer(path: Path, value: str) -> None:
        write_file(path, value, root.jail)
        if path.name != "control":
            return
        cpu = path.parents[1]
        (cpu / "online").write_text("0-1\n" if value == "off" else "0-3\n")
        if value == "off":
            for aff in Path(root.jail or "/").glob("proc/irq/*/smp_affinity_list"):
                if aff.read_text().strip() in ("2", "3", "2-3"):
                    aff.write_text("0-1\n")

    return writer


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return smt_tree(tmp_path)


@pytest.fixture
def access(tree: Path) -> Iterator[HostAccess]:
    root = HostRoot.fixture(tree)
    a = HostAccess(root, call=lambda f, *x: f(*x), writer=kernel_like(root))  # type: ignore[arg-type]
    yield a
    a.close()


def test_smt_off_is_on_trial_and_names_the_cpus_first(tree: Path, access: HostAccess) -> None:
    assert is_risky(SMT, None)
    assert offlined(access.root) == frozenset({2, 3})


def test_smt_off_then_put_back_restores_smt_and_the_irq(
    tree: Path, access: HostAccess, tmp_path: Path
) -> None:
    with Journal.open(access, tmp_path / "journal") as j:
        out, trial = j.apply_trial(SMT, "off", seconds=60)
        assert out.status == "changed" and trial is not None, out.describe()
        assert {(e.key, e.before, e.after) for e in out.also} == {(IRQ103, "3", "0-1")}
        assert (tree / "sys/devices/system/cpu/online").read_text() == "0-1\n"
        outs = j.revert_trial()
        assert all(o.ok for o in outs), [o.describe() for o in outs]
    assert (tree / "sys/devices/system/cpu/smt/control").read_text() == "on\n"
    assert (tree / "sys/devices/system/cpu/online").read_text() == "0-3\n"
    assert (tree / "proc/irq/103/smp_affinity_list").read_text().strip() == "3"


@pytest.mark.parametrize("control", ["notsupported", "forceoff"])
def test_a_kernel_without_run_time_smt_is_a_state(tmp_path: Path, control: str) -> None:
    tree = smt_tree(tmp_path, control)
    with (
        HostAccess(HostRoot.fixture(tree), call=lambda f, *x: f(*x)) as access,
        Journal.open(access, tmp_path / "journal") as j,
    ):
        out = j.apply(SMT, "off")
    assert out.status == "refused" and f"the kernel says {control!r}" in out.describe()
    assert (tree / "sys/devices/system/cpu/smt/control").read_text() == control + "\n"
