"""The live screen's own RTM_GETLINK read and qdisc dump (core/host/rtnl.py) give what
pyroute2 gives, on a veth in a test namespace, and reading a live host no longer loads
pyroute2 (issue 18, goal 5; issue 38: about 200 modules and 8.5 MB the live screen did not
need)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.kernel.conftest import VethNs, run
from tuitune.core.host.rtnl import LinkReader, NetlinkError

FIELDS = (
    "index", "mtu", "min_mtu", "max_mtu", "txqlen", "operstate", "carrier", "address",
    "perm_address", "num_rx_queues", "num_tx_queues",
)  # fmt: skip


def test_a_veth_reads_the_same_as_through_pyroute2(veth_ns: VethNs) -> None:
    run("ip", "-n", veth_ns.ns, "link", "set", veth_ns.a, "mtu", "1400", "txqueuelen", "777")
    run("ip", "netns", "exec", veth_ns.ns, "ping", "-c", "2", "-i", "0.2", "-q", "127.0.0.1")

    def both() -> tuple[dict[str, object], dict[str, object]]:
        from pyroute2 import IPRoute

        ipr, mine = IPRoute(), LinkReader()
        try:
            theirs, ours = (
                ipr.link("get", ifname=veth_ns.a)[0],
                mine.link("get", ifname=veth_ns.a)[0],
            )
            t = {k: theirs.get(k) for k in FIELDS}
            o = {k: ours.get(k) for k in FIELDS}
            t["kind"] = theirs.get("linkinfo").get("kind")
            o["kind"] = ours["linkinfo"]["kind"]
            t["stats"] = {k: theirs.get("stats64").get(k) for k in ("rx_bytes", "tx_packets")}
            o["stats"] = {k: ours["stats64"][k] for k in ("rx_bytes", "tx_packets")}
            return t, o
        finally:
            ipr.close()
            mine.close()

    theirs, ours = veth_ns.kt.call(both)
    assert ours == theirs
    assert ours["mtu"] == 1400 and ours["txqlen"] == 777 and ours["kind"] == "veth"


def test_a_missing_interface_is_an_errno_not_a_hang(veth_ns: VethNs) -> None:
    def ask() -> int:
        mine = LinkReader()
        try:
            mine.link("get", ifname="tt-none0")
        except NetlinkError as exc:
            return exc.code
        finally:
            mine.close()
        return 0

    assert veth_ns.kt.call(ask) == 19  # ENODEV


def test_reading_a_live_interface_loads_no_pyroute2() -> None:
    # lo, read only: a tick and a NIC state read, as the live screen makes them.
    code = (
        "import sys\n"
        "from tuitune.core.host.root import HostRoot\n"
        "from tuitune.core.watch.hostreader import HostReader\n"
        "r = HostReader(HostRoot())\n"
        "c = r.counters('lo')\n"
        "n = r.nic_state('lo', with_stats=False, interrupts=c.interrupts)\n"
        "r.close()\n"
        "assert n.link.mtu and c.link is not None\n"
        "print('pyroute2' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(done.stderr)
    assert done.stdout.strip() == "False"


def test_the_qdisc_dump_reads_the_same_tree_as_through_pyroute2(veth_ns: VethNs) -> None:
    """tbf on one end; htb with a pfifo child, and a bfifo, on the other (fq_codel where this
    kernel has it): the hand-written RTM_GETQDISC dump decodes to the same Qdisc tree."""
    from tuitune.core.host.qdisc import from_messages, read_qdiscs

    ns, a, b = veth_ns.ns, veth_ns.a, veth_ns.b
    run("tc", "-n", ns, "qdisc", "add", "dev", a, "root", "tbf", "rate", "100mbit", "burst",
        "32kbit", "latency", "400ms", "peakrate", "200mbit", "mtu", "1514")  # fmt: skip
    run("tc", "-n", ns, "qdisc", "add", "dev", b, "root", "handle", "1:", "htb", "default", "10")
    run("tc", "-n", ns, "class", "add", "dev", b, "parent", "1:", "classid", "1:10", "htb",
        "rate", "50mbit")  # fmt: skip
    run("tc", "-n", ns, "class", "add", "dev", b, "parent", "1:", "classid", "1:20", "htb",
        "rate", "50mbit")  # fmt: skip
    run("tc", "-n", ns, "qdisc", "add", "dev", b, "parent", "1:10", "handle", "10:", "pfifo",
        "limit", "100")  # fmt: skip
    codel = subprocess.run(
        ["tc", "-n", ns, "qdisc", "add", "dev", b, "parent", "1:20", "handle", "20:",
         "fq_codel", "limit", "999", "flows", "64", "quantum", "1000"],
        capture_output=True,
    )  # fmt: skip
    if codel.returncode != 0:
        run("tc", "-n", ns, "qdisc", "add", "dev", b, "parent", "1:20", "handle", "20:",
            "bfifo", "limit", "30000")  # fmt: skip

    def both() -> list[tuple[object, object]]:
        import socket

        from pyroute2 import IPRoute

        ipr, mine = IPRoute(), LinkReader()
        try:
            out = []
            for dev in (a, b):
                idx = socket.if_nametoindex(dev)
                out.append((read_qdiscs(ipr, idx), from_messages(mine.qdiscs(idx))))
            return out
        finally:
            ipr.close()
            mine.close()

    (tbf_t, tbf_o), (htb_t, htb_o) = veth_ns.kt.call(both)
    assert tbf_o == tbf_t and htb_o == htb_t
    assert tbf_o[0].options["rate"] == 100_000_000 and tbf_o[0].options["peakrate"]
    kinds = [q.kind for q in htb_o]
    assert kinds[0] == "htb" and "pfifo" in kinds and len(kinds) == 3
    assert htb_o[0].options == {"default": "10"}
