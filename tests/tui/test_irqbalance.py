"""The first IRQ move while irqbalance runs asks first: stop it for this session, move anyway,
or cancel. Whatever moves the IRQ (a typed CPU list, a drag onto a CPU, the spread plan).

irqbalance is played by a harmless stand-in (a copy of sleep named irqbalance, so its comm is
"irqbalance"), never by the real daemon, which would move this machine's IRQs; it counts as the
daemon because root runs it from a file only root can change (see host/daemon.py). The IRQs
moved are the fixture tree's. Stopping it sends SIGTERM; revert (R, or quitting with revert) starts
an identical process again, checked in /proc/PID/cmdline.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.support.edit_host import EditHost, editing
from tuitune.core.host.root import HostRoot
from tuitune.core.session.service import Services
from tuitune.tui.panels.cpugrid import CpuList
from tuitune.tui.panels.panels import IrqList
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen

ARGS = ("4243", "19")


@dataclass
class StandIn:
    exe: Path
    first: subprocess.Popen[bytes]

    @property
    def argv(self) -> list[str]:
        return [str(self.exe), *ARGS]

    def pids(self) -> list[int]:
        """Live processes running this test's copy (the first one, or one a revert started)."""
        out = []
        for entry in os.listdir("/proc"):
            try:
                exe = os.readlink(f"/proc/{entry}/exe") if entry.isdigit() else ""
                stat = Path(f"/proc/{entry}/stat").read_text() if exe == str(self.exe) else ""
            except OSError:
                continue
            if stat and stat.rsplit(")", 1)[1].split()[0] != "Z":
                out.append(int(entry))
        return sorted(out)

    def cmdline(self, pid: int) -> list[str]:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode().rstrip("\0").split("\0")

    def services(self, _root: HostRoot) -> Services:
        """What the app's journal uses: this machine's /proc, seeing only this stand-in."""
        exe = str(self.exe)
        return Services(HostRoot(), systemd=False, match=lambda _pid, argv: argv[0] == exe)


@pytest.fixture
def stand_in(tmp_path: Path) -> Iterator[StandIn]:
    exe = tmp_path / "bin" / "irqbalance"
    exe.parent.mkdir()
    shutil.copy("/bin/sleep", exe)
    first = subprocess.Popen([str(exe), *ARGS], stdin=subprocess.DEVNULL, close_fds=True)
    s = StandIn(exe, first)
    try:
        for _ in range(2000):  # Popen returns as exec begins; the comm changes a moment later
            if Path(f"/proc/{first.pid}/comm").read_text().strip() == "irqbalance":
                break
            time.sleep(0.005)
        yield s
    finally:
        for pid in s.pids():  # only this test's own copy, by pid
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        first.kill()
        first.wait(timeout=30)


def affinity(h: EditHost, irq: str) -> str:
    return (h.tree / f"proc/irq/{irq}/smp_affinity_list").read_text().strip()


async def asked(h: EditHost) -> str:
    await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
    return " ".join(h.screen().split())


def says_the_question(shown: str) -> bool:
    return all(
        words in shown
        for words in (
            "irqbalance is running and will move IRQs back",
            "s: stop it for this session (restored on revert/quit)",
            "m: move anyway",
            "c: cancel",
        )
    )


async def drag(h: EditHost, irq: str) -> str:
    """Drag IRQ `irq` onto the first CPU row other than CPU 0; returns that CPU."""
    irqs, cpus = h.app.query_one(IrqList), h.app.query_one(CpuList)
    source_y = 1 + [r.key for r in irqs.shown].index(f"irq:{irq}")
    keys = [r.key for r in cpus.shown]
    target = next(k for k in keys if k.startswith("cpu:") and k[4:].isdigit() and k != "cpu:0")
    target_y = 1 + keys.index(target) - int(cpus.scroll_y)
    await h.tui.pilot.mouse_down(irqs, offset=(2, source_y))
    await h.tui.pilot.hover(cpus, offset=(2, target_y))
    await h.tui.pilot.mouse_up(cpus, offset=(2, target_y))
    return target.split(":")[1]


async def test_typed_move_stops_it_and_revert_starts_it_again(
    stand_in: StandIn, tmp_path: Path
) -> None:
    async with editing(tmp_path, services=stand_in.services) as h:
        await h.tui.press("2")
        assert h.app.panels["irqs"].view.move_cursor_to("irq:92")
        await h.tui.press("e")
        await h.wait(lambda: isinstance(h.app.screen, EditorScreen))
        await h.tui.press("ctrl+u", "5", "enter")
        assert says_the_question(await asked(h))
        assert affinity(h, "92") == "0"  # nothing moves before the answer
        await h.tui.press("s")
        await h.wait(lambda: affinity(h, "92") == "5")
        assert stand_in.first.wait(timeout=30) == -signal.SIGTERM
        await h.wait(lambda: "2 changed" in h.tui.header())  # irqbalance and the IRQ
        # A second move does not ask again.
        assert h.app.panels["irqs"].view.move_cursor_to("irq:93")
        await h.tui.press("e")
        await h.wait(lambda: isinstance(h.app.screen, EditorScreen))
        await h.tui.press("ctrl+u", "6", "enter")
        await h.wait(lambda: affinity(h, "93") == "6")
        await h.tui.press("R")  # revert all (after asking): the IRQs, then irqbalance as it ran
        await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
        await h.tui.press("r")
        await h.wait(lambda: affinity(h, "92") == "0" and affinity(h, "93") == "0")
        await h.wait(lambda: len(stand_in.pids()) == 1)
        [pid] = stand_in.pids()
        assert pid != stand_in.first.pid
        assert stand_in.cmdline(pid) == stand_in.argv


async def test_drag_move_anyway_leaves_it_running(stand_in: StandIn, tmp_path: Path) -> None:
    async with editing(tmp_path, services=stand_in.services) as h:
        await h.tui.press("v")  # the CPU list in topology order: rows stay put
        if h.app.grid_mode != "list":  # automatic showed the list: v gave the heat map
            await h.tui.press("v")
        await h.wait(lambda: h.app.grid_mode == "list")
        cpu = await drag(h, "92")
        assert says_the_question(await asked(h))
        await h.tui.press("m")
        await h.wait(lambda: affinity(h, "92") == cpu)
        assert stand_in.pids() == [stand_in.first.pid]  # still running, untouched
        cpu = await drag(h, "93")  # answered once: no question the second time
        await h.wait(lambda: affinity(h, "93") == cpu)
        assert not isinstance(h.app.screen, ChoiceScreen)
        assert stand_in.pids() == [stand_in.first.pid]


async def test_spread_cancel_then_stop_and_quit_with_revert(
    stand_in: StandIn, tmp_path: Path
) -> None:
    async with editing(tmp_path, services=stand_in.services) as h:
        irqs = [q.irq for q in h.app.nic.irqs if q.kind != "misc"] if h.app.nic else []
        assert len(irqs) == 8
        await h.tui.press("2", "s")
        assert says_the_question(await asked(h))
        await h.tui.press("c")
        await h.wait(lambda: "cancelled: no IRQ moved" in h.tui.header())
        assert not isinstance(h.app.screen, ChoiceScreen)  # no plan offered
        assert all(affinity(h, irq) == "0" for irq in irqs)
        assert stand_in.pids() == [stand_in.first.pid]
        await h.tui.press("s")  # spread again: asked again, since it was not answered
        assert says_the_question(await asked(h))
        await h.tui.press("s")
        await h.wait(lambda: "Spread the queue IRQs" in h.screen())
        assert "irqbalance is running" not in h.screen()  # it no longer is
        assert stand_in.first.wait(timeout=30) == -signal.SIGTERM
        await h.tui.press("y")
        await h.wait(lambda: len({affinity(h, irq) for irq in irqs}) == 8)
        await h.tui.press("q")
        await h.wait(lambda: "Leave tuitune" in h.screen())
        await h.tui.press("r")
        await h.wait(lambda: not h.app.is_running)
    assert all(affinity(h, irq) == "0" for irq in irqs)
    [pid] = stand_in.pids()
    assert stand_in.cmdline(pid) == stand_in.argv
