"""Crash safety: a process changes a namespace through the journal and is killed with SIGKILL;
`tuitune restore --netns NS --journal-dir D` then puts every original back."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.command import tuitune

from .conftest import VethNs
from .test_session_property import state
from .test_session_roundtrip import multiqueue_veth

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]

# The victim: applies changes through the journal, says so, then waits to be killed. It is
# what a tuitune whose SSH session dropped looks like to the kernel.
VICTIM = """
import sys, time
from pathlib import Path
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
ns, dev, jdir = sys.argv[1], sys.argv[2], Path(sys.argv[3])
access = HostAccess(HostRoot(netns=ns))
journal = Journal.open(access, jdir)
changes = [
    (Key.feature(dev, "tx-checksum-ip-generic"), "off"),
    (Key.feature(dev, "rx-gro"), "on"),
    (Key.mtu(dev), "9000"),
    (Key.txqueuelen(dev), "77"),
    (Key.field(dev, "channels", "rx"), "1"),
    (Key.rps_cpus(dev, "rx-0"), "0-1"),
    (Key.xps_cpus(dev, "tx-1"), "1"),
    (Key.sysctl("net.core.somaxconn"), "1234"),
    (Key.sysctl("net.ipv4.tcp_rmem"), "8192 65536 1048576"),
]
for key, value in changes:
    out = journal.apply(key, value)
    assert out.status == "changed", out
print("applied", flush=True)
time.sleep(120)
"""


@pytest.fixture
def victim_dev(veth_ns: VethNs) -> Iterator[str]:
    dev = multiqueue_veth(veth_ns)
    veth_ns.nsexec("sh", "-c", f"echo 2 > /sys/class/net/{dev}/queues/rx-1/rps_cpus")
    yield dev


def test_restore_after_sigkill_finds_the_original_state(
    veth_ns: VethNs, victim_dev: str, tmp_path: Path
) -> None:
    dev, jdir = victim_dev, tmp_path / "journal"
    original = state(veth_ns, dev)
    proc = subprocess.Popen(
        [sys.executable, "-c", VICTIM, veth_ns.ns, dev, str(jdir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line == "applied\n", proc.stderr.read() if proc.stderr else ""
        changed = state(veth_ns, dev)
        assert "mtu 9000" in changed["link"] and "rx-1/rps_cpus" not in changed

        busy = tuitune("restore", "--netns", veth_ns.ns, "--journal-dir", str(jdir))
        assert busy.returncode == 1
        assert f"tuitune (pid {proc.pid}) is still running on netns-{veth_ns.ns}" in busy.stderr
        assert state(veth_ns, dev) == changed

        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        assert proc.returncode == -signal.SIGKILL
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    listed = tuitune("restore", "--list", "--journal-dir", str(jdir))
    assert f"netns-{veth_ns.ns}: " in listed.stdout and "no tuitune running" in listed.stdout

    done = tuitune("restore", "--netns", veth_ns.ns, "--journal-dir", str(jdir))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert f"put back {dev} mtu: 9000 -> 1500" in lines
    assert f"put back {dev} channels rx: 1 -> 2" in lines
    assert any(line.startswith("put back net.core.somaxconn: 1234 -> ") for line in lines)
    assert lines[-1] == f"restored netns-{veth_ns.ns}: every recorded original is back"
    # Everything, including rx-1's RPS mask that the lower channel count had destroyed.
    assert state(veth_ns, dev) == original
    assert not list(jdir.glob("*.journal"))

    again = tuitune("restore", "--netns", veth_ns.ns, "--journal-dir", str(jdir))
    assert again.returncode == 0 and again.stdout.startswith("nothing to restore")
