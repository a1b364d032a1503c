"""Invalid input on every editor of the live screen: the editor comes back with the message on
screen, and nothing reaches the device or any file (the fake NIC's setter log and the tree's
file writer both stay empty).

Kinds: rings, each coalescing field (numbers and adaptive on/off), channels, pause, MTU below
the minimum and above the maximum, txqueuelen, RPS/XPS and IRQ CPU lists (an offline CPU, one
that does not exist, garbage), a sysctl integer, tcp_rmem with two numbers, and a pasted value
with a newline (the editor keeps its first line only, which is then refused as incomplete).
Every case goes through the journal as the editor's Enter does; one case per editor is typed
key by key into the screen (typing all of them took over a minute of the suite).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input, Static

from tests.support.edit_host import EditHost, editing
from tuitune.tui.screens.dialogs import EditorScreen

PANEL = {"nic": "3", "sysctls": "4", "irqs": "2"}

CASES: list[tuple[str, str, str, str]] = [
    # (panel, row, typed, the message shown)
    ("nic", "rings:rx", "", "eth0 rings rx: empty; enter a value such as 1"),
    ("nic", "rings:rx", "4097", "eth0 rings rx: 4097 is above the maximum 4096"),
    ("nic", "rings:tx", "lots", "eth0 rings tx: 'lots' is not a whole number"),
    ("nic", "rings:tx", "-1", "eth0 rings tx: cannot be negative (-1)"),
    ("nic", "rings:rx", "0", "eth0 rings rx: 0 is below the minimum 1"),  # not a ring size
    ("nic", "coalesce:rx-usecs", "fast", "eth0 coalesce rx-usecs: 'fast' is not a whole number"),
    (
        "nic",
        "coalesce:tx-usecs",
        "4294967296",
        "eth0 coalesce tx-usecs: 4294967296 is above the maximum 4294967295",
    ),
    ("nic", "coalesce:adaptive-rx", "maybe", "eth0 coalesce adaptive-rx: 'maybe' is not on or off"),
    ("nic", "channels:combined", "9", "eth0 channels combined: 9 is above the maximum 8"),
    (
        "nic",
        "channels:combined",
        "0",
        "eth0 channels combined: 0 would leave no rx or no tx channel (needs at least one)",
    ),
    ("nic", "channels:other", "2", "eth0 channels other: 2 is above the maximum 1"),
    ("nic", "pause:rx", "sometimes", "eth0 pause rx: 'sometimes' is not on or off"),
    ("nic", "pause:autoneg", "", "eth0 pause autoneg: empty; enter a value such as on or off"),
    ("nic", "link:mtu", "67", "eth0 mtu: 67 is below the minimum 68"),
    ("nic", "link:mtu", "4294967296", "eth0 mtu: 4294967296 is above the maximum 4294967295"),
    ("nic", "link:txqueuelen", "-1", "eth0 txqueuelen: cannot be negative (-1)"),
    ("nic", "link:txqueuelen", "1e3", "eth0 txqueuelen: '1e3' is not a whole number"),
    ("nic", "queue:rx-0", "31", "eth0 rx-0 rps_cpus: CPU 31 is offline (online: 0-30)"),
    (
        "nic",
        "queue:rx-0",
        "0-3,x",
        "eth0 rx-0 rps_cpus: 'x' in '0-3,x' is not a CPU number or range like 0-3",
    ),
    ("nic", "queue:tx-1", "64", "eth0 tx-1 xps_cpus: CPU 64 not on this host (online CPUs: 0-30)"),
    ("irqs", "irq:92", "30-31", "IRQ 92 (eth0-TxRx-0) affinity: CPU 31 is offline (online: 0-30)"),
    ("irqs", "irq:92", "3-1", "IRQ 92 (eth0-TxRx-0) affinity: range '3-1' in '3-1' runs backwards"),
    (
        "sysctls",
        "sysctl:net.core.somaxconn",
        "lots",
        "net.core.somaxconn needs an integer, got 'lots'",
    ),
    (
        "sysctls",
        "sysctl:net.core.netdev_max_backlog",
        "0",
        "net.core.netdev_max_backlog must be between 1 and 2147483647 packets, got 0",
    ),
    (
        "sysctls",
        "sysctl:net.ipv4.tcp_rmem",
        "4096 87380",
        "net.ipv4.tcp_rmem needs three integers min default max, got '4096 87380'",
    ),
]


async def open_editor(h: EditHost, panel: str, row: str) -> EditorScreen:
    app = h.app
    await h.tui.press(PANEL[panel])
    assert app.panels[panel].view.move_cursor_to(row), row
    await h.tui.press("e")
    await h.wait(lambda: isinstance(app.screen, EditorScreen))
    assert isinstance(app.screen, EditorScreen)
    return app.screen


async def refused_with(h: EditHost) -> str:
    """Wait for the editor to come back with its message; what the user reads there."""
    app = h.app
    await h.wait(lambda: isinstance(app.screen, EditorScreen) and app.screen.error != "")
    return h.shown(app.screen.query_one("#editor-error", Static))


def one_per_editor() -> list[tuple[str, str, str, str]]:
    """The first case of each editor (rings, coalesce, channels, pause, link, queue, irq,
    sysctl): driven through the screen, key by key."""
    seen: set[str] = set()
    picked = []
    for case in CASES:
        editor = case[1].split(":")[0]
        if editor not in seen:
            seen.add(editor)
            picked.append(case)
    return picked


async def test_every_editor_refuses_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        # Every case, through the path an editor's Enter takes (the row's edit spec, then the
        # journal's apply off the UI thread), without typing it: the refusal is the journal's.
        session = h.app.editor.session
        for panel, row, typed, message in CASES:
            await h.tui.press(PANEL[panel])  # the selection is the focused panel's row
            assert h.app.panels[panel].view.move_cursor_to(row), row
            await h.tui.pilot.pause()
            spec = h.app.editor.spec()
            assert not isinstance(spec, str), (row, spec)
            key = spec.key
            out = await asyncio.to_thread(session.run, lambda j, k=key, t=typed: j.apply(k, t))
            assert (out.status, out.reason) == ("invalid", message), (panel, row, typed)
            assert h.nothing_written(), (row, typed, h.writes.log, h.device.writes)
        # One case of each editor as the user meets it: typed, Enter, the message on screen.
        for panel, row, typed, message in one_per_editor():
            await open_editor(h, panel, row)
            await h.tui.press("ctrl+u")
            await h.type(typed)
            await h.tui.press("enter")
            assert await refused_with(h) == message, (panel, row, typed)
            assert h.nothing_written(), (row, typed, h.writes.log, h.device.writes)
            await h.tui.press("escape")
            await h.wait(lambda: not isinstance(h.app.screen, EditorScreen))
        # The journal recorded no original: there is nothing to undo or restore.
        assert h.app.editor.journal is None or h.app.editor.journal.originals() == {}


@pytest.mark.parametrize(
    ("row", "paste", "message"),
    [
        (
            "sysctl:net.ipv4.tcp_rmem",
            "4096 87380\n6291456\nnet.core.somaxconn = 1",
            "net.ipv4.tcp_rmem needs three integers min default max, got '4096 87380'",
        ),
        (
            "sysctl:net.core.somaxconn",
            "12abc\n1024",
            "net.core.somaxconn needs an integer, got '12abc'",
        ),
    ],
)
async def test_a_pasted_value_with_a_newline_never_reaches_the_kernel(
    tmp_path: Path, row: str, paste: str, message: str
) -> None:
    async with editing(tmp_path) as h:
        screen = await open_editor(h, "sysctls", row)
        await h.tui.press("ctrl+u")
        screen.query_one(Input).post_message(events.Paste(paste))
        await h.tui.pilot.pause()
        assert "\n" not in screen.query_one(Input).value  # one line is all an editor takes
        await h.tui.press("enter")
        assert await refused_with(h) == message
        assert h.nothing_written()


async def test_the_ring_editor_offers_sizes_from_1(tmp_path: Path) -> None:
    """Issue 22 item 14: it suggested "0..4096", and 0 is no ring size."""
    async with editing(tmp_path) as h:
        await open_editor(h, "nic", "rings:rx")
        assert "1..4096 (the device's maximum)" in h.screen()
        assert "0..4096" not in h.screen()
