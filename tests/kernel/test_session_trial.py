"""A trial change survives the death of its terminal: tuitune (here a stand-in process in its
own session, like a login shell's) applies an MTU change on trial and gets SIGHUP, as when the
SSH connection drops; after the timeout the detached watchdog puts the MTU back and says so in
the journal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tuitune.core.session import watchdog_process as wd
from tuitune.core.session.journal_file import read_records

from .conftest import VethNs
from .test_session_crash import REPO, tuitune

pytestmark = pytest.mark.kernel

HOLDER = """
import signal, sys
from pathlib import Path
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
ns, dev, jdir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
access = HostAccess(HostRoot(netns=ns))
journal = Journal.open(access, jdir)
# 3 s: the test reads 9000 before the deadline even at load 10 (1 s raced it)
out, trial = journal.apply_trial(Key.mtu(dev), "9000", seconds=3.0)
assert out.status == "changed" and trial is not None, out
print(trial.pid, trial.deadline, journal.path, flush=True)
signal.pause()
"""


def mtu(ns: VethNs, dev: str) -> str:
    return ns.nsexec("cat", f"/sys/class/net/{dev}/mtu").strip()


def test_sighup_then_the_watchdog_reverts_after_the_timeout(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    dev, jdir = veth_ns.a, tmp_path / "journal"
    assert mtu(veth_ns, dev) == "1500"
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, veth_ns.ns, dev, str(jdir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        start_new_session=True,  # a session like a login's: the hangup goes to all of it
    )
    pid = 0
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().split()
        assert len(line) == 3, proc.stderr.read() if proc.stderr else ""
        pid, deadline, path = int(line[0]), float(line[1]), Path(line[2])
        assert mtu(veth_ns, dev) == "9000"
        assert os.getsid(pid) != os.getsid(proc.pid)  # not in the session that hangs up

        os.killpg(proc.pid, signal.SIGHUP)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGHUP

        end = time.monotonic() + 30  # bounds a hang; the assertions are on what happened
        while mtu(veth_ns, dev) != "1500" and time.monotonic() < end:
            time.sleep(0.05)
        assert mtu(veth_ns, dev) == "1500"
        while wd.is_watchdog(pid) and time.monotonic() < end:
            time.sleep(0.05)
        [done] = [r for r in read_records(path) if r["t"] == "trial-end"]
        assert (done["how"], done["by"], done["value"]) == ("reverted", "watchdog", "1500")
        assert done["time"] >= deadline  # it waited for the timeout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        wd.stop(pid)

    after = tuitune("restore", "--netns", veth_ns.ns, "--journal-dir", str(jdir))
    assert after.returncode == 0
    assert after.stdout == f"nothing to restore for netns-{veth_ns.ns}\n"
