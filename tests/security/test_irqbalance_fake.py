"""A fake irqbalance: a process anyone can start and call "irqbalance" must never count as the
daemon, and a journal entry naming a program others control is never run by `restore`.

As found: a nobody-owned /tmp/x/irqbalance script, started as nobody with its process name set
to irqbalance, was stopped "for the session", recorded, and started again as root by
quit-with-revert and by every later `tuitune restore`. Here the fake writes its uid to a log on
every start; the log must never say 0. The real irqbalance is never started or stopped: the
tests see only their own fakes (by pid, or by a journal entry they wrote).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs, veth_ns
from tuitune.core.host.irqbalance import read_irqbalance
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, InvalidValue, Journal, Key
from tuitune.core.session.journal_file import read_records
from tuitune.core.session.service import STOPPED, Services

__all__ = ["veth_ns"]  # the namespace fixture, shared with the kernel tests

IRQBALANCE = Key.service("irqbalance")
NOBODY = 65534
REPO = Path(__file__).resolve().parents[2]
# Logs its uid, then becomes a long sleep whose process name is "irqbalance" and whose argv[0]
# is the script itself (what /proc/PID/cmdline shows, and what a restart would run again).
SCRIPT = """#!/bin/bash
id -u >> {log}
exec -a "$0" /usr/bin/python3 -c 'import ctypes, time
ctypes.CDLL(None).prctl(15, b"irqbalance", 0, 0, 0)
time.sleep(600)'
"""

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (and the nobody user)")


@dataclass
class Fake:
    dir: Path
    exe: Path
    log: Path

    def runs(self) -> list[str]:
        """The uid of every start, in order."""
        return self.log.read_text().split() if self.log.exists() else []

    def pids(self) -> list[int]:
        """Live processes started from this fake (by anyone), by their argv[0]."""
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                argv0 = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            if argv0 == os.fsencode(self.exe):
                out.append(int(entry))
        return out

    def start_as_nobody(self) -> subprocess.Popen[bytes]:
        as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        proc = subprocess.Popen(
            [*as_nobody, "--", str(self.exe)],
            stdin=subprocess.DEVNULL,
            cwd="/",
            start_new_session=True,
        )
        for _ in range(4000):  # bounded: the script logs, execs python, which renames itself
            with contextlib.suppress(OSError):
                base = Path(f"/proc/{proc.pid}")
                if (
                    (base / "comm").read_text().strip() == "irqbalance"
                    and (base / "cmdline").read_bytes().split(b"\0")[1:2] == [b"-c"]
                    and self.runs()
                ):
                    return proc
            time.sleep(0.005)
        raise AssertionError("the fake never took the name irqbalance")


def make_fake(dir_owner: int, exe_owner: int, dir_mode: int = 0o755) -> Iterator[Fake]:
    d = Path(tempfile.mkdtemp(prefix="tuitune-fake-", dir="/tmp"))
    try:
        os.chown(d, dir_owner, dir_owner)
        d.chmod(dir_mode)
        fake = Fake(d, d / "irqbalance", d / "uids.log")
        fake.exe.write_text(SCRIPT.format(log=fake.log))
        fake.exe.chmod(0o755)
        os.chown(fake.exe, exe_owner, exe_owner)
        fake.log.touch()
        os.chown(fake.log, NOBODY, NOBODY)
        try:
            yield fake
        finally:
            for pid in fake.pids():  # only this fake's processes, by pid
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def nobodys_fake() -> Iterator[Fake]:
    """The attack as found: nobody's script in nobody's directory."""
    yield from make_fake(NOBODY, NOBODY)


@pytest.fixture
def planted_fake() -> Iterator[Fake]:
    """A root-owned program, but in nobody's directory (so nobody can swap it)."""
    yield from make_fake(NOBODY, 0)


@pytest.fixture
def shared_dir_fake() -> Iterator[Fake]:
    """A root-owned program in a root-owned directory anyone can write to (no sticky bit)."""
    yield from make_fake(0, 0, 0o777)


def test_a_process_nobody_named_irqbalance_is_not_the_daemon(
    nobodys_fake: Fake, tmp_path: Path
) -> None:
    fake = nobodys_fake
    proc = fake.start_as_nobody()
    try:
        assert fake.runs() == [str(NOBODY)]
        # Everything but the fake is left out, so the real machine's processes play no part.
        only_it = Services(HostRoot(), systemd=False, match=lambda pid, _argv: pid == proc.pid)
        assert only_it.instances("irqbalance") == []
        assert proc.pid not in read_irqbalance(HostRoot()).pids  # the header's "running"
        with HostAccess(HostRoot(), services=only_it) as access:
            assert access.read(IRQBALANCE) == STOPPED
            journal = Journal.open(access, tmp_path / "journal")
            try:
                out = journal.apply(IRQBALANCE, "stopped")
                assert out.status != "changed"
                assert journal.originals() == {}  # nothing of it is recorded to start again
            finally:
                journal.close_keeping_changes()
        assert proc.poll() is None  # never signalled
        assert fake.runs() == [str(NOBODY)]
    finally:
        proc.kill()
        proc.wait(timeout=30)


class Recorded(Services):
    """Writes a journal entry as if the fake had been stopped (the way a journal written by
    the old tuitune, or by someone else, holds it): read says it runs, write just agrees."""

    def __init__(self, root: HostRoot, value: str) -> None:
        super().__init__(root, systemd=False)
        self.value = value

    def read(self, key: Key) -> str:
        return self.value

    def validate(self, key: Key, text: str) -> str:
        return STOPPED

    def write(self, key: Key, value: str) -> None:
        self.value = value


def mtu(ns: VethNs, dev: str) -> str:
    return ns.nsexec("cat", f"/sys/class/net/{dev}/mtu").strip()


@pytest.mark.kernel
@pytest.mark.parametrize(
    ("which", "why"),
    [
        ("nobodys_fake", f"owned by uid {NOBODY}, not root"),
        ("planted_fake", f"owned by uid {NOBODY}, not root"),
        ("shared_dir_fake", "is a directory others can write to"),
    ],
)
def test_restore_refuses_a_journal_entry_naming_it_and_restores_the_rest(
    which: str, why: str, request: pytest.FixtureRequest, veth_ns: VethNs, tmp_path: Path
) -> None:
    fake: Fake = request.getfixturevalue(which)
    jdir = tmp_path / "journal"
    entry = f"running: {fake.exe} -c sleep"
    root = HostRoot(netns=veth_ns.ns)
    with HostAccess(root, services=Recorded(root, entry)) as access:
        journal = Journal.open(access, jdir)
        assert journal.apply(Key.mtu(veth_ns.a), "9000").status == "changed"
        assert journal.apply(IRQBALANCE, "stopped").status == "changed"
        journal.detach()
    origs = [r["v"] for r in read_records(journal.path) if r.get("t") == "orig"]
    assert entry in origs
    assert mtu(veth_ns, veth_ns.a) == "9000"

    # --force: another test's stand-in (a root-run copy named irqbalance, which counts) may run
    # meanwhile; without it restore would call that drift and never try the entry at all.
    restore = ["restore", "--force", "--netns", veth_ns.ns, "--journal-dir", str(jdir)]
    done = subprocess.run(
        [sys.executable, "-m", "tuitune", *restore],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
        check=False,
    )
    assert fake.runs() == []  # never started, by anyone: above all not by root
    assert fake.pids() == []
    assert mtu(veth_ns, veth_ns.a) == "1500"  # the rest is restored all the same
    said = [line for line in done.stdout.splitlines() if "irqbalance" in line]
    assert len(said) == 1, done.stdout + done.stderr
    assert f"{fake.exe}' is not the system's irqbalance" in said[0]
    assert said[0].endswith(why)
    assert done.returncode == 1  # one setting not restored, and the journal keeps it
    assert "Traceback" not in done.stderr


def test_arguments_naming_files_others_control_are_refused(tmp_path: Path) -> None:
    """Even the system's binary may not be started with a --policyscript (run as root) or a
    --pid file (written as root) in a directory others can write to."""
    system = tmp_path / "sbin"  # root-owned all the way up: what only root could have put
    system.mkdir(mode=0o755)
    shutil.copy("/bin/true", system / "irqbalance")
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    (tmp_path / "proc").mkdir()
    services = Services(HostRoot(proc=tmp_path / "proc", live=True), systemd=False)
    ok = f"running: {system / 'irqbalance'} --foreground --policyscript={system / 'irqbalance'}"
    assert services.validate(IRQBALANCE, ok) == ok
    for bad in (
        f"--policyscript={shared}/policy.sh",
        f"--pid={shared}/irqbalance.pid",
        f"{shared}/x",
        "tmp/relative-from-slash",
    ):
        with pytest.raises(InvalidValue, match="names a path others can change"):
            services.validate(IRQBALANCE, f"running: {system / 'irqbalance'} {bad}")
    with pytest.raises(InvalidValue, match=r"tuitune starts only the unit irqbalance\.service"):
        Services(HostRoot(proc=tmp_path / "proc", live=True), systemd=True).validate(
            IRQBALANCE, "running (systemd unit reboot.service)"
        )
