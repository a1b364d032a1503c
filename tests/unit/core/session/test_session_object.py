"""`Session` on a recorded host tree: the journal opens at the first change and not before,
journal calls take turns, drift and lasting refusals are kept per setting, and each way of
letting go of the journal leaves the files it says it does."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.session_fakes import FakeDevice, build_host, eio_on
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, JournalBusy, Key, Session, read_only_reason
from tuitune.core.session.journal_file import journal_path
from tuitune.core.session.outcome import Outcome
from tuitune.core.values import Unavailable

DEV = "eno49"
IRQ101 = Key.irq(101, "eno49-TxRx-0", DEV)
MANAGED = Key.irq(150, "nvme0q1")


class Host:
    def __init__(self, base: Path) -> None:
        self.tree = build_host(base / "host")
        self.root = HostRoot.fixture(self.tree)
        self.dir = base / "journal"
        self.made = 0

    def access(self) -> HostAccess:
        self.made += 1
        # The kernel answers EIO on a managed IRQ's affinity: a plain tree file cannot.
        writer = eio_on(self.tree / "proc/irq/150/smp_affinity_list")
        return HostAccess(self.root, ethtool=lambda name: FakeDevice(name), writer=writer)

    def session(self) -> Session:
        return Session(self.root, journal_dir=self.dir, access=self.access)

    def affinity(self, irq: int) -> str:
        return (self.tree / "proc" / f"irq/{irq}/smp_affinity_list").read_text().strip()

    @property
    def journal_file(self) -> Path:
        from tuitune.core.session.journal_file import host_id

        return journal_path(self.dir, host_id(self.root))


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return Host(tmp_path)


@pytest.fixture
def session(host: Host) -> Iterator[Session]:
    s = host.session()
    yield s
    s.close()


def test_watching_opens_no_journal(host: Host, session: Session) -> None:
    """Reading through the session makes the access once and leaves the journal directory
    alone: only a change takes the host's journal."""
    assert session.access().read(IRQ101) == "0-3"
    assert session.access() is session.access()
    assert host.made == 1
    assert session.journal is None and not session.pending
    assert not host.dir.exists()


def test_the_first_change_opens_the_journal_and_holds_the_original(
    host: Host, session: Session
) -> None:
    out = session.run(lambda j: j.apply(IRQ101, "1-2"))
    assert (out.status, out.before, out.after) == ("changed", "0-3", "1-2")
    assert host.affinity(101) == "1-2"
    assert session.originals() == {IRQ101: "0-3"} and session.pending
    assert host.journal_file.exists()
    # The lock is the session's: a second tuitune on the same host is told who holds it.
    other = host.session()
    with pytest.raises(JournalBusy):
        other.open_journal()


def test_journal_calls_take_turns(host: Host, session: Session) -> None:
    """While one call holds the journal, a drift check steps aside (None) instead of
    replaying the file under it; a second change waits for the first."""
    session.open_journal()
    inside = threading.Event()
    go_on = threading.Event()
    order: list[str] = []

    def slow(j: Journal) -> None:
        inside.set()
        go_on.wait(5)
        order.append("first")

    worker = threading.Thread(target=session.run, args=(slow,))
    worker.start()
    assert inside.wait(5)
    assert session.check_drift() is None
    second = threading.Thread(target=session.run, args=(lambda j: order.append("second"),))
    second.start()
    go_on.set()
    worker.join(5)
    second.join(5)
    assert order == ["first", "second"]


def test_drift_is_news_once(host: Host, session: Session) -> None:
    assert session.check_drift() is None  # no journal: nothing is held
    session.run(lambda j: j.apply(IRQ101, "1-2"))
    news = session.check_drift()
    assert news is not None and news.new == [] and not news.moved
    (host.tree / "proc/irq/101/smp_affinity_list").write_text("3\n")
    news = session.check_drift()
    assert news is not None and news.moved
    assert [(d.key, d.expected, d.found) for d in news.new] == [(IRQ101, "1-2", "3")]
    assert session.drift[IRQ101].found == "3"
    news = session.check_drift()
    assert news is not None and news.new == [] and not news.moved  # told once
    (host.tree / "proc/irq/101/smp_affinity_list").write_text("1-2\n")
    news = session.check_drift()
    assert news is not None and news.moved and session.drift == {}


def test_a_lasting_refusal_is_kept_until_the_setting_changes(host: Host, session: Session) -> None:
    refused = session.run(lambda j: j.apply(MANAGED, "1"))
    assert refused.status == "refused"
    bad = Outcome(IRQ101, "refused", state=Unavailable("busy", "device busy"))
    session.note([refused, bad])
    assert list(session.refusals) == [MANAGED]  # a busy device is news, not a state
    session.note([Outcome(MANAGED, "changed", before="0-3", after="1")])
    assert session.refusals == {}


def test_release_keeps_the_originals_for_restore(host: Host, session: Session) -> None:
    session.run(lambda j: j.apply(IRQ101, "1-2"))
    session.release()
    assert session.journal is None and host.journal_file.exists()
    later = host.session()
    assert later.leftover() == 1  # what `tuitune` offers to restore at start
    outs = later.restore()
    assert [(o.status, o.after) for o in outs] == [("changed", "0-3")]
    assert host.affinity(101) == "0-3"
    assert not host.journal_file.exists() and later.journal is None
    assert later.leftover() == 0
    later.close()


def test_a_held_journal_is_not_offered_for_restore(host: Host, session: Session) -> None:
    session.run(lambda j: j.apply(IRQ101, "1-2"))
    assert host.session().leftover() == 0  # this session still holds it


def test_forget_deletes_the_journal_and_leaves_the_values(host: Host, session: Session) -> None:
    session.run(lambda j: j.apply(IRQ101, "1-2"))
    assert session.forget() == []
    assert host.affinity(101) == "1-2" and not host.journal_file.exists()
    assert session.journal is None and not session.pending
    assert session.forget() == []  # nothing open: nothing to do


def test_close_lets_go_of_the_journal_and_the_access(host: Host) -> None:
    with host.session() as s:
        s.run(lambda j: j.apply(IRQ101, "2"))
    assert host.journal_file.exists()  # kept: `tuitune restore` still can put 0-3 back
    assert host.session().leftover() == 1


def test_read_only_reasons(host: Host) -> None:
    assert read_only_reason(host.root, editable=False) == "read-only (a recorded host tree)"
    assert read_only_reason(host.root, editable=True) is None
