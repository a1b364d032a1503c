"""The processes view (P) on a recorded host, where no process is found (a tree has no live
/proc/PID entries): at 80x24 on the Linux console it opens, says what it lists and that there
is nothing yet, shows its keys, refuses a move with one line, and Esc goes back. `?` lists P.
The moves themselves are proven against the real kernel in tests/kernel/test_tui_procs.py."""

from __future__ import annotations

from pathlib import Path

from tests.support.fixture_hosts import host_32cpu
from tests.support.screen_text import screen_text, until
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import TextScreen
from tuitune.tui.screens.procs import ProcsScreen


def console_app(tmp_path: Path) -> TuituneApp:
    """The recorded 32-CPU host on the Linux console (ASCII), three quick samples."""
    reader, ifname = host_32cpu(tmp_path / "host", samples=5)
    return TuituneApp(
        reader,
        ifname,
        interval=0.05,
        env={"TERM": "linux", "LANG": "C"},
        limit=3,
        show_cost=False,
        save_settings=False,
        journal_dir=tmp_path / "journal",
    )


async def test_p_opens_the_processes_view_at_80x24_on_the_console(tmp_path: Path) -> None:
    app = console_app(tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
        await pilot.press("P")
        await until(pilot, lambda: isinstance(app.screen, ProcsScreen))
        await until(pilot, lambda: "Processes using eth0: 0" in screen_text(app))
        text = screen_text(app)
        assert "No process has a socket on this interface's addresses" in text
        assert "l: NIC-local  i: an IRQ's CPU  c: pick CPUs  e: type" in text
        assert "pid" in text and "allowed" in text and "ran on" in text
        assert all(ord(ch) < 128 for ch in text), "the Linux console gets ASCII only"
        assert all(len(line) <= 80 for line in text.splitlines())
        await pilot.press("l")
        await until(pilot, lambda: "no process picked" in screen_text(app))
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, ProcsScreen))
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert isinstance(app.screen, TextScreen)  # the key list scrolls: its text, whole
        assert "Processes using the NIC: where they run, move them" in str(app.screen.body)
