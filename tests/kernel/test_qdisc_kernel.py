"""The qdisc tree read back from the kernel: tbf and htb (what this machine's kernel has; fq
lives in the VM bench's Debian kernel) on a veth in its own namespace."""

from __future__ import annotations

from tuitune.core.host.qdisc import Qdisc
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.report.queues import qdisc_text

from .conftest import VethNs, run


def read(v: VethNs) -> tuple[Qdisc, ...]:
    with HostReader(HostRoot(netns=v.ns)) as reader:
        got = reader.qdiscs(v.a)
    assert isinstance(got, tuple)
    return got


def test_tbf_rate_read_back(veth_ns: VethNs) -> None:
    run("tc", "-n", veth_ns.ns, "qdisc", "add", "dev", veth_ns.a, "root", "tbf", "rate",
        "100mbit", "burst", "32kbit", "latency", "400ms")  # fmt: skip
    (tbf,) = read(veth_ns)
    assert (tbf.kind, tbf.parent) == ("tbf", "root")
    assert tbf.options["rate"] == 100_000_000 and tbf.paces
    assert "tbf root rate 100 Mb/s" in qdisc_text((tbf,)).plain


def test_htb_tree_with_a_child(veth_ns: VethNs) -> None:
    ns, dev = veth_ns.ns, veth_ns.a
    run("tc", "-n", ns, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10")
    run("tc", "-n", ns, "class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb",
        "rate", "50mbit")  # fmt: skip
    run("tc", "-n", ns, "qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:", "pfifo",
        "limit", "100")  # fmt: skip
    tree = read(veth_ns)
    assert [(q.kind, q.handle, q.parent) for q in tree] == [
        ("htb", "1:", "root"),
        ("pfifo", "10:", "1:10"),
    ]
    assert tree[0].options == {"default": "10"}


def test_a_fresh_veth_has_noqueue(veth_ns: VethNs) -> None:
    assert read(veth_ns) == () or {q.kind for q in read(veth_ns)} <= {"noqueue"}
