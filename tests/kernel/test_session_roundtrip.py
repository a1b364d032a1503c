"""The change journal against the real kernel, in a throwaway namespace: every editable kind
is written, read back (checked with ip/ethtool//sys, not with tuitune's own reads), undone, and
read back as the original. Nothing here touches the host's interfaces or global sysctls."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tuitune.core.host.ethtool import Ethtool, requested_snapshot
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import VethNs

pytestmark = pytest.mark.kernel


@dataclass
class Lab:
    ns: VethNs
    dev: str  # a veth with 2 rx and 2 tx queues, inside ns.ns
    access: HostAccess
    journal_dir: Path

    def sh(self, *args: str) -> str:
        return self.ns.nsexec(*args)

    def sys(self, rel: str) -> str:
        return self.sh("cat", f"/sys/class/net/{self.dev}/{rel}").strip()

    def sysctl(self, key: str) -> str:
        return " ".join(self.sh("sysctl", "-n", key).split())

    def link(self) -> dict[str, str]:
        out = self.ns.ip("-d", "link", "show", self.dev)
        return {
            "mtu": re.search(r" mtu (\d+)", out).group(1),  # type: ignore[union-attr]
            "qlen": re.search(r" qlen (\d+)", out).group(1),  # type: ignore[union-attr]
        }

    def channels(self) -> str:
        return self.sh("ethtool", "-l", self.dev).split("Current hardware settings:")[1]

    def open(self) -> Journal:
        return Journal.open(self.access, self.journal_dir)


def multiqueue_veth(ns: VethNs) -> str:
    dev, peer = ns.a[:-1] + "q", ns.a[:-1] + "r"
    q = ("numrxqueues", "2", "numtxqueues", "2")
    ns.ip("link", "add", dev, *q, "type", "veth", "peer", "name", peer, *q)
    ns.ip("link", "set", dev, "up")
    ns.ip("link", "set", peer, "up")
    return dev


@pytest.fixture
def lab(veth_ns: VethNs, tmp_path: Path) -> Iterator[Lab]:
    dev = multiqueue_veth(veth_ns)
    access = HostAccess(HostRoot(netns=veth_ns.ns), call=veth_ns.kt.call)
    yield Lab(veth_ns, dev, access, tmp_path / "journal")
    access.close()


def available_cc(lab: Lab) -> str:
    current = lab.sysctl("net.ipv4.tcp_congestion_control")
    choices = lab.sysctl("net.ipv4.tcp_available_congestion_control").split()
    return next(c for c in choices if c != current)


CASES: list[tuple[str, Callable[[str], Key], str, Callable[[Lab], str]]] = [
    ("gro", lambda d: Key.feature(d, "rx-gro"), "on", lambda lab: lab.sh("ethtool", "-k", lab.dev)),
    (
        "csum",
        lambda d: Key.feature(d, "tx-checksum-ip-generic"),
        "off",
        lambda lab: lab.sh("ethtool", "-k", lab.dev),
    ),
    ("channels", lambda d: Key.field(d, "channels", "rx"), "1", Lab.channels),
    ("mtu", Key.mtu, "9000", lambda lab: lab.link()["mtu"]),
    ("txqueuelen", Key.txqueuelen, "5000", lambda lab: lab.link()["qlen"]),
    ("rps", lambda d: Key.rps_cpus(d, "rx-1"), "0-1", lambda lab: lab.sys("queues/rx-1/rps_cpus")),
    ("xps", lambda d: Key.xps_cpus(d, "tx-1"), "1", lambda lab: lab.sys("queues/tx-1/xps_cpus")),
    (
        "flows",
        lambda d: Key.rps_flow_cnt(d, "rx-0"),
        "256",
        lambda lab: lab.sys("queues/rx-0/rps_flow_cnt"),
    ),
    (
        "somaxconn",
        lambda d: Key.sysctl("net.core.somaxconn"),
        "1234",
        lambda lab: lab.sysctl("net.core.somaxconn"),
    ),
    (
        "tcp_rmem",
        lambda d: Key.sysctl("net.ipv4.tcp_rmem"),
        "8192 65536 1048576",
        lambda lab: lab.sysctl("net.ipv4.tcp_rmem"),
    ),
    (
        "tcp_sack",
        lambda d: Key.sysctl("net.ipv4.tcp_sack"),
        "0",
        lambda lab: lab.sysctl("net.ipv4.tcp_sack"),
    ),
]


@pytest.mark.parametrize(("name", "make", "value", "probe"), CASES, ids=[c[0] for c in CASES])
def test_every_kind_round_trips(
    lab: Lab, name: str, make: Callable[[str], Key], value: str, probe: Callable[[Lab], str]
) -> None:
    key = make(lab.dev)
    before_cli = probe(lab)
    original = lab.access.read(key)
    with lab.open() as j:
        out = j.apply(key, value)
        assert (out.status, out.before, out.after) == ("changed", original, value), out
        assert probe(lab) != before_cli
        assert lab.access.read(key) == value
        assert j.originals()[key] == original
        undone = j.undo()
        assert undone and all(o.ok for o in undone)
        assert probe(lab) == before_cli  # what ip/ethtool//sys show, exactly as before
        assert j.originals() == {}


def test_the_kernel_holds_what_was_asked_for(lab: Lab) -> None:
    with lab.open() as j:
        assert j.apply(Key.rps_cpus(lab.dev, "rx-1"), "0-1").ok
        assert j.apply(Key.xps_cpus(lab.dev, "tx-1"), "1").ok
        assert j.apply(Key.mtu(lab.dev), "9000").ok
        assert j.apply(Key.field(lab.dev, "channels", "rx"), "1").ok
        assert lab.sys("queues/tx-1/xps_cpus") == "2"
        assert lab.link()["mtu"] == "9000"
        assert "rx-1" not in lab.sh("ls", f"/sys/class/net/{lab.dev}/queues")
        assert re.search(r"RX:\s+1\n", lab.channels())
        j.close_restoring()
    assert lab.sys("queues/rx-1/rps_cpus") == "0"
    assert lab.link()["mtu"] == "1500"


def test_a_choice_sysctl_round_trips(lab: Lab) -> None:
    key = Key.sysctl("net.ipv4.tcp_congestion_control")
    before = lab.sysctl(key.name)
    with lab.open() as j:
        assert j.apply(key, available_cc(lab)).status == "changed"
        assert lab.sysctl(key.name) != before
        j.revert_all()
    assert lab.sysctl(key.name) == before


def test_exact_requested_feature_bits_after_revert(lab: Lab) -> None:
    """CRIB's restore trap: `tx on` after `tx off` is not the original state. The journal
    restores each feature's requested bit, so `ethtool -k` (with its [requested on] notes)
    reads exactly as before."""
    et = Ethtool(lab.dev)
    original = lab.ns.kt.call(et.features)
    assert isinstance(original, tuple)
    text = lab.sh("ethtool", "-k", lab.dev)
    with lab.open() as j:
        csum = j.apply(Key.feature(lab.dev, "tx-checksum-ip-generic"), "off")
        # TSO goes off with tx checksumming, but its wish stays: shown as an effect.
        assert csum.status == "changed"
        assert any(e.key.name == "tx-tcp-segmentation" and e.after == "off" for e in csum.also)
        assert "tx-tcp-segmentation: off [requested on]" in lab.sh("ethtool", "-k", lab.dev)
        changes = [
            (Key.feature(lab.dev, n), "off")
            for n in ("tx-scatter-gather", "tx-generic-segmentation")
        ]
        changes.append((Key.feature(lab.dev, "rx-gro"), "on"))
        assert all(o.ok for o in j.apply_all(changes))
        assert all(o.ok for o in j.revert_all())
    now = lab.ns.kt.call(et.features)
    lab.ns.kt.call(et.close)
    assert now == original  # active, requested, available: every bit of every feature
    assert isinstance(now, tuple) and requested_snapshot(now) == requested_snapshot(original)
    assert lab.sh("ethtool", "-k", lab.dev) == text


def test_coalescing_round_trips_on_a_tap(lab: Lab) -> None:
    tap = lab.dev[:-1] + "t"
    lab.ns.ip("tuntap", "add", "mode", "tap", "name", tap)
    try:
        key = Key.field(tap, "coalesce", "rx-frames")
        before = lab.sh("ethtool", "-c", tap)
        with lab.open() as j:
            assert j.apply(key, "8").status == "changed"
            assert "rx-frames: 8" in lab.sh("ethtool", "-c", tap)
            j.undo()
        assert lab.sh("ethtool", "-c", tap) == before
    finally:
        subprocess.run(
            ["ip", "-n", lab.ns.ns, "link", "del", tap], check=False, capture_output=True
        )


@pytest.mark.parametrize(
    ("key", "reason"),
    [
        (lambda d: Key.field(d, "ring", "rx"), "rings rx: not supported by veth"),
        (lambda d: Key.field(d, "pause", "rx"), "pause rx: not supported by veth"),
        (lambda d: Key.feature(d, "tx-checksum-ipv4"), "tx-checksum-ipv4: fixed"),
        (lambda d: Key.sysctl("net.core.rmem_max"), "is host-wide: not changed from inside"),
    ],
    ids=["rings", "pause", "fixed-feature", "host-sysctl"],
)
def test_kernel_refusals_are_states(lab: Lab, key: Callable[[str], Key], reason: str) -> None:
    k = key(lab.dev)
    with lab.open() as j:
        out = j.apply(k, "on" if k.kind in ("pause", "feature") else "256")
        assert out.status == "refused" and out.state is not None
        assert reason in (out.reason or "")
        assert j.originals() == {}


NO_NET_ADMIN = """
import sys
from pathlib import Path
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
dev, jdir = sys.argv[1], Path(sys.argv[2])
with HostAccess(HostRoot()) as access, Journal.open(access, jdir) as j:
    for key, value in ((Key.field(dev, "channels", "rx"), "1"), (Key.mtu(dev), "9000")):
        out = j.apply(key, value)
        print(out.status, out.state.kind if out.state else None, out.reason, sep="|")
    print(len(j.originals()))
"""


def test_a_kernel_refusal_leaves_kernel_and_journal_as_they_were(lab: Lab) -> None:
    """Without CAP_NET_ADMIN the kernel says EPERM after the journal has recorded the
    originals: the outcome is a permission state, and nothing stays changed or recorded."""
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv (util-linux)")
    channels, mtu = lab.channels(), lab.link()["mtu"]
    drop = ["setpriv", "--inh-caps=-net_admin", "--bounding-set=-net_admin"]
    cmd = ["ip", "netns", "exec", lab.ns.ns, *drop, sys.executable, "-c", NO_NET_ADMIN]
    repo = Path(__file__).resolve().parents[2]
    run = subprocess.run(
        [*cmd, lab.dev, str(lab.journal_dir)], capture_output=True, text=True, cwd=repo
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == [
        f"refused|permission|{lab.dev} channels rx: changing it needs root (CAP_NET_ADMIN)",
        f"refused|permission|{lab.dev} mtu: changing it needs root",
        "0",
    ]
    assert (lab.channels(), lab.link()["mtu"]) == (channels, mtu)
