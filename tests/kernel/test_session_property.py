"""Property: any sequence of edits across features, channels, MTU, txqueuelen, RPS/XPS and
per-namespace sysctls on a real veth, plus host-wide sysctls that the same namespace session
changes through a host tree (a fixture: tests never write this machine's global sysctls),
then "revert all", leaves everything exactly as it was, as ip, ethtool, /sys, sysctl and the
tree's files show it."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import VethNs
from .test_session_roundtrip import multiqueue_veth

pytestmark = pytest.mark.kernel

FEATURES = (
    "tx-checksum-ip-generic",
    "tx-scatter-gather",
    "tx-tcp-segmentation",
    "tx-generic-segmentation",
    "rx-gro",
    "tx-nocache-copy",
)
SYSCTLS = {
    "net.core.somaxconn": st.sampled_from(["128", "1024", "65535"]),
    "net.ipv4.tcp_rmem": st.sampled_from(["4096 87380 6291456", "8192 65536 1048576"]),
    "net.ipv4.tcp_sack": st.sampled_from(["0", "1"]),
    "net.ipv4.tcp_notsent_lowat": st.sampled_from(["16384", "131072"]),
}
# Host-wide: a namespace session writes them through its host tree.
HOST_WIDE = {
    "net.core.rmem_max": st.sampled_from(["212992", "16777216", "67108864"]),
    "net.core.netdev_max_backlog": st.sampled_from(["1000", "250000"]),
    "net.ipv4.tcp_mem": st.sampled_from(["18951 25269 37902", "1 2 3"]),
}
HOST_START = {"net.core.rmem_max": "212992", "net.core.netdev_max_backlog": "1000"}
HOST_START["net.ipv4.tcp_mem"] = "18951\t25269\t37902"  # the kernel's own separator
CPUS = st.sampled_from(["none", "0", "1", "0-1"])


def edits(dev: str) -> st.SearchStrategy[tuple[Key | str, str]]:
    q = ("rx-0", "rx-1")
    t = ("tx-0", "tx-1")
    return st.one_of(
        st.tuples(
            st.sampled_from([Key.feature(dev, f) for f in FEATURES]), st.sampled_from(["on", "off"])
        ),
        st.tuples(
            st.sampled_from([Key.field(dev, "channels", f) for f in ("rx", "tx")]),
            st.sampled_from(["1", "2"]),
        ),
        st.tuples(st.just(Key.mtu(dev)), st.sampled_from(["1280", "1500", "9000"])),
        st.tuples(st.just(Key.txqueuelen(dev)), st.sampled_from(["0", "500", "1000", "20000"])),
        st.tuples(st.sampled_from([Key.rps_cpus(dev, n) for n in q]), CPUS),
        st.tuples(st.sampled_from([Key.xps_cpus(dev, n) for n in t]), CPUS),
        st.tuples(
            st.sampled_from([Key.rps_flow_cnt(dev, n) for n in q]),
            st.sampled_from(["0", "64", "1024"]),
        ),
        st.sampled_from(list(SYSCTLS)).flatmap(
            lambda k: st.tuples(st.just(Key.sysctl(k)), SYSCTLS[k])
        ),
        st.sampled_from(list(HOST_WIDE)).flatmap(
            lambda k: st.tuples(st.just(Key.sysctl(k)), HOST_WIDE[k])
        ),
        st.just(("undo", "")),
    )


def host_tree(base: Path) -> Path:
    for key, value in HOST_START.items():
        path = base / "proc/sys" / key.replace(".", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
    return base


def state(ns: VethNs, dev: str, tree: Path | None = None) -> dict[str, str]:
    """Everything the edits can touch, read with the system's own tools (and the tree's
    files with their whitespace folded: the kernel prints a triple with tabs whatever was
    written, a plain file keeps what was written)."""
    queues = ns.nsexec("ls", f"/sys/class/net/{dev}/queues").split()
    files = [
        f"{q}/{f}"
        for q in queues
        for f in (("rps_cpus", "rps_flow_cnt") if q.startswith("rx") else ("xps_cpus",))
    ]
    values = ns.nsexec(
        "sh", "-c", " ".join(f"cat /sys/class/net/{dev}/queues/{f};" for f in files)
    ).split()
    out = dict(zip(files, values, strict=True))
    out["ethtool -k"] = ns.nsexec("ethtool", "-k", dev)
    out["ethtool -l"] = ns.nsexec("ethtool", "-l", dev)
    out["link"] = ns.ip("link", "show", dev).split("\n")[0].split(">", 1)[1]
    out["sysctl"] = ns.nsexec("sysctl", *SYSCTLS)
    for key in HOST_WIDE if tree is not None else ():
        out[key] = " ".join((tree / "proc/sys" / key.replace(".", "/")).read_text().split())
    return out


# Values someone set before tuitune started: a lower channel count destroys them, so "revert
# all" (and undo) must bring back these, not the kernel's defaults.
PRESET = st.fixed_dictionaries(
    {
        "rx-1/rps_cpus": st.sampled_from(["0", "1", "2", "3"]),
        "rx-1/rps_flow_cnt": st.sampled_from(["0", "32"]),
        "tx-1/xps_cpus": st.sampled_from(["0", "1", "3"]),
    }
)


def preset(ns: VethNs, dev: str, values: dict[str, str]) -> None:
    script = " ".join(f"echo {v} > /sys/class/net/{dev}/queues/{f};" for f, v in values.items())
    ns.nsexec("sh", "-c", script)


def test_random_edits_then_revert_all_restore_everything(veth_ns: VethNs, tmp_path: Path) -> None:
    dev = multiqueue_veth(veth_ns)
    tree = host_tree(tmp_path / "host")
    machine = {k: Path("/proc/sys", k.replace(".", "/")).read_text() for k in HOST_WIDE}
    counter = itertools.count()
    statuses: set[str] = set()

    @settings(
        max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True
    )
    @given(PRESET, st.lists(edits(dev), min_size=1, max_size=10))
    def run(values: dict[str, str], seq: list[tuple[Key | str, str]]) -> None:
        preset(veth_ns, dev, values)
        before = state(veth_ns, dev, tree)
        undo_to: list[dict[str, str]] = []  # the state before each step, for undo
        root = HostRoot(netns=veth_ns.ns)
        host = HostRoot.fixture(tree)
        with HostAccess(root, call=veth_ns.kt.call, host=host, host_writes=True) as access:
            j = Journal.open(access, tmp_path / str(next(counter)))
            for key, value in seq:
                if isinstance(key, str):
                    outs = j.undo()
                    statuses.update(o.status for o in outs)
                    assert all(o.ok for o in outs), outs
                    if undo_to:
                        assert state(veth_ns, dev, tree) == undo_to.pop()
                    continue
                now = state(veth_ns, dev, tree)
                out = j.apply(key, value)
                statuses.add(out.status)
                # A queue may be gone (channels lowered): refused, never half-done.
                assert out.ok or (out.status == "refused" and "no queue" in (out.reason or "")), out
                if out.status == "changed":
                    undo_to.append(now)
            outs = j.close_restoring()
            assert all(o.ok for o in outs), outs
            assert not j.path.exists()
        assert state(veth_ns, dev, tree) == before

    try:
        run()
        assert {"changed", "skipped"} <= statuses
        # The machine's own host-wide values were never the target.
        assert {k: Path("/proc/sys", k.replace(".", "/")).read_text() for k in HOST_WIDE} == machine
    finally:
        preset(veth_ns, dev, {"rx-1/rps_cpus": "0", "rx-1/rps_flow_cnt": "0", "tx-1/xps_cpus": "0"})
