"""Trial changes on a recorded host tree: confirm, revert, and the detached watchdog that puts
a change back when tuitune is gone; plus which changes are risky and the SSH interface."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key, is_risky, ssh_interface
from tuitune.core.session import watchdog_process as wd
from tuitune.core.session.journal import TRIAL_PENDING
from tuitune.core.session.journal_file import read_records
from tuitune.core.session.risk import route_interface, ssh_client

DEV = "eno49"
IRQ = Key.irq(101, "eno49-TxRx-0", DEV)
BACKLOG = Key.sysctl("net.core.netdev_max_backlog")


def eventually(check: Callable[[], bool], limit: float = 20.0) -> bool:
    """Wait for something another process does; the limit only bounds a hang."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


class Tree:
    def __init__(self, base: Path) -> None:
        self.path = build_host(base / "host")
        self.dir = base / "journal"
        self.access = HostAccess(HostRoot.fixture(self.path))

    def affinity(self) -> str:
        return (self.path / "proc/irq/101/smp_affinity_list").read_text().strip()


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Tree]:
    t = Tree(tmp_path)
    yield t
    t.access.close()


def test_confirm_keeps_the_change_and_ends_the_watchdog(tree: Tree) -> None:
    with Journal.open(tree.access, tree.dir) as j:
        out, trial = j.apply_trial(IRQ, "1", seconds=60)
        assert out.status == "changed" and trial is not None
        assert trial.pid and wd.is_watchdog(trial.pid)
        assert 0 < trial.remaining() <= 60
        assert j.trial == trial
        other = j.apply(BACKLOG, "5")
        assert (other.status, other.reason) == ("refused", TRIAL_PENDING)
        assert j.confirm()
        assert j.trial is None and not j.confirm()
        assert j.last_trial_end is not None and j.last_trial_end.how == "confirmed"
        assert eventually(lambda: not wd.is_watchdog(trial.pid or 0))
        assert tree.affinity() == "1"
        assert j.apply(BACKLOG, "5").status == "changed"  # free again
        assert [o.key for o in j.undo()] == [BACKLOG]
        assert [o.key for o in j.undo()] == [IRQ]  # a confirmed trial is an ordinary step
    assert tree.affinity() == "0-3"


def test_revert_trial_puts_it_back_now(tree: Tree) -> None:
    with Journal.open(tree.access, tree.dir) as j:
        _, trial = j.apply_trial(IRQ, "2", seconds=60)
        assert trial is not None
        [out] = j.revert_trial()
        assert (out.status, out.after) == ("changed", "0-3")
        assert j.last_trial_end is not None
        assert (j.last_trial_end.how, j.last_trial_end.by) == ("reverted", "tuitune")
        assert j.originals() == {} and not j.can_undo
        assert eventually(lambda: not wd.is_watchdog(trial.pid or 0))
    assert tree.affinity() == "0-3"


def test_undo_and_close_put_a_pending_trial_back(tree: Tree) -> None:
    j = Journal.open(tree.access, tree.dir)
    j.apply_trial(IRQ, "2", seconds=60)
    assert [o.status for o in j.undo()] == ["changed"]
    assert tree.affinity() == "0-3"
    j.apply_trial(IRQ, "2", seconds=60)
    j.close_keeping_changes()  # keeping means the confirmed changes; a trial was never confirmed
    assert tree.affinity() == "0-3"


def test_the_watchdog_puts_it_back_when_tuitune_is_gone(tree: Tree) -> None:
    j = Journal.open(tree.access, tree.dir)
    _, trial = j.apply_trial(IRQ, "1-2", seconds=0.5)
    assert trial is not None and tree.affinity() == "1-2"
    path = j.path
    j.detach()  # tuitune lost: nobody confirms, nobody counts down
    assert eventually(lambda: tree.affinity() == "0-3")
    assert eventually(lambda: not wd.is_watchdog(trial.pid or 0))
    [end] = [r for r in read_records(path) if r["t"] == "trial-end"]
    assert (end["how"], end["by"], end["value"]) == ("reverted", "watchdog", "0-3")
    assert end["time"] >= trial.deadline
    with Journal.open(tree.access, tree.dir) as again:
        assert again.trial is None and again.originals() == {} and not again.can_undo


def test_the_watchdog_leaves_a_value_someone_else_set(tree: Tree) -> None:
    j = Journal.open(tree.access, tree.dir)
    j.apply_trial(IRQ, "1", seconds=0.3)
    j.detach()
    (tree.path / "proc/irq/101/smp_affinity_list").write_text("2\n")
    assert eventually(lambda: any(r["t"] == "trial-end" for r in read_records(j.path)))
    [end] = [r for r in read_records(j.path) if r["t"] == "trial-end"]
    assert (end["how"], end["value"]) == ("drift", "2")
    assert tree.affinity() == "2"


def test_no_watchdog_no_trial(tree: Tree, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(spec: object) -> int:
        raise OSError("no python")

    monkeypatch.setattr(wd, "spawn", broken)
    with Journal.open(tree.access, tree.dir) as j:
        out, trial = j.apply_trial(IRQ, "1", seconds=30)
        assert trial is None and out.status == "failed"
        assert (
            out.reason == "not applied: the revert watchdog could not start (no python); put back"
        )
        assert j.trial is None
    assert tree.affinity() == "0-3"


def test_trial_time_is_checked(tree: Tree) -> None:
    with Journal.open(tree.access, tree.dir) as j, pytest.raises(ValueError):
        j.apply_trial(IRQ, "1", seconds=0)


@pytest.mark.parametrize(
    ("key", "ssh", "risky"),
    [
        (Key.mtu("eth1"), None, True),
        (Key.field("eth1", "channels", "combined"), "eth0", True),
        (Key.field("eth1", "ring", "rx"), None, True),
        (Key.field("eth1", "pause", "rx"), None, True),
        (Key.feature("eth1", "rx-gro"), "eth0", False),
        (Key.feature("eth0", "rx-gro"), "eth0", True),
        (Key.rps_cpus("eth0", "rx-0"), "eth0", True),
        (Key.irq(45, "eth0-TxRx-0", "eth0"), "eth0", True),
        (Key.irq(45, "eth1-TxRx-0", "eth1"), "eth0", False),
        (Key.sysctl("net.core.somaxconn"), "eth0", False),
        (Key.field("eth1", "coalesce", "rx-usecs"), None, False),
    ],
)
def test_is_risky(key: Key, ssh: str | None, risky: bool) -> None:
    assert is_risky(key, ssh) is risky


@pytest.mark.parametrize(
    ("value", "client"),
    [
        ("192.0.2.7 50022 192.0.2.1 22", "192.0.2.7"),
        ("2001:db8::7 50022 2001:db8::1 22", "2001:db8::7"),
        ("::ffff:192.0.2.7 50022 ::ffff:192.0.2.1 22", "192.0.2.7"),
        ("fe80::1%eth0 50022 fe80::2%eth0 22", "fe80::1"),
        ("", None),
        ("garbage", None),
        ("999.1.1.1 1 2 3", None),
    ],
)
def test_ssh_client(value: str, client: str | None) -> None:
    assert ssh_client({"SSH_CONNECTION": value}) == client


ROUTE = """\
Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT
eth0\t00000000\t010200C0\t0003\t0\t0\t100\t00000000\t0\t0\t0
eth1\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0
eth2\t000200C0\t00000000\t0001\t0\t0\t50\t00FFFFFF\t0\t0\t0
eth3\t0000000A\t00000000\t0000\t0\t0\t0\t000000FF\t0\t0\t0
"""
Z32 = "0" * 32
ROUTE6 = "".join(
    f"{dest} {plen} {Z32} 00 {hop} {metric} 00000001 00000000 {flags}     {dev}\n"
    for dest, plen, hop, metric, flags, dev in (
        ("20010db8" + "0" * 24, "20", Z32, "00000100", "00000001", "eth4"),
        (Z32, "00", "fd" + "0" * 29 + "1", "00000400", "00000003", "eth0"),
    )
)


def test_the_ssh_interface_is_the_route_to_the_client(tmp_path: Path) -> None:
    tree = build_host(tmp_path / "h")
    (tree / "proc/net/route").write_text(ROUTE)
    (tree / "proc/net/ipv6_route").write_text(ROUTE6)
    root = HostRoot.fixture(tree)
    assert route_interface(root, "192.0.2.7") == "eth1"  # /24 beats default; metric 0 beats 50
    assert route_interface(root, "198.51.100.1") == "eth0"  # the default route
    assert route_interface(root, "10.0.0.1") == "eth0"  # eth3's route is down
    assert route_interface(root, "2001:db8::7") == "eth4"
    assert route_interface(root, "2001:db9::7") == "eth0"
    env = {"SSH_CONNECTION": "192.0.2.7 50022 192.0.2.1 22"}
    assert ssh_interface(root, env) == "eth1"
    assert ssh_interface(root, {}) is None
