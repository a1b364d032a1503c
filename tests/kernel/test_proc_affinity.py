"""Application affinity on the real kernel: a process with a socket on a lab interface is
listed, moved through the journal, and put back exactly (undo, revert, restore after SIGKILL);
a process that exits, a PID given to another process, kernel threads and another user's
process are each refused or reported, never touched.

The target is a small Python server started in the test's own namespace with two threads:
the main one free on every CPU, a worker pinned by itself to the last CPU, so "exact" means
each thread gets its own affinity back, not one value for all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.command import tuitune
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover
from tuitune.core.session import HostAccess, Journal, Key, needs_consent
from tuitune.core.session.journal_records import Orig
from tuitune.core.session.settings import setting_count

from .conftest import VethNs

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
ADDR = "198.18.77.1"
CPUS = frozenset(os.sched_getaffinity(0))
LAST = max(CPUS)
ARGS = (ADDR, str(LAST))

TARGET = """
import os, socket, sys, threading, time
s = socket.socket()
s.bind((sys.argv[1], 0))
s.listen()
ready = threading.Event()
tid = []
def worker():
    tid.append(threading.get_native_id())
    os.sched_setaffinity(0, {int(sys.argv[2])})
    ready.set()
    time.sleep(600)
threading.Thread(target=worker, name="worker", daemon=True).start()
ready.wait()
print(tid[0], flush=True)
time.sleep(600)
"""


@dataclass
class Target:
    proc: subprocess.Popen[str]
    worker: int

    @property
    def pid(self) -> int:
        return self.proc.pid

    def affinity(self) -> dict[int, frozenset[int]]:
        return {t: frozenset(os.sched_getaffinity(t)) for t in (self.pid, self.worker)}

    def key(self) -> Key:
        ident = discover.read_ident(HostRoot(), self.pid)
        assert ident is not None
        return Key.proc_affinity(self.pid, ident.start_ticks, comm=ident.comm)


def start_target(veth_ns: VethNs, *prefix: str) -> Target:
    proc = subprocess.Popen(
        ["ip", "netns", "exec", veth_ns.ns, *prefix, "/usr/bin/python3", "-c", TARGET, *ARGS],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    return Target(proc, int(proc.stdout.readline()))


def stop(target: Target) -> None:
    if target.proc.poll() is None:
        target.proc.kill()
    target.proc.wait()


@pytest.fixture
def lab(veth_ns: VethNs) -> VethNs:
    if len(CPUS) < 2:
        pytest.skip("moving a process needs two CPUs")
    veth_ns.ip("addr", "add", f"{ADDR}/30", "dev", veth_ns.a)
    return veth_ns


@pytest.fixture
def target(lab: VethNs) -> Iterator[Target]:
    t = start_target(lab)
    yield t
    stop(t)


@pytest.fixture
def journal(lab: VethNs, tmp_path: Path) -> Iterator[Journal]:
    access = HostAccess(HostRoot(netns=lab.ns))
    j = Journal.open(access, tmp_path / "journal")
    yield j
    j.detach()
    access.close()


def original(target: Target) -> dict[int, frozenset[int]]:
    return {target.pid: CPUS, target.worker: frozenset({LAST})}


def test_the_process_with_a_socket_on_the_lab_interface_is_listed(
    lab: VethNs, target: Target
) -> None:
    root = HostRoot(netns=lab.ns)
    found = lab.kt.call(lambda: discover.nic_processes(root, lab.a, local_cpus=CPUS))
    (p,) = [p for p in found if p.ident.pid == target.pid]
    assert p.sockets == 1 and not p.kernel_thread and p.owner_is_caller
    assert {t.tid for t in p.threads} >= {target.pid, target.worker}
    worker = next(t for t in p.threads if t.tid == target.worker)
    assert worker.allowed == frozenset({LAST}) and p.allowed == CPUS
    # The peer end has no address: nobody uses it.
    assert lab.kt.call(lambda: discover.nic_processes(root, lab.b, local_cpus=CPUS)) == ()


def test_move_undo_and_revert_put_every_thread_back_exactly(
    target: Target, journal: Journal
) -> None:
    key = target.key()
    out = journal.apply(key, "0")
    assert out.status == "changed" and out.after == "0", out
    assert target.affinity() == {target.pid: {0}, target.worker: {0}}
    # Each thread's original is kept (for revert), but the user changed one setting.
    assert len(journal.originals()) == 3 and setting_count(journal.originals()) == 1

    undone = journal.undo()
    assert all(o.ok for o in undone), undone
    assert target.affinity() == original(target)

    assert journal.apply(key, "0").status == "changed"
    # One thread alone as well, in its own step.
    thread = Key.proc_affinity(target.pid, int(key.name.split("@")[1]), target.worker)
    assert journal.apply(thread, str(LAST)).status == "changed"
    assert target.affinity() == {target.pid: {0}, target.worker: {LAST}}
    reverted = journal.revert_all()
    assert all(o.ok for o in reverted), reverted
    assert target.affinity() == original(target)
    assert journal.originals() == {}


def test_a_process_that_exits_in_between_is_reported_gone(lab: VethNs, journal: Journal) -> None:
    t = start_target(lab)
    try:
        key = t.key()
        assert journal.apply(key, "0").status == "changed"
    finally:
        stop(t)
    undone = journal.undo()
    assert undone and all(o.status == "skipped" for o in undone), undone
    assert any("gone (the process exited)" in o.describe() for o in undone)

    t2 = start_target(lab)
    try:
        assert journal.apply(t2.key(), "0").status == "changed"
    finally:
        stop(t2)
    reverted = journal.revert_all()
    assert reverted and all(o.ok for o in reverted), reverted
    assert journal.originals() == {}  # nothing left for a restore to fail on
    assert journal.apply(key, "1").status == "refused"


def test_a_reused_pid_is_gone_and_its_new_owner_is_left_alone(
    target: Target, journal: Journal
) -> None:
    key = target.key()
    pid, start = target.pid, int(key.name.split("@")[1])
    earlier = Key.proc_affinity(pid, start - 1)  # the process that held this PID before
    out = journal.apply(earlier, "0")
    assert out.status == "refused" and "PID now belongs to another process" in (out.reason or "")
    # A journal from before the reuse holds an original for it: restore must not write it.
    journal._record(Orig(earlier, "0"))
    reverted = journal.revert_all()
    assert [o.status for o in reverted] == ["skipped"], reverted
    assert "PID now belongs to another process" in reverted[0].describe()
    assert target.affinity() == original(target)


def test_kernel_threads_are_never_moved(journal: Journal) -> None:
    root = HostRoot()
    kthreadd = discover.read_ident(root, 2)
    assert kthreadd is not None
    child = next(
        p
        for p in discover.pids(root)
        if p > 2
        and (r := discover.read_process(root, p)) is not None
        and r.kernel_thread
        and r.ppid == 2
    )
    before = os.sched_getaffinity(child)
    assert needs_consent(Key.proc_affinity(2, kthreadd.start_ticks)) is None  # root's own
    for pid in (2, child):
        ident = discover.read_ident(root, pid)
        assert ident is not None
        out = journal.apply(Key.proc_affinity(pid, ident.start_ticks, comm=ident.comm), "0")
        assert out.status == "refused" and "kernel thread" in (out.reason or ""), out
    assert os.sched_getaffinity(child) == before
    assert journal.originals() == {}


def test_another_users_process_asks_first(lab: VethNs, journal: Journal) -> None:
    t = start_target(lab, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    try:
        key = t.key()
        question = needs_consent(key)
        assert question is not None and "belongs to nobody (uid 65534)" in question
        out = journal.apply(key, "0")
        assert out.status == "refused", out
        assert "belongs to nobody (uid 65534)" in (out.reason or "")
        assert "needs your agreement" in (out.reason or "")
        assert t.affinity() == original(t)
        journal.access.procs.agree(key)
        assert journal.apply(key, "0").status == "changed"
        assert all(o.ok for o in journal.undo())
        assert t.affinity() == original(t)
    finally:
        stop(t)


VICTIM = """
import sys, time
from pathlib import Path
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
ns, jdir, pid, start, tid = sys.argv[1], Path(sys.argv[2]), *map(int, sys.argv[3:])
journal = Journal.open(HostAccess(HostRoot(netns=ns)), jdir)
for key, value in ((Key.proc_affinity(pid, start), "0"), (Key.proc_affinity(pid, start, tid), "0")):
    out = journal.apply(key, value)
    assert out.status in ("changed", "skipped"), out
print("applied", flush=True)
time.sleep(120)
"""


def test_restore_after_sigkill_puts_each_thread_back(
    lab: VethNs, target: Target, tmp_path: Path
) -> None:
    jdir, key = tmp_path / "journal", target.key()
    ids = (str(target.pid), key.name.split("@")[1], str(target.worker))
    victim = subprocess.Popen(
        [sys.executable, "-c", VICTIM, lab.ns, str(jdir), *ids],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert victim.stdout is not None and victim.stdout.readline() == "applied\n"
        assert target.affinity() == {target.pid: {0}, target.worker: {0}}
        os.kill(victim.pid, signal.SIGKILL)
        victim.wait(timeout=10)
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()
    done = subprocess.run(
        [sys.executable, "-m", "tuitune", "restore", "--netns", lab.ns, f"--journal-dir={jdir}"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"put back pid {target.pid} affinity: 0 -> {format_cpulist(CPUS)}" in done.stdout
    assert target.affinity() == original(target)
    assert not list(jdir.glob("*.journal"))


def test_show_json_lists_the_nics_processes(lab: VethNs, target: Target) -> None:
    shown = subprocess.run(
        [
            sys.executable,
            "-m",
            "tuitune",
            "show",
            "--json",
            f"--netns={lab.ns}",
            lab.a,
            "--interval=0.2",
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert shown.returncode == 0, shown.stderr
    doc = json.loads(shown.stdout)
    (p,) = [p for p in doc["processes"] if p["pid"] == target.pid]
    assert p["key"] == target.key().name and p["sockets"] == 1 and not p["kernel_thread"]
    assert p["cmdline"][:2] == ["/usr/bin/python3", "-c"]
    worker = next(t for t in p["threads"] if t["tid"] == target.worker)
    assert worker["allowed"] == [LAST] and p["allowed"] == sorted(CPUS)
    assert set(p["cpu_percent"]) <= {str(c) for c in CPUS}


def test_a_profile_moves_the_namespaces_processes_by_name(
    lab: VethNs, target: Target, tmp_path: Path
) -> None:
    other = start_target(lab, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    try:
        mine = os.sched_getaffinity(0)  # this test is a python3 too, outside the namespace
        profile = tmp_path / "p.toml"
        profile.write_text('[processes]\npython3 = "0"\n')
        jdir = f"--journal-dir={tmp_path / 'j'}"
        refused = tuitune("apply", str(profile), f"--netns={lab.ns}", jdir)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "belongs to nobody (uid 65534)" in refused.stderr
        assert "(--other-users allows it)" in refused.stderr
        assert target.affinity() == original(target) and other.affinity() == original(other)

        done = tuitune("apply", str(profile), f"--netns={lab.ns}", jdir, "--other-users")
        assert done.returncode == 0, done.stdout + done.stderr
        assert f"changed python3 (pid {target.pid}) affinity: " in done.stdout
        assert target.affinity() == {target.pid: {0}, target.worker: {0}}
        assert other.affinity() == {other.pid: {0}, other.worker: {0}}
        assert os.sched_getaffinity(0) == mine

        back = tuitune("restore", f"--netns={lab.ns}", jdir)
        assert back.returncode == 0, back.stdout + back.stderr
        assert target.affinity() == original(target) and other.affinity() == original(other)
    finally:
        stop(other)


def test_export_shows_how_to_make_it_last(lab: VethNs, target: Target, tmp_path: Path) -> None:
    jdir = f"--journal-dir={tmp_path / 'j'}"
    profile = tmp_path / "p.toml"
    profile.write_text('[processes]\npython3 = "0"\n')
    assert tuitune("apply", str(profile), f"--netns={lab.ns}", jdir).returncode == 0
    try:
        shown = tuitune("export", lab.a, f"--netns={lab.ns}", jdir)
        assert shown.returncode == 0, shown.stdout + shown.stderr
        assert f"process-python3-{target.pid}.sh" in shown.stdout
        # Its argv holds the newlines of a -c script: not a line to paste, so not shown.
        assert "taskset -c 0 COMMAND ARGS...\n" in shown.stdout
        assert "does not survive its restart" in shown.stdout + shown.stderr
    finally:
        assert tuitune("restore", f"--netns={lab.ns}", jdir).returncode == 0
    assert target.affinity() == original(target)
