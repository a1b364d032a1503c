"""A setting tuitune changed and someone else then changed too shows as drift on its row after
the next sample, not at the next full re-read of the host state (every 30 samples for
sysctls): here the full re-reads are switched off entirely, so only the per-sample check of
the held settings can notice it. It is never overwritten."""

from __future__ import annotations

from pathlib import Path

from tests.support.edit_host import editing
from tuitune.tui.screens.dialogs import EditorScreen

ROW = "sysctl:net.core.somaxconn"


async def test_a_sysctl_changed_behind_tuituines_back_shows_drift_on_the_next_sample(
    tmp_path: Path,
) -> None:
    async with editing(tmp_path) as h:
        app = h.app
        somaxconn = h.tree / "proc/sys/net/core/somaxconn"
        await h.tui.press("4")
        assert app.panels["sysctls"].view.move_cursor_to(ROW)
        await h.tui.press("e")
        await h.wait(lambda: isinstance(app.screen, EditorScreen))
        await h.tui.press("ctrl+u")
        await h.type("8192")
        await h.tui.press("enter")
        await h.wait(lambda: somaxconn.read_text().strip() == "8192")
        await h.wait(lambda: "8192" in h.row("sysctls", ROW))  # the re-read after the write
        # From now on, samples carry counters only: no NIC or host state is re-read unless
        # something asks for it.
        app.sampler.slow_every = app.sampler.host_every = 10**9
        drawn = app.samples_drawn
        await h.wait(lambda: app.samples_drawn > drawn + 1)  # plain samples still come
        assert "drift" not in h.row("sysctls", ROW)
        somaxconn.write_text("1024\n")  # another admin
        # The row says so (cut to its column); the message line says it in full.
        await h.wait(lambda: "drift: now 1024" in h.row("sysctls", ROW))
        assert "drift: net.core.somaxconn is 1024, tuitune had set 8192" in h.tui.header()
        assert "1024" in h.row("sysctls", ROW).split()  # the row's value is the new one too
        await h.tui.press("u")  # undo would overwrite it: refused, left alone
        await h.wait(lambda: "changed outside tuitune" in h.tui.header())
        assert somaxconn.read_text().strip() == "1024"
