"""The processes view (P) of the live screen against a real process with a socket on a test
veth: listed with what the user needs to place it, moved by typed list, by the CPU picker and
to an IRQ's CPU (refused on a veth, said in one line), undone with u, a process that exits
shown as gone, another user's process asking first.

What the kernel holds is read with os.sched_getaffinity of the child the test started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen
from tuitune.tui.screens.procs import CpuPickScreen, ListPickScreen, ProcsScreen

pytestmark = pytest.mark.kernel

ADDR = "198.18.78.1"
CPUS = frozenset(os.sched_getaffinity(0))
SERVER = """
import signal, socket, sys, time
s = socket.socket()
s.bind((sys.argv[1], 0))
s.listen()
signal.signal(signal.SIGUSR1, lambda *a: s.close())  # as iperf3's server between tests
print("ready", flush=True)
while True:
    time.sleep(600)
"""


def start(veth_ns: VethNs, *pre: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(
        ["ip", "netns", "exec", veth_ns.ns, *pre, sys.executable, "-c", SERVER, ADDR],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    return child


def python_pid(child: subprocess.Popen[str]) -> int:
    """`ip netns exec` (and setpriv) exec the command: the child's pid is the server's own."""
    return child.pid


@pytest.fixture
def server(veth_ns: VethNs) -> Iterator[subprocess.Popen[str]]:
    veth_ns.ip("addr", "add", f"{ADDR}/24", "dev", veth_ns.a)
    child = start(veth_ns)
    try:
        yield child
    finally:
        child.kill()
        child.wait()


def row_of(app: TuituneApp, pid: int) -> str:
    text = screen_text(app)
    return next((line for line in text.splitlines() if line.strip().startswith(str(pid))), "")


@pytest.mark.skipif(len(CPUS) < 2, reason="moving needs two CPUs")
async def test_find_move_undo_and_gone(
    veth_ns: VethNs, server: subprocess.Popen[str], tmp_path: Path
) -> None:
    pid = python_pid(server)
    first, last = min(CPUS), max(CPUS)
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, 0.2, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.nic is not None)
            await pilot.press("P")
            await until(pilot, lambda: isinstance(app.screen, ProcsScreen))
            await until(pilot, lambda: row_of(app, pid) != "")
            row = row_of(app, pid)
            assert "python" in row and "root" in row
            text = screen_text(app)
            assert f"Processes using {veth_ns.a}" in text
            assert f"allowed cpu {min(CPUS)}-{max(CPUS)}" in text or f"allowed cpu {first}" in text

            # i on a veth: no IRQs, one line, nothing moved.
            await pilot.press("i")
            await until(pilot, lambda: "has no queue IRQs" in screen_text(app))
            assert os.sched_getaffinity(pid) == CPUS
            # A NIC with queue IRQs (which a veth lacks: the one thing faked here): i lists
            # them with their CPUs, Enter moves the process beside the picked one.
            real = app.procs.irq_cpus
            app.procs.irq_cpus = lambda: [("eth9-rx-0 (IRQ 40)", frozenset({last}))]  # type: ignore[method-assign]
            await pilot.press("i")
            await until(pilot, lambda: isinstance(app.screen, ListPickScreen))
            assert f"eth9-rx-0 (IRQ 40): cpu {last}" in screen_text(app)
            await pilot.press("enter")
            await until(pilot, lambda: os.sched_getaffinity(pid) == {last})
            app.procs.irq_cpus = real  # type: ignore[method-assign]
            await pilot.press("u")
            await until(pilot, lambda: os.sched_getaffinity(pid) == CPUS)

            # e: a typed list.
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EditorScreen))
            await pilot.press("ctrl+u", *str(last), "enter")
            await until(pilot, lambda: os.sched_getaffinity(pid) == {last})
            await until(
                pilot,
                lambda: (
                    f"moved (was {first}-{last})" in row_of(app, pid)
                    or "pending" in row_of(app, pid)
                ),
            )

            # c: tick CPUs in the picker, m moves.
            await pilot.press("c")
            await until(pilot, lambda: isinstance(app.screen, CpuPickScreen))
            await pilot.press("space")  # cpu{first} was unticked: tick it
            await pilot.press("m")
            await until(pilot, lambda: os.sched_getaffinity(pid) == CPUS)

            # u undoes the last step, R everything: the original comes back exactly.
            await pilot.press("u")
            await until(pilot, lambda: os.sched_getaffinity(pid) == {last})
            await pilot.press("R")  # asks first, naming the count
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press("r")
            await until(pilot, lambda: os.sched_getaffinity(pid) == CPUS)

            # Moved again, then the process exits: shown as gone, not an error.
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EditorScreen))
            await pilot.press("ctrl+u", *str(last), "enter")
            await until(pilot, lambda: os.sched_getaffinity(pid) == {last})
            # No socket on the NIC for a while (iperf3's server between tests): still there,
            # still moved, never "gone".
            server.send_signal(signal.SIGUSR1)
            readings = app.procs.readings_taken
            await until(pilot, lambda: app.procs.readings_taken >= readings + 3)
            assert "moved (was" in row_of(app, pid) or "pending" in row_of(app, pid)
            assert "gone" not in screen_text(app)
            server.kill()
            server.wait()
            await until(pilot, lambda: "gone" in row_of(app, pid))
            await pilot.press("R")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press("r")
            await until(pilot, lambda: "exited" in screen_text(app))
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, ProcsScreen))
    finally:
        reader.close()


@pytest.mark.skipif(len(CPUS) < 2, reason="moving needs two CPUs")
async def test_another_users_process_asks_first(veth_ns: VethNs, tmp_path: Path) -> None:
    veth_ns.ip("addr", "add", f"{ADDR}/24", "dev", veth_ns.a)
    child = start(veth_ns, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")
    pid = python_pid(child)
    last = max(CPUS)
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, 0.2, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(200, 60)) as pilot:
            await until(pilot, lambda: app.nic is not None)
            await pilot.press("P")
            await until(pilot, lambda: row_of(app, pid) != "")
            assert "nobody" in row_of(app, pid)
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EditorScreen))
            await pilot.press("ctrl+u", *str(last), "enter")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            assert "belongs to nobody" in screen_text(app)
            await pilot.press("escape")  # no: nothing moves
            await until(pilot, lambda: isinstance(app.screen, ProcsScreen))
            assert os.sched_getaffinity(pid) == CPUS
            await pilot.press("e")
            await until(pilot, lambda: isinstance(app.screen, EditorScreen))
            await pilot.press("ctrl+u", *str(last), "enter")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press("y")
            await until(pilot, lambda: os.sched_getaffinity(pid) == {last})
            await pilot.press("u")
            await until(pilot, lambda: os.sched_getaffinity(pid) == CPUS)
    finally:
        reader.close()
        child.kill()
        child.wait()
