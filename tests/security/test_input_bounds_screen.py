"""The live screen's editors fed unbounded and malformed input (issue 14, item 5 and the
editor part of item 8): a one-line message in the editor, still on screen, the app still
answering, and nothing written (the journal's file writer and the fake NIC log nothing, and
the recorded tree's settings files hold what they held).

`0-4000000000` typed into the RPS editor froze the screen while memory grew by 2 GB in 6 s:
the mask preview expanded the list on every keystroke. These tests lower the soft address
space limit while they run, so the code as it was fails with MemoryError instead of eating
the host; the fixed code needs a few hundred kB.
"""

from __future__ import annotations

import resource
from collections.abc import Iterator
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, Static

from tests.support.edit_host import EditHost, editing
from tuitune.tui.screens.dialogs import EditorScreen

HEADROOM = 1 << 30  # what the test process may grow by: threads and all, far above its need
PANEL = {"nic": "3", "sysctls": "4", "irqs": "2"}


def _vmsize() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc/self/status")


@pytest.fixture
def bounded_memory() -> Iterator[None]:
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    resource.setrlimit(resource.RLIMIT_AS, (_vmsize() + HEADROOM, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def settings_files(tree: Path) -> dict[str, str]:
    """Every file a change could land in: sysctls, IRQ affinities, the NIC's attributes."""
    out = {}
    for top in ("proc/sys", "proc/irq", "sys/class/net"):
        for path in sorted((tree / top).rglob("*")):
            if path.is_file() and not path.is_symlink():
                out[str(path.relative_to(tree))] = path.read_text()
    return out


async def open_editor(h: EditHost, panel: str, row: str) -> EditorScreen:
    app = h.app
    await h.tui.press(PANEL[panel])
    assert app.panels[panel].view.move_cursor_to(row), row
    await h.tui.press("e")
    await h.wait(lambda: isinstance(app.screen, EditorScreen))
    assert isinstance(app.screen, EditorScreen)
    return app.screen


async def paste(h: EditHost, screen: EditorScreen, text: str) -> None:
    """What a user pastes: one event, one preview rebuild."""
    await h.tui.press("ctrl+u")
    screen.query_one(Input).post_message(events.Paste(text))
    await h.tui.pilot.pause()


async def submit(h: EditHost) -> str:
    """Enter, then the editor back (a new one) with its message: the message, which must be
    one line and on the screen, where the user reads it."""
    app, old = h.app, h.app.screen
    await h.tui.press("enter")
    await h.wait(
        lambda: app.screen is not old and isinstance(app.screen, EditorScreen) and app.screen.error
    )
    assert isinstance(app.screen, EditorScreen)
    error = app.screen.error
    assert "\n" not in error and len(error) <= 200, error
    shown = h.shown(app.screen.query_one("#editor-error", Static))
    assert shown.split() and "".join(shown.split()) == "".join(error.split()), (shown, error)
    return error


def preview(h: EditHost) -> str:
    return h.shown(h.app.screen.query_one("#editor-preview", Static))


@pytest.mark.parametrize(
    ("possible", "where"),
    [("0-31", "is not on this host (CPUs 0-31)"), (None, "is beyond any host")],
)
async def test_rps_editor_with_a_huge_range(
    tmp_path: Path, bounded_memory: None, possible: str | None, where: str
) -> None:
    async with editing(tmp_path, possible=possible) as h:
        before = settings_files(h.tree)
        screen = await open_editor(h, "nic", "queue:rx-0")
        await paste(h, screen, "0-4000000000")
        assert preview(h).startswith("not a CPU list: CPU 4000000000")
        message = f"eth0 rx-0 rps_cpus: CPU 4000000000 in '0-4000000000' {where}"
        assert await submit(h) == message

        # Still answering: the editor closes, the screen keeps sampling.
        drawn = h.app.samples_drawn
        await h.tui.press("escape")
        await h.wait(lambda: not isinstance(h.app.screen, EditorScreen))
        await h.wait(lambda: h.app.samples_drawn > drawn)
        assert h.nothing_written(), (h.writes.log, h.device.writes)
        assert settings_files(h.tree) == before


async def test_rps_editor_with_cpu_99999_keeps_its_error_on_screen(
    tmp_path: Path, bounded_memory: None
) -> None:
    """A 12.5 KB mask preview (CPU 99999) pushed the editor's error off the screen."""
    async with editing(tmp_path, possible="0-31") as h:
        before = settings_files(h.tree)
        await open_editor(h, "nic", "queue:rx-0")
        await h.tui.press("ctrl+u")
        await h.type("99999")  # key by key, a preview per keystroke
        message = "eth0 rx-0 rps_cpus: CPU 99999 in '99999' is not on this host (CPUs 0-31)"
        assert await submit(h) == message  # and on the screen
        # The editor is back with what was typed, and its preview is one line.
        assert preview(h).startswith("not a CPU list: CPU 99999")
        assert len(preview(h)) <= 80
        assert h.nothing_written(), (h.writes.log, h.device.writes)
        assert settings_files(h.tree) == before


async def test_a_long_valid_mask_preview_stays_one_line(tmp_path: Path) -> None:
    """The largest list a host allows: the preview is elided, the low CPUs (the right end of
    the mask) still shown."""
    async with editing(tmp_path, possible="0-8191") as h:
        screen = await open_editor(h, "nic", "queue:rx-0")
        await paste(h, screen, "0,8191")
        shown = preview(h)
        assert shown.startswith("mask: 80000000,") and shown.endswith(",00000001")
        assert "…" in shown and len(shown) <= 80


EDITORS = [
    ("nic", "queue:rx-0"),
    ("nic", "queue:tx-1"),
    ("irqs", "irq:92"),
    ("nic", "link:mtu"),
    ("nic", "link:txqueuelen"),
    ("nic", "rings:rx"),
    ("nic", "coalesce:rx-usecs"),
    ("nic", "channels:combined"),
    ("sysctls", "sysctl:net.core.somaxconn"),
    ("sysctls", "sysctl:net.ipv4.tcp_rmem"),
]
HOSTILE = ["nan", "0-4000000000", "9" * 5000, "-inf", "0:1", "x" * 5000]


async def test_every_editor_answers_hostile_input_with_one_line(
    tmp_path: Path, bounded_memory: None
) -> None:
    """Each editor on the screen, three hostile inputs each, in rotation (so every input meets
    a CPU-list, a number and a sysctl editor); the full matrix, every setting by every input,
    is test_input_bounds.py's, below the screen."""
    async with editing(tmp_path, possible="0-31") as h:
        before = settings_files(h.tree)
        for n, (panel, row) in enumerate(EDITORS):
            screen = await open_editor(h, panel, row)
            for text in (HOSTILE * 2)[3 * (n % 2) :][:3]:
                await paste(h, screen, text)
                await submit(h)  # one line, on the screen
                assert isinstance(h.app.screen, EditorScreen)
                screen = h.app.screen
            await h.tui.press("escape")
            await h.wait(lambda: not isinstance(h.app.screen, EditorScreen))
        assert h.nothing_written(), (h.writes.log, h.device.writes)
        assert settings_files(h.tree) == before
