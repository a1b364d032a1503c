"""After quitting with keep or revert, the shell says what was kept and how to put it back
(issue 31 item 19): the screen is gone, so the terminal keeps the record. The lines are the
app's `farewell_lines`, which `tuitune` (cli/live.py) prints once the screen has closed."""

from __future__ import annotations

from pathlib import Path

from tests.support.edit_host import editing
from tests.tui.test_edit_leave import question
from tests.tui.test_edit_refusals import edit


async def test_keep_says_what_was_kept_and_the_restore_command(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        await edit(h, "sysctls", "sysctl:net.core.somaxconn", "8192")
        await h.wait(lambda: "1 changed" in h.tui.header())
        await h.tui.press("q")
        await question(h)
        await h.tui.press("k")
        await h.wait(lambda: not h.app.is_running)
    lines = h.app.farewell_lines
    assert lines[0].startswith("tuitune: kept 1 change(s): net.core.somaxconn (was "), lines
    journal = tmp_path / "journal"
    assert lines[1] == (
        f"tuitune: to put the originals back: tuitune restore --journal-dir {journal} "
        "(they stay recorded until the next boot)."
    )


async def test_revert_says_everything_is_back(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        await edit(h, "sysctls", "sysctl:net.core.somaxconn", "8192")
        await h.wait(lambda: "1 changed" in h.tui.header())
        await h.tui.press("q")
        await question(h)
        await h.tui.press("r")
        await h.wait(lambda: not h.app.is_running)
    assert h.app.farewell_lines == [
        "tuitune: reverted 1 change(s): every setting is back to what tuitune found."
    ]
    assert (h.tree / "proc/sys/net/core/somaxconn").read_text().strip() != "8192"


def test_the_live_command_prints_them_after_the_screen() -> None:
    """cli/live.py prints farewell_lines after app.run() returns (read as code: running the
    real command needs a terminal)."""
    import inspect

    from tuitune.cli import live

    src = inspect.getsource(live)
    run_at, print_at = src.index("app.run()"), src.index("for line in app.farewell_lines")
    assert run_at < print_at
