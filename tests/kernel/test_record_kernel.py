"""`tuitune record` on a veth in its own namespace, killed with SIGKILL mid-write: the file
replays to its last whole sample (issue 34)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs
from tuitune.cli import main
from tuitune.core.docfile import DocumentError
from tuitune.core.record.replay import open_recording

pytestmark = pytest.mark.kernel


def samples_in(path: Path) -> int:
    try:
        return open_recording(path).span()[2]
    except (OSError, DocumentError):
        return 0  # not created yet, or its header not written yet


def test_sigkill_mid_write_replays_to_the_last_sample(
    veth_ns: VethNs, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "killed.rec"
    cmd = ["record", "--netns", veth_ns.ns, veth_ns.a, "-o", str(out), "--interval", "0.1"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tuitune", *cmd],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        # Send a few packets while it records, so the link counters it holds move.
        veth_ns.ip("addr", "add", "10.77.0.1/24", "dev", veth_ns.a)
        deadline = time.monotonic() + 60
        while samples_in(out) < 5:  # polled: the recorder announces nothing per sample
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            assert time.monotonic() < deadline, "no 5 samples in 60 s"
            # Nobody answers a broadcast ping (exit 1), but its packet leaves through the veth.
            ping = ["ping", "-c1", "-W1", "-b", "10.77.0.255"]
            subprocess.run(["ip", "netns", "exec", veth_ns.ns, *ping], capture_output=True)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL
    assert out.stat().st_mode & 0o777 == 0o600
    rec = open_recording(out)
    _first, last, n = rec.span()
    assert n >= 5 and rec.header.iface == veth_ns.a and rec.header.netns == veth_ns.ns
    m = rec.moment(last)
    assert m.at == last and m.nic is not None and m.nic.link.ifname == veth_ns.a
    assert m.counters.link is not None and m.counters.link.values["tx_packets"] > 0
    # And the commands read it: show at its last sample, as a script would.
    assert main(["show", "--recording", str(out), "--at", str(last + 100), "--json"]) == 0
    assert f'"{veth_ns.a}"' in capsys.readouterr().out


def test_a_full_file_system_stops_recording_with_one_line(veth_ns: VethNs, tmp_path: Path) -> None:
    """A real full file system (an 8 KiB tmpfs mounted for the test, the kernel's ENOSPC):
    `tuitune record` stops with one line naming the file and exit status 1, and what it
    wrote reads back to its last whole sample."""
    tiny = tmp_path / "tiny"
    tiny.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8k,mode=0700", "tmpfs", str(tiny)],
                   check=True)  # fmt: skip
    try:
        out = tiny / "full.rec"
        cmd = ["record", "--netns", veth_ns.ns, veth_ns.a, "-o", str(out), "--interval", "0.1"]
        done = subprocess.run(
            [sys.executable, "-m", "tuitune", *cmd],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 1, done.stderr
        assert done.stderr == f"tuitune: {out}: recording stopped: No space left on device\n"
        rec = open_recording(out)
        _first, last, n = rec.span()
        assert n >= 2 and f"{n} samples" in done.stdout
        assert rec.moment(last).counters.link is not None
    finally:
        subprocess.run(["umount", "-l", str(tiny)], check=False)
