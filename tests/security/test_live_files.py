"""Live /proc files hold text other users choose: a process may name itself with any bytes.

tuitune scans /proc/PID/comm for irqbalance; a `nobody` process named with bytes that are not
UTF-8 made every host read raise UnicodeDecodeError (`show` gave a traceback, the live screen
lost its host state). It must be read past, like a process that went away.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.support.command import ran

NAME = b"\xff\xfett-evil"
# A child that names itself with NAME, says so, then waits to be killed.
CHILD = f"""
import ctypes, sys, time
ctypes.CDLL(None).prctl(15, {NAME!r}, 0, 0, 0)  # PR_SET_NAME
print("named", flush=True)
time.sleep(600)
"""


@pytest.fixture
def evil_process() -> Iterator[int]:
    if os.geteuid() != 0:
        pytest.skip("needs root to start a process as nobody")
    proc = subprocess.Popen(
        [
            "setpriv",
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            sys.executable,
            "-c",
            CHILD,
        ],
        stdout=subprocess.PIPE,
        env={"PATH": "/usr/bin:/bin"},
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline() == b"named\n"
        with open(f"/proc/{proc.pid}/comm", "rb") as f:
            assert f.read().startswith(NAME)
        yield proc.pid
    finally:
        proc.kill()
        proc.wait()


def test_a_process_named_in_bytes_that_are_not_utf8(evil_process: int) -> None:
    rc, out, err = ran("show", "lo", "--json", "--interval", "0.1")
    assert rc == 0, err
    doc = json.loads(out)
    assert doc["interface"]["link"]["ifname"] == "lo"
