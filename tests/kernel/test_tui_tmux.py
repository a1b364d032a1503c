"""End to end: the real `tuitune` command in a real terminal (tmux) on a veth in a test netns.

The screen is read back with `tmux capture-pane`, as a user would read it: the CPU grid has a
row per CPU of this machine, the IRQ panel says a veth has no IRQs of its own, the NIC panel
shows the MTU the test set and veth's refusals, and `q` ends the process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.kernel.conftest import VethNs

pytestmark = pytest.mark.kernel

TUITUNE = str(Path(sys.executable).with_name("tuitune"))


class Tmux:
    def __init__(self, width: int, height: int) -> None:
        self.socket = f"tt-test-{uuid.uuid4().hex[:6]}"
        self.size = (width, height)

    def run(self, *args: str) -> str:
        cmd = ["tmux", "-L", self.socket, *args]
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout

    def start(self, command: list[str], env: dict[str, str]) -> None:
        w, h = self.size
        exports = " ".join(f"{k}={v}" for k, v in env.items())
        # COLUMNS/LINES from the test runner's environment would override the real size.
        line = (
            f"env -u COLUMNS -u LINES {exports} {' '.join(command)}; echo TUITUNE-EXIT=$?; sleep 30"
        )
        self.run("new-session", "-d", "-x", str(w), "-y", str(h), line)

    def screen(self) -> str:
        return self.run("capture-pane", "-p")

    def wait_for(self, ok: Callable[[str], bool], timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.screen()
            if ok(text):
                return text
            time.sleep(0.2)
        raise AssertionError(f"screen never got there; last screen:\n{text}")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


@pytest.fixture
def tmux() -> Iterator[Callable[[int, int], Tmux]]:
    if shutil.which("tmux") is None:
        pytest.skip("tmux missing")
    made: list[Tmux] = []

    def make(width: int, height: int) -> Tmux:
        t = Tmux(width, height)
        made.append(t)
        return t

    yield make
    for t in made:
        t.kill()


def _env(tmp: Path) -> dict[str, str]:
    # A private config dir, so the test neither reads nor writes the user's theme choice.
    return {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp)}


def _cpu_rows(screen: str) -> list[str]:
    rows = []
    for line in screen.splitlines():
        cells = line.strip("│ |").split()
        if cells and cells[0].rstrip("◆*").isdigit() and len(cells) >= 6:
            rows.append(cells[0].rstrip("◆*"))
    return rows


def test_first_frame_shows_grid_irqs_and_nic(
    veth_ns: VethNs, tmux: Callable[[int, int], Tmux], tmp_path: Path
) -> None:
    veth_ns.ip("link", "set", veth_ns.a, "mtu", "1234")
    t = tmux(160, 48)
    t.start([TUITUNE, "--netns", veth_ns.ns, veth_ns.a], _env(tmp_path))
    ncpus = os.cpu_count() or 1
    screen = t.wait_for(lambda s: len(_cpu_rows(s)) >= ncpus and "ipv4.tcp_sack" in s)
    # Grid: one row per CPU of this machine, in order, plus the "all" line.
    assert _cpu_rows(screen)[:ncpus] == [str(c) for c in range(ncpus)]
    assert any(line.strip("│ ").startswith("all ") for line in screen.splitlines())
    # Header and the namespace: the interface, its driver and its netns.
    assert f"netns {veth_ns.ns}" in screen
    assert veth_ns.a in screen and "veth" in screen
    # IRQ panel: a veth has no IRQs, and the panel says so instead of staying blank.
    assert f"{veth_ns.a} has no IRQs of its own" in screen
    # NIC panel: the MTU this test set, veth's offloads, and its refusals in one line each.
    mtu_line = next(line for line in screen.splitlines() if "│mtu " in line)
    assert " 1234 " in mtu_line
    assert "rings: not supported by veth" in screen, screen
    # sysctl panel: per-namespace values read inside the namespace, host-wide ones from the
    # host (their files do not exist inside a namespace), each with its scope.
    backlog = next(line for line in screen.splitlines() if "core.netdev_max_backlog" in line)
    host_value = Path("/proc/sys/net/core/netdev_max_backlog").read_text().strip()
    assert backlog.split("core.netdev_max_backlog")[1].split()[:2] == [host_value, "host"]
    optmem = next(line for line in screen.splitlines() if "core.optmem_max" in line)
    assert optmem.split("core.optmem_max")[1].split()[1] == "ns"
    t.run("send-keys", "q")
    t.wait_for(lambda s: "TUITUNE-EXIT=0" in s, timeout=10)


def test_80x24_tabs_reach_every_panel(
    veth_ns: VethNs, tmux: Callable[[int, int], Tmux], tmp_path: Path
) -> None:
    t = tmux(80, 24)
    t.start([TUITUNE, "--netns", veth_ns.ns, veth_ns.a], _env(tmp_path))
    t.wait_for(lambda s: "1 CPUs" in s and len(_cpu_rows(s)) >= 1)
    t.run("send-keys", "3")
    nic = t.wait_for(lambda s: "NIC " + veth_ns.a in s and "mtu" in s)
    assert all(len(line) <= 80 for line in nic.splitlines())
    t.run("send-keys", "4")
    # The sysctls panel's first rows (at 80x24 the header keeps a row for messages, so the
    # panel shows about a dozen).
    t.wait_for(lambda s: "sysctls (" in s and "core.netdev_max_backlog" in s)
    t.run("send-keys", "Tab")
    t.wait_for(lambda s: "CPUs (" in s)
    # A lone Escape reaches the app only through the key parser's timeout, which the input
    # thread must wake up for (tuitune/tui/driver.py blocks in select otherwise).
    t.run("send-keys", "?")
    t.wait_for(lambda s: "Everywhere" in s)
    t.run("send-keys", "Escape")
    t.wait_for(lambda s: "Everywhere" not in s and "CPUs (" in s)
    t.run("send-keys", "q")
    t.wait_for(lambda s: "TUITUNE-EXIT=0" in s, timeout=10)
