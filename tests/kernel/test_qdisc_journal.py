"""The root qdisc as a journaled setting, against the real kernel on a two-queue veth in its
own namespace. This machine's kernel has tbf, pfifo, pfifo_fast and mq but no fq (CRIB):
fq is refused here as a state, with the original kept; fq itself is exercised in unit tests
with a fake sender and in the VM bench's kernel. Checked with `tc`, not tuitune's reads."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import VethNs
from .test_session_roundtrip import multiqueue_veth

pytestmark = pytest.mark.kernel


@pytest.fixture
def dev_access(veth_ns: VethNs) -> Iterator[tuple[str, HostAccess]]:
    dev = multiqueue_veth(veth_ns)
    access = HostAccess(HostRoot(netns=veth_ns.ns), call=veth_ns.kt.call)
    yield dev, access
    access.close()


def tc(ns: VethNs, dev: str) -> str:
    return ns.nsexec("tc", "qdisc", "show", "dev", dev)


def test_mq_tbf_set_read_back_and_restored_to_the_kernel_default(
    veth_ns: VethNs, dev_access: tuple[str, HostAccess], tmp_path: Path
) -> None:
    dev, access = dev_access
    assert "noqueue 0: root" in tc(veth_ns, dev)  # the kernel's own for a veth
    journal = Journal.open(access, tmp_path)
    out = journal.apply(Key.qdisc(dev), "mq tbf rate 10mbit burst 5k")
    assert out.status == "changed", out.reason
    assert out.before == "default"
    assert out.after == "mq tbf rate 10000000 burst 5120 limit 67620"
    shown = tc(veth_ns, dev)
    assert "mq 1: root" in shown
    assert shown.count("qdisc tbf") == 2 and "rate 10Mbit burst 5Kb lat 50" in shown
    journal.close_restoring(False)
    assert "noqueue 0: root" in tc(veth_ns, dev) and "tbf" not in tc(veth_ns, dev)


def test_a_tree_set_by_tc_comes_back_exactly(
    veth_ns: VethNs, dev_access: tuple[str, HostAccess], tmp_path: Path
) -> None:
    dev, access = dev_access
    veth_ns.nsexec("tc", "qdisc", "add", "dev", dev, "root", "tbf", "rate", "100mbit",
                   "burst", "32kb", "latency", "400ms")  # fmt: skip
    before = tc(veth_ns, dev).split("root")[1]
    journal = Journal.open(access, tmp_path)
    original = access.read(Key.qdisc(dev))
    assert isinstance(original, str) and original.startswith("tbf rate 100000000 burst 32768")
    assert journal.apply(Key.qdisc(dev), "pfifo limit 77").status == "changed"
    assert "pfifo 8" in tc(veth_ns, dev) and "limit 77p" in tc(veth_ns, dev)
    (undone,) = journal.undo()
    assert undone.status == "changed", undone.reason
    assert access.read(Key.qdisc(dev)) == original
    assert tc(veth_ns, dev).split("root")[1] == before  # rate, burst, limit as tc shows them
    journal.close_restoring(False)


@pytest.mark.parametrize(
    ("tree", "value", "outcome", "still", "read"),
    [
        # fq is missing from this kernel: a refusal, the pfifo and its limit as they were.
        (
            ["pfifo", "limit", "50"],
            "fq maxrate 1gbit",
            ({"refused", "failed"}, "no fq qdisc"),
            ["pfifo", "limit 50p"],
            "pfifo limit 50",
        ),
        # a tree with classes is the user's own: left alone.
        (
            ["handle", "1:", "htb"],
            "pfifo_fast",
            ({"refused"}, "leaves it alone"),
            ["htb 1: root"],
            None,
        ),
    ],
    ids=["fq-missing", "classes"],
)
def test_a_qdisc_it_cannot_set_is_refused_and_nothing_changes(
    veth_ns: VethNs,
    dev_access: tuple[str, HostAccess],
    tmp_path: Path,
    tree: list[str],
    value: str,
    outcome: tuple[set[str], str],
    still: list[str],
    read: str | None,
) -> None:
    dev, access = dev_access
    veth_ns.nsexec("tc", "qdisc", "add", "dev", dev, "root", *tree)
    before = access.read(Key.qdisc(dev))
    assert read is None or before == read
    journal = Journal.open(access, tmp_path)
    out = journal.apply(Key.qdisc(dev), value)
    assert out.status in outcome[0] and outcome[1] in out.reason, out
    shown = tc(veth_ns, dev)
    assert all(s in shown for s in still), shown
    assert access.read(Key.qdisc(dev)) == before
    journal.close_restoring(False)


def test_the_exported_tc_lines_verify_against_the_kernel(
    veth_ns: VethNs, dev_access: tuple[str, HostAccess], tmp_path: Path
) -> None:
    """The udev rules' tc lines read back by `verify`: equal while the tree is as exported,
    one difference once someone else changes it. The device's settings list the qdisc."""
    from tuitune.core.export import Change, DeviceMatch, ExportContext, build_plan, verify

    dev, access = dev_access
    assert Key.qdisc(dev) in access.device_keys(dev)
    journal = Journal.open(access, tmp_path / "journal")
    assert journal.apply(Key.qdisc(dev), "mq tbf rate 10mbit burst 5k").status == "changed"
    live = access.read(Key.qdisc(dev))
    assert isinstance(live, str)
    ctx = ExportContext(ifname=dev, match=DeviceMatch("name", dev), etc=tmp_path / "etc")
    (rules,) = build_plan([Change(Key.qdisc(dev), "default", live)], ctx, ("udev",)).files
    rules.path.parent.mkdir(parents=True)
    rules.path.write_text(rules.text)

    def check() -> list[str]:
        report = verify([rules.path], lambda _ns: HostAccess(HostRoot(netns=veth_ns.ns)))
        assert report.checked == 1 and not report.problems
        return [str(d) for d in report.differences]

    assert check() == []
    veth_ns.nsexec("tc", "qdisc", "replace", "dev", dev, "parent", "1:1", "pfifo")
    (diff,) = check()
    assert "root qdisc: file says mq tbf rate 10000000" in diff
    journal.close_restoring(False)
