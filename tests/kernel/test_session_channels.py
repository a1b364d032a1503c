"""The journal when a channel change adds or removes queues (issue 22, item 1), on a real veth
in its own namespace: a queue that a raised channel count created has no original to put back;
when `restore` lowers the count again the queue is gone, and that is it restored, not a setting
left over forever."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.cli import main
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

from .conftest import VethNs
from .test_session_roundtrip import multiqueue_veth

pytestmark = pytest.mark.kernel


def one_rx_queue(ns: VethNs) -> str:
    """A veth that can have 2 rx queues but has 1 now (rx-1 does not exist)."""
    dev = multiqueue_veth(ns)
    ns.nsexec("ethtool", "-L", dev, "rx", "1")
    return dev


def queues(ns: VethNs, dev: str) -> list[str]:
    return sorted(ns.nsexec("ls", f"/sys/class/net/{dev}/queues").split())


def restore(ns: VethNs, jdir: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["restore", "--netns", ns.ns, "--journal-dir", str(jdir)])
    out, err = capsys.readouterr()
    return code, out + err


def check_restored_for_good(
    ns: VethNs, dev: str, jdir: Path, capsys: pytest.CaptureFixture[str]
) -> str:
    """Restore; the second restore finds nothing left. Returns what the first printed."""
    code, out = restore(ns, jdir, capsys)
    assert code == 0, out
    assert f"put back {dev} channels rx: 2 -> 1" in out
    assert "NOT put back" not in out
    assert out.splitlines()[-1] == f"restored netns-{ns.ns}: every recorded original is back"
    assert queues(ns, dev) == ["rx-0", "tx-0", "tx-1"]
    assert not list(jdir.glob("*.journal")), "the journal is closed: nothing is left to restore"
    first = out
    code, out = restore(ns, jdir, capsys)
    nothing = f"nothing to restore: no journal for netns-{ns.ns} in {jdir}"
    assert (code, out.splitlines()[0]) == (0, nothing)
    return first


def test_a_kept_trial_that_raised_channels_restores_once_and_for_all(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev, jdir = one_rx_queue(veth_ns), tmp_path / "journal"
    with HostAccess(HostRoot(netns=veth_ns.ns), call=veth_ns.kt.call) as access:
        journal = Journal.open(access, jdir)
        out, trial = journal.apply_trial(Key.field(dev, "channels", "rx"), "2")
        assert out.status == "changed" and trial is not None
        assert journal.confirm()
        # The new queue's settings, as the screen's queue panel would then edit them.
        assert journal.apply(Key.rps_cpus(dev, "rx-1"), "0").status == "changed"
        assert queues(veth_ns, dev) == ["rx-0", "rx-1", "tx-0", "tx-1"]
        journal.detach()  # what kill -9 leaves: the journal on disk, nobody holding it
    out = check_restored_for_good(veth_ns, dev, jdir, capsys)
    assert (
        f"unchanged {dev} rx-1 rps_cpus: absent (gone with its queue: the channel count is "
        "back at its original)"
    ) in out.splitlines()


def test_restore_of_a_profile_that_raised_channels(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev, jdir = one_rx_queue(veth_ns), tmp_path / "journal"
    profile = tmp_path / "more.toml"
    profile.write_text(f'[interface]\nname = "{dev}"\n[interface.channels]\nrx = 2\n')
    code = main(["apply", str(profile), "--netns", veth_ns.ns, "--journal-dir", str(jdir)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"changed {dev} channels rx: 1 -> 2" in out
    check_restored_for_good(veth_ns, dev, jdir, capsys)


def test_revert_all_in_the_session_closes_the_journal(veth_ns: VethNs, tmp_path: Path) -> None:
    """The screen's restore offer and `R` go through revert_all: nothing is left held."""
    dev, jdir = one_rx_queue(veth_ns), tmp_path / "journal"
    with HostAccess(HostRoot(netns=veth_ns.ns), call=veth_ns.kt.call) as access:
        with Journal.open(access, jdir) as journal:
            assert journal.apply(Key.field(dev, "channels", "rx"), "2").status == "changed"
        with Journal.open(access, jdir) as journal:
            outs = journal.revert_all()
            assert all(o.ok for o in outs), [o.describe() for o in outs]
            assert journal.originals() == {}
            assert journal.check_drift() == []
    assert queues(veth_ns, dev) == ["rx-0", "tx-0", "tx-1"]


def test_a_queue_removed_by_a_lower_count_comes_back_with_its_value(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The other way round, the original of a queue the change removed is kept and put back."""
    dev, jdir = multiqueue_veth(veth_ns), tmp_path / "journal"
    veth_ns.nsexec("sh", "-c", f"echo 2 > /sys/class/net/{dev}/queues/rx-1/rps_cpus")
    access = HostAccess(HostRoot(netns=veth_ns.ns), call=veth_ns.kt.call)
    with access, Journal.open(access, jdir) as journal:
        assert journal.apply(Key.field(dev, "channels", "rx"), "1").status == "changed"
    code, out = restore(veth_ns, jdir, capsys)
    assert code == 0, out
    assert f"put back {dev} rx-1 rps_cpus: none -> 1" in out
    assert veth_ns.nsexec("cat", f"/sys/class/net/{dev}/queues/rx-1/rps_cpus").strip() == "2"
    assert not list(jdir.glob("*.journal"))
