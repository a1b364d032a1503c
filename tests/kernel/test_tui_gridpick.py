"""Picking a process's CPUs in the main screen's CPU grid (issue 21: "by keys and by picking
CPUs in the grid"): `g` in the processes view goes back to the main screen in a pick mode,
space ticks the CPU under the grid's cursor (marked on the grid), Enter moves the process as
one journal step (another user's asks first; u undoes it), Esc leaves and moves nothing.

The process is real and belongs to `nobody`; what the kernel holds is read with
os.sched_getaffinity."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.kernel.conftest import VethNs
from tests.kernel.test_tui_procs import ADDR, CPUS, row_of, start
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until, until_text
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp
from tuitune.tui.panels.cpugrid import CpuList
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.screens.procs import ProcsScreen

pytestmark = pytest.mark.kernel


def hint(app: TuituneApp) -> str:
    return str(app.hint.content)


async def to_grid_pick(app: TuituneApp, pilot: Pilot[int], pid: int) -> None:
    """P, the process's row, g: back on the main screen, picking."""
    await pilot.press("P")
    await until(pilot, lambda: isinstance(app.screen, ProcsScreen))
    await until(pilot, lambda: row_of(app, pid) != "")
    await pilot.press("g")
    await until(pilot, lambda: not isinstance(app.screen, ProcsScreen))
    # The name is the kernel's comm, which follows the interpreter's path (python or python3).
    comm = Path(f"/proc/{pid}/comm").read_text().strip()
    await until(pilot, lambda: f"ticked: none  for {comm} (pid {pid})" in hint(app))


async def cursor_to(app: TuituneApp, pilot: Pilot[int], cpu: int) -> None:
    view = app.panels["cpus"].view
    assert isinstance(view, CpuList) and app.focused is view
    for _ in range(len(CPUS) + 3):
        if view.cursor_key == f"cpu:{cpu}":
            return
        await pilot.press("down")
    raise AssertionError(f"the grid's cursor did not reach cpu {cpu}: {view.cursor_key}")


@pytest.mark.skipif(len(CPUS) < 2, reason="moving needs two CPUs")
async def test_cpus_picked_in_the_main_screens_grid(veth_ns: VethNs, tmp_path: Path) -> None:
    veth_ns.ip("addr", "add", f"{ADDR}/24", "dev", veth_ns.a)
    child: subprocess.Popen[str] = start(
        veth_ns, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"
    )
    pid, last = child.pid, max(CPUS)
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, 0.2, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
            await to_grid_pick(app, pilot, pid)
            assert hint(app).startswith("space: tick  Enter: move  Esc: cancel")
            # Enter with nothing ticked: said, still picking, nothing moved.
            await pilot.press("enter")
            await until(pilot, lambda: "no CPU ticked" in screen_text(app))
            assert app.grid_pick.picking
            await cursor_to(app, pilot, last)
            await pilot.press("space")
            await until(pilot, lambda: f"ticked: {last}  for" in hint(app))
            assert any(
                line.startswith(f"\u2502{last:>3}\u25cf") for line in screen_text(app).splitlines()
            )
            # Esc: nothing moves, the mark and the mode are gone.
            await pilot.press("escape")
            await until(pilot, lambda: "nothing moved" in screen_text(app))
            assert not app.grid_pick.picking and "tick" not in hint(app)
            assert "\u25cf" not in screen_text(app)
            assert os.sched_getaffinity(pid) == CPUS

            # Again, and Enter: another user's process asks first, then moves as one step.
            await to_grid_pick(app, pilot, pid)
            await cursor_to(app, pilot, last)
            await pilot.press("space", "enter")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            assert "belongs to nobody" in screen_text(app)
            await pilot.press("y")
            await until(pilot, lambda: os.sched_getaffinity(pid) == {last})
            await until(pilot, lambda: "affinity: " in screen_text(app))
            assert not app.grid_pick.picking
            # One move, one change: its threads' originals are kept but not counted apart.
            shown = await until_text(pilot, lambda text: " changed (u:" in text)
            assert " 1 changed (u:" in shown
            await pilot.press("u")
            await until(pilot, lambda: os.sched_getaffinity(pid) == CPUS)
    finally:
        reader.close()
        child.kill()
        child.wait()
