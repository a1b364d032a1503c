"""Stopping irqbalance for a session, against real processes: a harmless stand-in (a copy of
sleep named irqbalance, so its comm is "irqbalance") plays the daemon; the real irqbalance is
never run here (it would move the host's IRQs). The stand-in counts as the system's daemon only
because root started it from a root-owned file in directories only root can write to (pytest's
tmp_path); the same copy in a directory others can write to is neither stopped nor started
(last test; a process of another user named irqbalance: tests/security/test_irqbalance_fake.py).

Stopping sends SIGTERM and records the exact argv and IRQBALANCE_* environment first; undo,
revert and `tuitune restore` after a lost session start an identical process again (its
/proc/PID/cmdline and environ are checked); someone else starting it meanwhile is drift and is
left alone.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, InvalidValue, Journal, Key
from tuitune.core.session.journal_file import read_records
from tuitune.core.session.service import STOPPED, Services

pytestmark = pytest.mark.kernel

IRQBALANCE = Key.service("irqbalance")
REPO = Path(__file__).resolve().parents[2]
ARGS = ("4242", "17")  # sleep's seconds: long enough, and distinctive in /proc


def wait_comm(pid: int) -> None:
    """Popen returns as exec begins; the new comm shows a moment later (bounded wait)."""
    for _ in range(2000):
        if Path(f"/proc/{pid}/comm").read_text().strip() == "irqbalance":
            return
        time.sleep(0.005)
    raise AssertionError(f"pid {pid} never became irqbalance")


@dataclass
class StandIn:
    exe: Path
    first: subprocess.Popen[bytes]

    @property
    def argv(self) -> list[str]:
        return [str(self.exe), *ARGS]

    def pids(self) -> list[int]:
        """Live processes running this test's copy (started by the test or by a revert)."""
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                exe = os.readlink(f"/proc/{entry}/exe")
                state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if exe == str(self.exe) and state != "Z":
                out.append(int(entry))
        return sorted(out)

    def cmdline(self, pid: int) -> list[str]:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().rstrip("\0").split("\0")

    def environ(self, pid: int) -> list[str]:
        return Path(f"/proc/{pid}/environ").read_bytes().decode().rstrip("\0").split("\0")

    def start_by_hand(self) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            self.argv, env={"PATH": "/usr/bin:/bin"}, stdin=subprocess.DEVNULL, close_fds=True
        )
        wait_comm(proc.pid)
        return proc

    def services(self) -> Services:
        """Services that see only this stand-in, whatever else runs on the machine."""
        return Services(
            HostRoot(), systemd=False, match=lambda _pid, argv: argv[0] == str(self.exe)
        )


@pytest.fixture
def stand_in(tmp_path: Path) -> Iterator[StandIn]:
    exe = tmp_path / "irqbalance"
    shutil.copy("/bin/sleep", exe)
    first = subprocess.Popen(
        [str(exe), *ARGS],
        env={"PATH": "/usr/bin:/bin", "IRQBALANCE_BANNED_CPULIST": "1", "OTHER": "x"},
        stdin=subprocess.DEVNULL,
        close_fds=True,
    )
    s = StandIn(exe, first)
    try:
        wait_comm(first.pid)
        yield s
    finally:
        for pid in s.pids():  # only processes of this test's own copy, by pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        first.kill()
        first.wait(timeout=30)


def test_stop_records_the_argv_and_undo_starts_an_identical_process(
    stand_in: StandIn, tmp_path: Path
) -> None:
    with HostAccess(HostRoot(), services=stand_in.services()) as access:
        journal = Journal.open(access, tmp_path / "journal")
        try:
            out = journal.apply(IRQBALANCE, "stopped")
            assert out.status == "changed", out.reason
            original = f"running: IRQBALANCE_BANNED_CPULIST=1 {stand_in.exe} 4242 17"
            assert (out.before, out.after) == (original, STOPPED)
            # SIGTERM reached the stand-in (its parent, the test, sees how it ended).
            assert stand_in.first.wait(timeout=30) == -signal.SIGTERM
            assert stand_in.pids() == []
            # The journal holds the original, exactly, on disk.
            origs = [r["v"] for r in read_records(journal.path) if r.get("t") == "orig"]
            assert origs == [original]
            [back] = journal.undo()
            assert back.status == "changed", back.reason
            [pid] = stand_in.pids()
            assert pid != stand_in.first.pid
            assert stand_in.cmdline(pid) == stand_in.argv
            env = stand_in.environ(pid)
            assert "IRQBALANCE_BANNED_CPULIST=1" in env and "OTHER=x" not in env
            assert os.getsid(pid) == pid  # its own session: no terminal hangs it up
            assert access.read(IRQBALANCE) == original
        finally:
            journal.close_keeping_changes()


def test_revert_leaves_a_daemon_someone_else_started_alone(
    stand_in: StandIn, tmp_path: Path
) -> None:
    with HostAccess(HostRoot(), services=stand_in.services()) as access:
        journal = Journal.open(access, tmp_path / "journal")
        try:
            assert journal.apply(IRQBALANCE, "stopped").status == "changed"
            stand_in.first.wait(timeout=30)
            by_hand = stand_in.start_by_hand()  # another admin starts it again
            try:
                [drift] = journal.check_drift()
                assert (drift.expected, drift.found) == (
                    STOPPED,
                    f"running: {stand_in.exe} 4242 17",
                )
                [out] = journal.revert_all()
                assert out.status == "drift"
                assert stand_in.pids() == [by_hand.pid]  # no second copy started
            finally:
                by_hand.terminate()
                by_hand.wait(timeout=30)
        finally:
            journal.close_keeping_changes()


def test_restore_after_a_lost_session_starts_it_again(stand_in: StandIn, tmp_path: Path) -> None:
    with HostAccess(HostRoot(), services=stand_in.services()) as access:
        journal = Journal.open(access, tmp_path / "journal")
        assert journal.apply(IRQBALANCE, "stopped").status == "changed"
        journal.detach()  # as if tuitune had been killed with the daemon stopped
    stand_in.first.wait(timeout=30)
    assert stand_in.pids() == []
    done = subprocess.run(
        [sys.executable, "-m", "tuitune", "restore", "--journal-dir", str(tmp_path / "journal")],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "irqbalance service" in done.stdout
    [pid] = stand_in.pids()
    assert stand_in.cmdline(pid) == stand_in.argv
    assert "IRQBALANCE_BANNED_CPULIST=1" in stand_in.environ(pid)


def test_the_same_copy_in_a_directory_others_can_write_is_not_the_daemon(
    stand_in: StandIn, tmp_path: Path
) -> None:
    """Anyone could have swapped that file: it is not counted, so never stopped or recorded, and
    its command line is never started again (as a journal entry would ask)."""
    assert stand_in.exe.parent == tmp_path
    value = f"running: IRQBALANCE_BANNED_CPULIST=1 {stand_in.exe} 4242 17"
    services = stand_in.services()
    assert services.read(IRQBALANCE) == value
    tmp_path.chmod(0o777)
    try:
        assert services.instances("irqbalance") == []
        assert services.read(IRQBALANCE) == STOPPED
        with pytest.raises(InvalidValue, match="is a directory others can write to"):
            services.validate(IRQBALANCE, value)
    finally:
        tmp_path.chmod(0o700)
    assert stand_in.pids() == [stand_in.first.pid]  # untouched
