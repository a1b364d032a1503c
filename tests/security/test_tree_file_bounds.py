"""Files of a --root tree are read up to a bound fit for the file they stand for: a one-value
file (sysctl, sysfs attribute) at most 1 MiB, the per-CPU tables (/proc/interrupts is 13 MB on
a 1152-CPU host) at most 64 MiB. A bigger file is a named state, never read into memory."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.command import ran
from tests.support.hosttree import TreeSpec, build_tree, scale_interrupts

CAPTURES = Path(__file__).resolve().parents[1] / "fixtures" / "captures"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return build_tree(
        tmp_path / "ixgbe",
        TreeSpec(
            ncpus=32,
            interrupts=(CAPTURES / "interrupts/ixgbe_32cpu_centos7_grep_eno49.txt").read_text(),
            softnet=(CAPTURES / "softnet_stat/ixgbe_host_32cpu_centos7_10col.txt").read_text(),
            ifname="eno49",
            sysctls={"net.core.somaxconn": "4096"},
        ),
    )


def _show(tree: Path) -> tuple[int, dict[str, object] | None, str]:
    rc, out, err = ran("show", "--root", tree, "eno49", "--json")
    return rc, json.loads(out) if rc == 0 else None, err


def _sparse(path: Path, size: int) -> None:
    with path.open("wb") as f:
        f.truncate(size)


def test_a_huge_one_value_file_is_a_state(tree: Path) -> None:
    _sparse(tree / "proc/sys/net/core/somaxconn", 2 << 20)
    rc, doc, err = _show(tree)
    assert rc == 0 and doc is not None, err
    sysctls = doc["sysctls"]
    assert isinstance(sysctls, list)
    somaxconn = next(s for s in sysctls if s["key"] == "net.core.somaxconn")
    assert somaxconn["value"] is None
    assert somaxconn["unavailable"]["reason"] == ("net.core.somaxconn: larger than 1 MiB, not read")


def test_a_counter_file_past_its_bound_is_named_not_read(tree: Path) -> None:
    _sparse(tree / "proc/interrupts", 80 << 20)
    rc, doc, err = _show(tree)
    assert rc == 0 and doc is not None, err
    assert "tuitune: /proc/interrupts: larger than 64 MiB, not read\n" in err


def test_interrupts_of_a_1152_cpu_host_are_read_whole(tree: Path) -> None:
    """The bound must not cut a real big host: the ixgbe capture's rows at 1152 CPUs, then a
    row whose name makes the file 13 MB (cheap to parse, as big to read)."""
    real = (CAPTURES / "interrupts/ixgbe_32cpu_centos7_grep_eno49.txt").read_text()
    filler = "9999:" + " 0" * 1152 + "  PCI-MSI 1-edge  " + "x" * 13_000_000 + "\n"
    text = scale_interrupts(real, 36) + filler
    assert len(text) > 13_000_000
    (tree / "proc/interrupts").write_text(text)
    rc, doc, err = _show(tree)
    assert rc == 0 and doc is not None, err
    iface = doc["interface"]
    assert isinstance(iface, dict) and len(iface["irqs"]) == 33
