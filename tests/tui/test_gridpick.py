"""Pick mode of the main screen's CPU grid (g in the processes view) on the recorded 32-CPU
host at 80x24 on the Linux console, where the grid is a heat map above a list: a ticked CPU is
marked in both, in ASCII; Esc leaves and nothing is asked or written. A recorded host cannot
be changed, so `g` there says so in one line and does not start picking. The move itself is
proven against the kernel in tests/kernel/test_tui_gridpick.py."""

from __future__ import annotations

from pathlib import Path

from tests.support.screen_text import screen_text, until
from tests.tui.test_procs_view import console_app
from tuitune.core.procs.model import NicProcess, ProcIdent, ThreadRun
from tuitune.tui.controllers.gridpick import GridPick
from tuitune.tui.panels.cpugrid import CpuList, HeatMap


def nuttcp() -> NicProcess:
    """A process as the view lists it; a recorded tree has no live /proc/PID to find one."""
    return NicProcess(
        ident=ProcIdent(812, 5550, 0, "nuttcp\x1b[2J"),
        cmdline=("nuttcp", "-S"),
        allowed=frozenset(range(32)),
        threads=(ThreadRun(812, "nuttcp", 9, frozenset(range(32))),),
        cpu_by_cpu={},
        sockets=1,
        kernel_thread=False,
        on_nic_node=False,
        owner_is_caller=True,
    )


async def test_ticked_cpus_are_marked_and_esc_moves_nothing(tmp_path: Path) -> None:
    app = console_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 2)
        # A recorded host: one line, no pick mode.
        app.grid_pick.start(nuttcp())
        await until(pilot, lambda: "nothing to move:" in screen_text(app))
        assert not app.grid_pick.picking

        # As if the host could be changed (the kernel test does it for real).
        app.grid_pick.proc = nuttcp()
        app.post_message(GridPick.Changed(started=True))
        await until(pilot, lambda: "space: tick  Enter: move  Esc: cancel" in screen_text(app))
        text = screen_text(app)
        assert "ticked: none  for nuttcp" in text
        assert app.grid_pick.hint() == (  # the name escaped, not run
            "space: tick  Enter: move  Esc: cancel  ticked: none  for nuttcp\\x1b[2J (pid 812)"
        )
        view, heat = app.panels["cpus"].view, app.panels["cpus"].query_one(HeatMap)
        assert isinstance(view, CpuList) and app.focused is view and heat.display
        await pilot.press("down")
        key = view.cursor_key
        assert key is not None and key.startswith("cpu:")
        cpu = int(key.split(":")[1])
        before = [heat.render_line(y).text for y in range(heat.size.height)]
        await pilot.press("space")
        await until(pilot, lambda: f"ticked: {cpu}  for" in screen_text(app))
        after = [heat.render_line(y).text for y in range(heat.size.height)]
        assert sum(a.count("+") - b.count("+") for a, b in zip(after, before, strict=True)) >= 1
        assert any(line.startswith(f"|{cpu:>3}+") for line in screen_text(app).splitlines())
        assert all(ord(ch) < 128 for ch in screen_text(app)), "the Linux console gets ASCII only"
        assert all(len(line) <= 80 for line in screen_text(app).splitlines())

        await pilot.press("escape")
        await until(pilot, lambda: "nothing moved: nuttcp\\x1b[2J (pid 812)" in screen_text(app))
        assert not app.grid_pick.picking and app.grid_pick.cpus == frozenset()
        assert not any(line.startswith(f"|{cpu:>3}+") for line in screen_text(app).splitlines())
        assert not (tmp_path / "journal").exists() or not list((tmp_path / "journal").iterdir())
