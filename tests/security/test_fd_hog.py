"""A descriptor hog (issue 30, 5): `nobody` runs processes holding thousands of descriptors
each; finding the NIC's processes used to read every descriptor of every process on the host,
so the hog decided how long `show` and every tick of the processes view took. Now a scan reads
at most FD_BUDGET descriptors, fewest-held processes first, and says what it left unsearched.

Asserts on the work done (readlink calls) and on what is found, never on time."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
from collections.abc import Iterator

import pytest

from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover, sockets

NOBODY = 65534
HOGS, EACH = 3, 4000  # fewer where nobody's hard limit is lower (1024 at least anywhere)

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="plays another user beside root")

HOG = f"""
import os, resource, sys
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
fd = os.open("/dev/null", os.O_RDONLY)
for _ in range(min({EACH}, hard - 16)):
    os.dup(fd)
print("ready", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def hogs() -> Iterator[list[int]]:
    kids = [
        subprocess.Popen(
            ["/usr/bin/python3", "-I", "-c", HOG],
            user=NOBODY,
            group=NOBODY,
            extra_groups=[],
            cwd="/",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        for _ in range(HOGS)
    ]
    try:
        for k in kids:
            assert k.stdout is not None and k.stdout.readline() == b"ready\n"
        yield [k.pid for k in kids]
    finally:
        for k in kids:
            k.kill()
            k.wait()


def test_a_hog_is_not_read_and_the_nics_process_is_still_found(
    hogs: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    held = min(EACH, resource.getrlimit(resource.RLIMIT_NOFILE)[1] - 16)
    # Below what one hog holds, so no hog fits; far above this test's own process, which is
    # searched early (fewest descriptors first) whatever else runs on the host.
    budget = held - 200
    monkeypatch.setattr(sockets, "FD_BUDGET", budget)
    reads = 0
    real = os.readlink

    def counted(*args: object, **kw: object) -> str:
        nonlocal reads
        reads += 1
        return real(*args, **kw)  # type: ignore[arg-type]

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        monkeypatch.setattr(sockets.os, "readlink", counted)
        got = discover.read_nic_processes(HostRoot(), "lo", wildcard=False)
        monkeypatch.undo()

    assert os.getpid() in got.procs  # the listener on lo, as before
    assert got.procs[os.getpid()].sockets >= 1
    assert not set(hogs) & set(got.procs)
    assert reads <= budget, f"{reads} descriptors read, the bound is {budget}"
    skipped, fds = got.unsearched
    assert skipped >= HOGS and fds >= HOGS * held
