"""CPU power through the journal (issue 32): a governor, an EPP and a C-state's disable
changed and restored exactly, on intel/pepc's recorded Cascade Lake (clx2s0, a real capture:
tests/fixtures/platform/SOURCES.md) as a --root tree, since this machine's VM guest has no
cpufreq; refusals as one-line states, the tree left as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.platform_trees import pepc_tree, vm_tree
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.kinds.base import write_file
from tuitune.core.session.kinds.boost import boost_key

CPU = "sys/devices/system/cpu"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    t = pepc_tree(tmp_path / "clx2s0", "clx2s0")
    for f in (t / CPU).rglob("*"):  # the kernel's files are root-writable: the tree's too
        if f.is_file():
            f.chmod(0o644)
    return t


def access(tree: Path) -> HostAccess:
    root = HostRoot.fixture(tree)

    def pstate_like(path: Path, value: str) -> None:
        """A write as the kernel takes it, plus what intel_pstate (active mode) does on its
        own: under the performance governor the EPP becomes "performance"."""
        write_file(path, value, root.jail)
        if path.name == "scaling_governor" and value == "performance":
            write_file(path.with_name("energy_performance_preference"), "performance", root.jail)

    return HostAccess(root, call=lambda f, *a: f(*a), writer=pstate_like)


def text(tree: Path, rel: str) -> str:
    return (tree / CPU / rel).read_text().strip()


def test_governor_and_epp_restore_exactly(tree: Path, tmp_path: Path) -> None:
    journal = Journal.open(access(tree), tmp_path / "journal")
    out = journal.apply(Key.cpu_governor(0), "performance")
    assert out.status == "changed", out.describe()
    assert text(tree, "cpufreq/policy0/scaling_governor") == "performance"
    assert text(tree, "cpufreq/policy0/energy_performance_preference") == "performance"
    originals = journal.originals()
    assert originals[Key.cpu_governor(0)] == "powersave"
    assert originals[Key.cpu_epp(0)] == "balance_performance"
    outs = journal.close_restoring()
    assert all(o.ok for o in outs), [o.describe() for o in outs]
    assert text(tree, "cpufreq/policy0/scaling_governor") == "powersave"
    assert text(tree, "cpufreq/policy0/energy_performance_preference") == "balance_performance"


def test_cstate_disable_restores(tree: Path, tmp_path: Path) -> None:
    journal = Journal.open(access(tree), tmp_path / "journal")
    key = Key.cstate_disable(2, 3)  # C6 on CPU 2
    assert journal.apply(key, "1").describe() == "cpu2/state3 disable: 0 -> 1"
    assert text(tree, "cpu2/cpuidle/state3/disable") == "1"
    assert text(tree, "cpu3/cpuidle/state3/disable") == "0"  # only that CPU
    journal.close_restoring()
    assert text(tree, "cpu2/cpuidle/state3/disable") == "0"


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        (Key.cpu_governor(0), "ondemand", "choose performance, powersave"),
        (Key.cpu_epp(0), "turbo", "choose default, performance, balance_performance"),
        (Key.cstate_disable(0, 3), "yes", "give 1 (disabled) or 0 (enabled)"),
        (Key("cstate_disable", None, "cpu0/../../x"), "1", "is not cpuN/stateM"),
        (Key.cpu_governor(99), "performance", "not present"),
    ],
)
def test_refusals_are_one_line_and_change_nothing(
    tree: Path, tmp_path: Path, key: Key, value: str, said: str
) -> None:
    before = {p: p.read_bytes() for p in (tree / CPU).rglob("*") if p.is_file()}
    journal = Journal.open(access(tree), tmp_path / "journal")
    out = journal.apply(key, value)
    assert out.status != "changed" and said in out.describe(), out.describe()
    assert "\n" not in out.describe()
    assert {p: p.read_bytes() for p in before} == before


def test_no_cpufreq_in_a_vm_is_a_state(tmp_path: Path) -> None:
    t = vm_tree(tmp_path / "vm")
    journal = Journal.open(access(t), tmp_path / "journal")
    out = journal.apply(Key.cpu_governor(0), "performance")
    assert out.status != "changed" and "no cpufreq here" in out.describe()


def test_an_empty_cpufreq_directory_is_no_cpufreq(tmp_path: Path) -> None:
    """The directory exists without cpufreq (this KVM host, the bench's guest): it was read as
    a missing policy ("not present") until the guest's test found it."""
    t = vm_tree(tmp_path / "vm")
    (t / "sys/devices/system/cpu/cpufreq").mkdir(parents=True, exist_ok=True)
    journal = Journal.open(access(t), tmp_path / "journal")
    out = journal.apply(Key.cpu_governor(0), "performance")
    assert out.status != "changed" and "no cpufreq here" in out.describe(), out.describe()


@pytest.mark.parametrize(
    ("host", "name", "rel", "raw_off"),
    [
        ("clx2s0", "no_turbo", "intel_pstate/no_turbo", "1"),  # inverse: 1 = turbo off
        ("turin0", "boost", "cpufreq/boost", "0"),
    ],
)
def test_boost_off_and_back_exactly(
    tmp_path: Path, host: str, name: str, rel: str, raw_off: str
) -> None:
    t = pepc_tree(tmp_path / host, host)
    (t / CPU / rel).chmod(0o644)
    acc = access(t)
    key = boost_key(acc.root)
    assert key == Key.cpu_boost(name)
    before = text(t, rel)
    journal = Journal.open(acc, tmp_path / "journal")
    out = journal.apply(key, "off")
    assert out.describe() == f"{key.label}: on -> off", out.describe()
    assert text(t, rel) == raw_off
    assert journal.originals()[key] == "on"
    assert all(o.ok for o in journal.close_restoring())
    assert text(t, rel) == before


def test_boost_in_a_vm_is_a_state(tmp_path: Path) -> None:
    t = vm_tree(tmp_path / "vm")
    acc = access(t)
    assert boost_key(acc.root) is None
    out = Journal.open(acc, tmp_path / "journal").apply(Key.cpu_boost(), "off")
    assert out.status == "refused" and "no boost control here" in out.describe()
