"""Plain `tuitune show IFACE` lists the NIC's processes: command, pid, user, allowed CPUs,
where they ran and whether that is the NIC's node; another user's name and argv are shown
escaped (never as terminal escapes or Rich markup), and a long list ends in "+N more".

The processes are real: a server started by `nobody` in the test's namespace, with an argv
and a comm chosen to be hostile, that forks children sharing its socket."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.report.procs import SHOWN_ROWS

from .conftest import VethNs

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
ADDR = "198.18.78.1"
CHILDREN = SHOWN_ROWS + 3  # the parent and its children: more than show prints
HOSTILE = "\x1b[2J[red]x\u202e"

SERVER = """
import ctypes, os, socket, sys, time
ctypes.CDLL(None).prctl(15, b"\\x1b]0;pwn\\x07")  # PR_SET_NAME: the comm another user picks
s = socket.socket()
s.bind((sys.argv[1], 0))
s.listen()
for _ in range(int(sys.argv[2])):
    if os.fork() == 0:
        time.sleep(600)
        os._exit(0)
print("ready", flush=True)
time.sleep(600)
"""


@pytest.fixture
def server(veth_ns: VethNs) -> Iterator[subprocess.Popen[str]]:
    veth_ns.ip("addr", "add", f"{ADDR}/30", "dev", veth_ns.a)
    cmd = ["ip", "netns", "exec", veth_ns.ns]
    cmd += ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    cmd += ["/usr/bin/python3", "-c", SERVER, ADDR, str(CHILDREN - 1), HOSTILE]
    # Its own session: the children it forks are killed with it.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        yield proc
    finally:
        os.killpg(proc.pid, 9)
        proc.wait()


def test_plain_show_lists_the_nics_processes_escaped_and_capped(
    veth_ns: VethNs, server: subprocess.Popen[str]
) -> None:
    env = {**os.environ, "COLUMNS": "200"}
    shown = subprocess.run(
        [sys.executable, "-m", "tuitune", "show", f"--netns={veth_ns.ns}", veth_ns.a],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    assert shown.returncode == 0, shown.stderr
    out = shown.stdout
    assert f"processes with sockets on {veth_ns.a}" in out
    rows = [line for line in out.splitlines() if " nobody " in line]
    assert len(rows) == SHOWN_ROWS, out
    # The argv's end, escaped: the escape and the bidi override as text, "[red]" not eaten
    # as markup; nothing of it reaches the terminal raw.
    assert all("x1b[2J[red]x\\u202e" in row for row in rows), rows
    assert "\x1b" not in out and "\u202e" not in out
    allowed = f"{min(os.sched_getaffinity(0))}-{max(os.sched_getaffinity(0))}"
    if len(os.sched_getaffinity(0)) == 1:
        allowed = str(min(os.sched_getaffinity(0)))
    assert all(f" {allowed} " in row for row in rows), rows
    assert f"+{CHILDREN - SHOWN_ROWS} more" in out
