"""The kernel's device events reach the live screen at once, not at the next tick.

With a long --interval, the screen used to show a deleted interface as if it were there until
its next tick. The sampler now listens to the kernel's uevents (the uevent netlink socket,
opened inside the watched namespace) and takes a tick when its interface is added, removed or
renamed.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

from tests.kernel.conftest import VethNs
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.netevents import NetDeviceWatch
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader


class Seen:
    def __init__(self) -> None:
        self.events: list[tuple[str, frozenset[str]]] = []
        self.changed = threading.Condition()

    def __call__(self, action: str, names: frozenset[str]) -> None:
        with self.changed:
            self.events.append((action, names))
            self.changed.notify_all()

    def wait_for(self, action: str, name: str) -> None:
        with self.changed:
            ok = self.changed.wait_for(
                lambda: any(a == action and name in n for a, n in self.events), timeout=30
            )
        assert ok, f"no {action} event for {name}; saw {self.events}"


def test_add_remove_and_rename_inside_the_namespace(veth_ns: VethNs) -> None:
    seen = Seen()
    watch = NetDeviceWatch(seen, veth_ns.ns)
    try:
        assert watch.start(), watch.problem
        renamed = veth_ns.a[:-1] + "r"
        veth_ns.ip("link", "set", veth_ns.a, "down")
        veth_ns.ip("link", "set", veth_ns.a, "name", renamed)
        seen.wait_for("move", veth_ns.a)  # the old name is in the rename's event
        assert any(a == "move" and n == {renamed, veth_ns.a} for a, n in seen.events)
        veth_ns.ip("link", "del", renamed)
        seen.wait_for("remove", renamed)
        veth_ns.ip("link", "add", veth_ns.a, "type", "veth", "peer", "name", veth_ns.b)
        seen.wait_for("add", veth_ns.a)
    finally:
        watch.stop()


async def test_a_deleted_interface_is_gone_before_the_next_tick(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    # Ten minutes between ticks: only the device event can make the screen say GONE in time.
    app = screen_app(reader, veth_ns.a, interval=600, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            # After the start's quick second sample (and, on a live host, the since-boot
            # frame's state), the next tick is ten minutes away.
            after_start = 3 if app.sampler.since_boot else 2
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= after_start)
            drawn = app.samples_drawn
            veth_ns.ip("link", "del", veth_ns.a)
            await until(pilot, lambda: "GONE" in screen_text(app), timeout=60)
            assert app.samples_drawn == drawn + 1  # one tick, woken by the event

            veth_ns.ip("link", "add", veth_ns.a, "type", "veth", "peer", "name", veth_ns.b)
            await until(pilot, lambda: app.nic is not None and "GONE" not in screen_text(app))
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()


FIRST_FRAME = """
import asyncio, sys, threading
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp

watch_at_first: list[bool] = []

def watching() -> bool:
    return any(t.name == "tuitune-netevents" for t in threading.enumerate())

class Noting(TuituneApp):
    def on_tuitune_app_sample_ready(self, message: TuituneApp.SampleReady) -> None:
        if not watch_at_first:  # Textual calls the App's own handler after this one
            watch_at_first.append(watching())

async def main() -> None:
    reader = HostReader(HostRoot(netns=sys.argv[1]))
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8"}
    app = Noting(reader, sys.argv[2], interval=600, env=env, show_cost=False,
                 save_settings=False, journal_dir=sys.argv[3])
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            for _ in range(3000):
                if app.samples_drawn >= 3:
                    break
                await pilot.pause(0.01)
            watched = watching()  # before the sampler's stop ends it
            app.sampler.stop()
            await pilot.pause()
    finally:
        reader.close()
    print(app.samples_drawn, watch_at_first, watched, "pyudev" in sys.modules)

asyncio.run(main())
"""


def test_the_first_frame_does_not_wait_for_the_device_watch(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    """The watch (its thread, the socket's start) starts once the first frame is drawn, on the
    sampler's thread, not before it on the UI thread (issue 18); the test above holds that it
    still wakes a tick. It does not load pyudev (~2.5 MB resident: issue 38, goal 3)."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", FIRST_FRAME, veth_ns.ns, veth_ns.a, str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-4:] == ["3", "[False]", "True", "False"]
