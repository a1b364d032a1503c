"""The change journal on recorded host trees: IRQ affinity (including a managed IRQ that
refuses), host-wide sysctls and a fake NIC's ethtool groups; undo, revert, drift, crash safety
and the journal file itself."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.session_fakes import CSUM, TSO, FakeDevice, build_host, eio_on
from tuitune.core.host.ethtool import EthtoolWriteError
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, JournalBusy, JournalError, Key
from tuitune.core.session.access import write_file
from tuitune.core.session.journal_file import read_records
from tuitune.core.session.outcome import Drift, Effect
from tuitune.core.values import Unavailable

DEV = "eno49"
IRQ101 = Key.irq(101, "eno49-TxRx-0", DEV)
IRQ102 = Key.irq(102, "eno49-TxRx-1", DEV)
MANAGED = Key.irq(150, "nvme0q1")
BACKLOG = Key.sysctl("net.core.netdev_max_backlog")
RMEM_MAX = Key.sysctl("net.core.rmem_max")
TCP_MEM = Key.sysctl("net.ipv4.tcp_mem")
QDISC = Key.sysctl("net.core.default_qdisc")
RX = Key.field(DEV, "ring", "rx")


class Host:
    def __init__(self, base: Path, writer: object = None) -> None:
        self.tree = build_host(base / "host")
        self.dir = base / "journal"
        self.dev = FakeDevice(DEV)
        self.access = HostAccess(
            HostRoot.fixture(self.tree),
            ethtool=lambda name: self.dev,
            writer=writer,  # type: ignore[arg-type]
        )

    def proc(self, rel: str) -> str:
        return (self.tree / "proc" / rel).read_text().strip()

    def affinity(self, irq: int) -> str:
        return self.proc(f"irq/{irq}/smp_affinity_list")

    def open(self) -> Journal:
        return Journal.open(self.access, self.dir)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    h = Host(tmp_path)
    yield h
    h.access.close()


def test_irq_affinity_write_verify_undo(host: Host) -> None:
    with host.open() as j:
        out = j.apply(IRQ101, "1-2")
        assert (out.status, out.before, out.after) == ("changed", "0-3", "1-2")
        assert host.affinity(101) == "1-2"
        assert j.originals() == {IRQ101: "0-3"}
        assert j.can_undo
        [undone] = j.undo()
        assert (undone.status, undone.after) == ("changed", "0-3")
        assert host.affinity(101) == "0-3"
        assert j.originals() == {}
        assert not j.can_undo and j.undo() == []


def test_a_released_journal_still_answers_what_it_held(host: Host) -> None:
    """The screen can draw once more between the quit prompt closing the journal and the
    app leaving: asking a closed journal must not touch its closed file."""
    j = host.open()
    j.apply(IRQ101, "1-2")
    j.detach()
    assert j.originals() == {IRQ101: "0-3"}
    j2 = host.open()
    j2.close_keeping_changes()
    assert j2.originals() == {IRQ101: "0-3"}


def test_a_managed_irq_is_a_refused_state_not_an_error(tmp_path: Path) -> None:
    """The kernel answers EIO on a managed IRQ's smp_affinity_list (simulated in the writer:
    a fixture tree's plain file cannot refuse)."""
    tree_irq = tmp_path / "host/proc/irq/150/smp_affinity_list"
    h = Host(tmp_path, writer=eio_on(tree_irq))
    with h.open() as j:
        out = j.apply(MANAGED, "1")
        assert out.status == "refused"
        assert out.state is not None and out.state.kind == "unsupported"
        why = "managed by the kernel (its affinity is fixed by the driver)"
        assert out.reason == f"IRQ 150 (nvme0q1) affinity: {why}"
        assert h.affinity(150) == "0-3"
        assert j.originals() == {} and not j.can_undo
        # The NIC's own IRQs are still editable.
        assert j.apply(IRQ101, "2").status == "changed"
    h.access.close()


def test_host_wide_sysctls_round_trip(host: Host) -> None:
    with host.open() as j:
        changes = {BACKLOG: "250000", RMEM_MAX: "16777216", TCP_MEM: "1 2 3", QDISC: "fq"}
        for key, text in changes.items():
            assert j.apply(key, text).status == "changed", key
        assert host.proc("sys/net/core/netdev_max_backlog") == "250000"
        assert host.proc("sys/net/ipv4/tcp_mem") == "1 2 3"
        assert host.proc("sys/net/core/default_qdisc") == "fq"
        outs = j.revert_all()
        assert {o.key: o.status for o in outs} == dict.fromkeys(changes, "changed")
        assert host.proc("sys/net/core/netdev_max_backlog") == "1000"
        assert host.proc("sys/net/core/rmem_max") == "212992"
        assert host.proc("sys/net/ipv4/tcp_mem") == "18951 25269 37902"
        assert host.proc("sys/net/core/default_qdisc") == "pfifo_fast"
        assert j.originals() == {} and not j.can_undo


@pytest.mark.parametrize(
    ("key", "text", "read"),
    [
        (RX, "1024", lambda d: d.rings_.rx),
        (Key.field(DEV, "ring", "tx"), "2048", lambda d: d.rings_.tx),
        (Key.field(DEV, "channels", "combined"), "2", lambda d: d.channels_.combined),
        (Key.field(DEV, "coalesce", "rx-usecs"), "8", lambda d: d.coalesce_["rx-usecs"]),
        (Key.field(DEV, "coalesce", "adaptive-rx"), "off", lambda d: d.coalesce_["adaptive-rx"]),
        (Key.field(DEV, "pause", "autoneg"), "off", lambda d: d.pause_.autoneg),
        (Key.field(DEV, "pause", "tx"), "off", lambda d: d.pause_.tx),
        (
            Key.feature(DEV, "rx-gro"),
            "off",
            lambda d: {f.name: f.requested for f in d.features_}["rx-gro"],
        ),
        (Key.mtu(DEV), "9000", lambda d: None),
        (Key.txqueuelen(DEV), "10000", lambda d: None),
        (Key.rps_cpus(DEV, "rx-1"), "0-2", lambda d: None),
        (Key.xps_cpus(DEV, "tx-0"), "1", lambda d: None),
        (Key.rps_flow_cnt(DEV, "rx-0"), "4096", lambda d: None),
    ],
    ids=lambda v: v.label if isinstance(v, Key) else None,
)
def test_every_kind_round_trips(host: Host, key: Key, text: str, read: object) -> None:
    files = {
        "mtu": "sys/class/net/eno49/mtu",
        "txqueuelen": "sys/class/net/eno49/tx_queue_len",
        "rps_cpus": "sys/class/net/eno49/queues/rx-1/rps_cpus",
        "xps_cpus": "sys/class/net/eno49/queues/tx-0/xps_cpus",
        "rps_flow_cnt": "sys/class/net/eno49/queues/rx-0/rps_flow_cnt",
    }
    original = host.access.read(key)
    path = host.tree / files[key.kind] if key.kind in files else None
    raw = path.read_text() if path else None
    with host.open() as j:
        out = j.apply(key, text)
        assert (out.status, out.after) == ("changed", text)
        assert host.access.read(key) == text
        if path is None:
            assert read(host.dev) not in (None, original)  # type: ignore[operator]
        assert j.undo()[0].status == "changed"
        assert host.access.read(key) == original
        if path is not None:
            assert path.read_text() == raw  # the very text the kernel showed
        assert j.originals() == {}


def test_masks_are_written_as_the_kernel_prints_them(host: Host) -> None:
    with host.open() as j:
        j.apply(Key.rps_cpus(DEV, "rx-1"), "0,2")
    assert (host.tree / "sys/class/net/eno49/queues/rx-1/rps_cpus").read_text() == "5\n"


def test_feature_dependencies_show_and_revert_exactly(host: Host) -> None:
    start = host.dev.features_
    with host.open() as j:
        out = j.apply(Key.feature(DEV, CSUM), "off")
        assert out.status == "changed"
        assert out.also == (Effect(Key.feature(DEV, TSO), "on", "off"),)
        tso = {f.name: f for f in host.dev.features_}[TSO]
        assert (tso.requested, tso.active) == (True, False)  # the wish is kept
        j.apply(Key.feature(DEV, TSO), "off")
        j.revert_all()
    assert host.dev.features_ == start


def test_a_write_that_changes_nothing_is_skipped(host: Host) -> None:
    with host.open() as j:
        out = j.apply(IRQ102, " 1 ")
        assert (out.status, out.after) == ("skipped", "1")
        assert not j.can_undo
        path = j.path
    assert [r["t"] for r in read_records(path)] == ["head"]
    assert host.dev.writes == []


def test_the_original_is_on_disk_before_the_write(tmp_path: Path) -> None:
    seen: list[list[str]] = []
    journal_file = tmp_path / "journal" / f"tree-{'x'}"

    def writer(path: Path, text: str) -> None:
        [jf] = (tmp_path / "journal").glob("*.journal")
        recs = read_records(jf)  # what a crash at this instant would leave
        seen.append([f"{r['t']}:{r.get('v')}" for r in recs if r["t"] in ("orig", "intent")])
        write_file(path, text)

    h = Host(tmp_path, writer=writer)
    with h.open() as j:
        j.apply(BACKLOG, "5000")
        j.apply(BACKLOG, "6000")
    h.access.close()
    assert seen == [["orig:1000", "intent:5000"], ["orig:1000", "intent:5000", "intent:6000"]]
    del journal_file


def test_journal_files_are_root_only(tmp_path: Path) -> None:
    h = Host(tmp_path)
    with h.open() as j:
        j.apply(IRQ101, "1")
        path = j.path
    h.access.close()
    assert stat.S_IMODE(os.stat(h.dir).st_mode) == 0o700  # created by tuitune
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    [lock] = h.dir.glob("*.lock")
    assert stat.S_IMODE(os.stat(lock).st_mode) == 0o600


def test_an_existing_journal_directory_keeps_its_mode(tmp_path: Path) -> None:
    # Changed from main, where it asserted the hole: an existing 0755 directory was chmod'ed
    # to 0700. tuitune never changes the mode of a directory it did not create (a 1777 one
    # lost its sticky world-writable mode); one nobody else can write is used as it is.
    d = tmp_path / "journal"
    d.mkdir(mode=0o755)
    os.chmod(d, 0o755)
    h = Host(tmp_path)
    with h.open() as j:
        j.apply(IRQ101, "1")
        path = j.path
    h.access.close()
    assert stat.S_IMODE(os.stat(d).st_mode) == 0o755
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_a_journal_directory_owned_by_someone_else_is_refused(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("needs root to give the directory away")
    d = tmp_path / "journal"
    d.mkdir(mode=0o700)
    os.chown(d, 65534, 65534)
    h = Host(tmp_path)
    with pytest.raises(JournalError, match="belongs to uid 65534"):
        h.open()
    h.access.close()


def test_a_second_journal_on_the_same_host_says_who_holds_it(host: Host) -> None:
    with host.open():
        with pytest.raises(JournalBusy) as err:
            host.open()
        assert err.value.pid == os.getpid()
        assert f"tuitune (pid {os.getpid()}) is already changing tree-" in str(err.value)
    host.open().detach()  # released with the first


def test_a_reopened_journal_recovers_what_a_dead_session_left(host: Host) -> None:
    j = host.open()
    j.apply(IRQ101, "1")
    j.apply(BACKLOG, "5000")
    j.detach()  # as if the process died: nothing decided
    with open(j.path, "ab") as f:
        f.write(b'{"t":"done","vals":[[')  # and the last append was torn by the crash
    again = host.open()
    assert again.recovered
    assert again.originals() == {IRQ101: "0-3", BACKLOG: "1000"}
    outs = again.close_restoring()
    assert [o.status for o in outs] == ["changed", "changed"]
    assert host.affinity(101) == "0-3" and host.proc("sys/net/core/netdev_max_backlog") == "1000"
    assert not j.path.exists()


def test_an_unconfirmed_write_is_restored_without_a_drift_complaint(host: Host) -> None:
    """Crash between the write and its confirmation: the value may be the new one."""
    j = host.open()
    j.apply(IRQ101, "1")
    j.detach()
    with open(j.path, "a") as f:
        f.write(json.dumps({"t": "intent", "k": IRQ101.to_json(), "v": "2", "with": []}) + "\n")
    (host.tree / "proc/irq/101/smp_affinity_list").write_text("2\n")
    with host.open() as again:
        assert again.check_drift() == []
        [out] = again.revert_all()
        assert out.status == "changed" and host.affinity(101) == "0-3"


def test_a_journal_from_another_boot_is_set_aside(host: Host) -> None:
    j = host.open()
    j.apply(IRQ101, "1")
    j.detach()
    (host.tree / "proc/sys/kernel/random/boot_id").write_text("boot-2\n")
    with host.open() as again:
        assert again.discarded is not None and "earlier boot" in again.discarded
        assert again.originals() == {}
    assert j.path.with_name(j.path.name + ".stale").exists()
    assert host.affinity(101) == "1"  # nothing "restored" over the new boot


def test_drift_is_shown_and_never_overwritten_silently(host: Host) -> None:
    with host.open() as j:
        j.apply(IRQ101, "1")
        (host.tree / "proc/irq/101/smp_affinity_list").write_text("2\n")  # irqbalance, say
        assert j.check_drift() == [Drift(IRQ101, "1", "2")]
        assert j.drift({IRQ101: "1"}) == []
        [out] = j.undo()
        assert out.status == "drift" and "now 2, tuitune had set 1" in (out.reason or "")
        [out] = j.revert_all()
        assert out.status == "drift" and host.affinity(101) == "2"
        assert j.originals() == {IRQ101: "0-3"}  # still held
        j.adopt(IRQ101)
        assert j.check_drift() == []
        [out] = j.revert_all()
        assert out.status == "changed" and host.affinity(101) == "0-3"


def test_forced_undo_overwrites_drift(host: Host) -> None:
    with host.open() as j:
        j.apply(IRQ101, "1")
        (host.tree / "proc/irq/101/smp_affinity_list").write_text("2\n")
        assert j.undo(force=True)[0].status == "changed"
        assert host.affinity(101) == "0-3"


def test_forget_leaves_an_outside_change_alone(host: Host) -> None:
    with host.open() as j:
        j.apply(IRQ101, "1")
        j.forget(IRQ101)
        assert j.originals() == {} and not j.can_undo
        assert j.close_restoring() == []
    assert host.affinity(101) == "1"


def test_apply_all_is_one_step_rolled_back_when_a_write_fails(host: Host) -> None:
    host.dev.refuse = "rings"
    changes = [(BACKLOG, "5000"), (IRQ101, "1"), (RX, "1024"), (IRQ102, "2")]
    with host.open() as j:
        outs = j.apply_all(changes)
        assert [o.status for o in outs] == ["failed", "failed", "refused", "refused"]
        assert outs[0].reason == "put back because eno49 rings rx failed"
        assert outs[2].reason == "eno49 rings rx: fake rejected"
        assert outs[3].reason == "not applied because eno49 rings rx failed"
        assert host.proc("sys/net/core/netdev_max_backlog") == "1000"
        assert host.affinity(101) == "0-3" and host.affinity(102) == "1"
        assert j.originals() == {} and not j.can_undo
        host.dev.refuse = None
        outs = j.apply_all(changes)
        assert [o.status for o in outs] == ["changed"] * 4
        assert len(j.steps()) == 1
        assert [o.key for o in j.undo()] == [IRQ102, RX, IRQ101, BACKLOG]
        assert host.dev.rings_.rx == 512 and host.affinity(102) == "1"


def test_apply_all_validates_everything_before_the_first_write(host: Host) -> None:
    with host.open() as j:
        outs = j.apply_all([(BACKLOG, "5000"), (IRQ101, "9")])
        assert [o.status for o in outs] == ["refused", "invalid"]
        assert outs[0].reason == "not applied: another setting of this change is not valid here"
    assert host.proc("sys/net/core/netdev_max_backlog") == "1000"


def test_restore_follows_the_queue_when_its_irq_number_moved(host: Host) -> None:
    j = host.open()
    j.apply(IRQ101, "1")
    j.detach()
    # A driver reload: eno49-TxRx-0 is IRQ 160 now.
    interrupts = host.tree / "proc/interrupts"
    interrupts.write_text(interrupts.read_text().replace(" 101:", " 160:"))
    (host.tree / "proc/irq/160").mkdir()
    (host.tree / "proc/irq/160/smp_affinity_list").write_text("1\n")
    with host.open() as again:
        [out] = again.revert_all()
    assert out.status == "changed"
    assert host.affinity(160) == "0-3"


def test_close_keep_deletes_the_journal_and_leaves_the_values(host: Host) -> None:
    j = host.open()
    j.apply(IRQ101, "1")
    assert j.close_keeping_changes() == []
    assert not j.path.exists() and host.affinity(101) == "1"


def test_key_describes_itself() -> None:
    assert (IRQ101.scope, IRQ101.group, IRQ101.label) == (
        "host",
        "irq",
        "IRQ 101 (eno49-TxRx-0) affinity",
    )
    assert (BACKLOG.scope, Key.sysctl("net.core.somaxconn").scope) == ("host", "netns")
    assert Key.rps_cpus("eth2", "rx-3").label == "eth2 rx-3 rps_cpus"
    assert RX.label == "eno49 rings rx" and RX.scope == "netns" and RX.group == "rings"
    for key in (IRQ101, BACKLOG, RX, Key.mtu("eth0.200")):
        assert Key.from_json(json.loads(json.dumps(key.to_json()))) == key


# ---- property: any sequence of edits, then "revert all", gives back the original exactly ----

EDITS = st.one_of(
    st.tuples(
        st.sampled_from([IRQ101, IRQ102, Key.irq(103, "eno49", DEV)]),
        st.sampled_from(["0", "1", "2", "0-2", "1-2"]),
    ),
    st.tuples(st.just(BACKLOG), st.integers(1, 10**6).map(str)),
    st.tuples(st.just(RMEM_MAX), st.integers(2304, 10**8).map(str)),
    st.tuples(
        st.just(TCP_MEM),
        st.lists(st.integers(0, 10**6), min_size=3, max_size=3).map(
            lambda v: " ".join(map(str, sorted(v)))
        ),
    ),
    st.tuples(st.just(QDISC), st.sampled_from(["fq", "fq_codel", "pfifo_fast"])),
    st.tuples(st.just(RX), st.integers(1, 4096).map(str)),
    st.tuples(st.just(Key.field(DEV, "channels", "combined")), st.integers(1, 8).map(str)),
    st.tuples(st.just(Key.field(DEV, "coalesce", "adaptive-rx")), st.sampled_from(["on", "off"])),
    st.tuples(
        st.sampled_from(
            [Key.feature(DEV, CSUM), Key.feature(DEV, TSO), Key.feature(DEV, "rx-gro")]
        ),
        st.sampled_from(["on", "off"]),
    ),
    st.tuples(st.just(Key.rps_cpus(DEV, "rx-0")), st.sampled_from(["none", "0", "1-2"])),
    st.just(("undo", "")),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(EDITS, max_size=12))
def test_any_edits_then_revert_all_give_back_the_original(edits: list[tuple[object, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        h = Host(Path(tmp))
        keys = h.access.device_keys(DEV) + h.access.sysctl_keys() + [IRQ101, IRQ102]
        start = h.access.read_many(keys)
        start_dev = (h.dev.rings_, h.dev.channels_, dict(h.dev.coalesce_), h.dev.features_)
        with h.open() as j:
            for key, text in edits:
                if key == "undo":
                    j.undo()
                else:
                    assert isinstance(key, Key)
                    assert j.apply(key, text).ok
            outs = j.close_restoring()
            assert all(o.ok for o in outs), outs
            assert not j.path.exists()
        assert h.access.read_many(keys) == start
        assert (h.dev.rings_, h.dev.channels_, h.dev.coalesce_, h.dev.features_) == start_dev
        h.access.close()


def test_apply_all_drops_the_originals_of_a_device_gone_mid_apply(
    host: Host, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The NIC vanished between the sysctl write and its ring write (netdevsim's del_device in
    the VM bench): the sysctl is put back, and the ring originals held before the first write
    are dropped, since nothing there can be put back: `restore` must not fail on them forever."""
    gone = Unavailable("missing", f"{DEV} rings: not present (gone?)")

    def vanish(**_: object) -> None:
        monkeypatch.setattr(host.dev, "rings", lambda: gone)
        raise EthtoolWriteError("rings", gone)

    monkeypatch.setattr(host.dev, "set_rings", vanish)
    with host.open() as j:
        outs = j.apply_all([(BACKLOG, "5000"), (RX, "1024")])
        assert outs[0].status == "failed" and not outs[1].ok
        assert host.proc("sys/net/core/netdev_max_backlog") == "1000"
        assert j.originals() == {} and not j.can_undo
