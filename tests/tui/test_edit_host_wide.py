"""A host-wide sysctl from a network-namespace session: the screen says it changes the whole
host and asks; Esc writes nothing; yes writes it to the host's files (here a recorded tree
that stands for both), journals it with the namespace's changes, and u puts it back."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input, Static

from tests.support.edit_host import EditHost, editing
from tuitune.tui.screens.dialogs import ChoiceScreen

BACKLOG = "net.core.netdev_max_backlog"


def backlog(h: EditHost) -> str:
    return (h.tree / "proc/sys/net/core/netdev_max_backlog").read_text().strip()


async def ask(h: EditHost, value: str) -> ChoiceScreen:
    await h.tui.press("4")
    assert h.app.panels["sysctls"].view.move_cursor_to(f"sysctl:{BACKLOG}")
    await h.tui.press("e")
    await h.wait(lambda: h.app.screen.query(Input))
    await h.type(value)
    await h.tui.press("enter")
    await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
    assert isinstance(h.app.screen, ChoiceScreen)
    return h.app.screen


async def test_a_host_wide_change_from_a_namespace_asks_then_is_journaled(tmp_path: Path) -> None:
    async with editing(tmp_path, netns="lab") as h:
        await h.tui.press("4")
        assert h.row("sysctls", f"sysctl:{BACKLOG}").split()[1:3] == ["1000", "host"]
        screen = await ask(h, "250000")
        said = " ".join(h.shown(s) for s in screen.query(Static))
        assert f"{BACKLOG} is one value for the whole host, not one per namespace" in said
        assert "This session is in network namespace lab" in said
        await h.tui.press("escape")
        await h.wait(lambda: not isinstance(h.app.screen, ChoiceScreen))
        assert h.nothing_written() and backlog(h) == "1000"

        await ask(h, "250000")
        await h.tui.press("y")
        await h.wait(lambda: backlog(h) == "250000")
        await h.wait(lambda: h.row("sysctls", f"sysctl:{BACKLOG}").split()[1] == "250000")
        journal = h.app.editor.journal
        assert journal is not None
        assert {k.name: v for k, v in journal.originals().items()} == {BACKLOG: "1000"}
        await h.tui.press("u")  # undo asks nothing: it puts the original back
        await h.wait(lambda: backlog(h) == "1000")


async def test_a_sweep_of_a_host_wide_sysctl_from_a_namespace_asks_first(tmp_path: Path) -> None:
    """The sweep writes through the screen's session, which may write the host's settings:
    it asks once, before its first change; Esc starts nothing and says why on the form."""
    from tuitune.tui.screens.sweep import SweepScreen

    async with editing(tmp_path, netns="lab") as h:
        await h.tui.press("W")
        await h.wait(lambda: isinstance(h.app.screen, SweepScreen))
        form = h.app.screen
        form.query_one("#sweep-dim1", Input).value = f"{BACKLOG} = 1000 | 250000"
        form.query_one("#sweep-dim2", Input).value = ""
        form.query_one("#sweep-peer", Input).value = "198.18.0.2"
        form.query_one("#sweep-dim1", Input).focus()
        await h.tui.press("enter")
        await h.wait(lambda: isinstance(h.app.screen, ChoiceScreen))
        said = " ".join(h.shown(s) for s in h.app.screen.query(Static))
        assert f"{BACKLOG} is one value for the whole host" in said
        assert "This session is in network namespace lab" in said
        await h.tui.press("escape")
        await h.wait(lambda: h.app.screen is form)
        await h.wait(lambda: "not started: it would change the whole host" in h.shown(form))
        assert h.nothing_written() and backlog(h) == "1000"
        assert not h.app.app_sweep.running
