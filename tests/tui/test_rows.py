"""Pilot tests for the keys of every list: cursor movement, and Enter / i for help on a row.

The cursor is what the user sees highlighted: each assertion reads the reverse-video line off
the screen, not just the list's index.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.tui.conftest import Launch
from tuitune.tui.screens.dialogs import TextScreen


async def test_enter_on_a_sysctl_opens_its_help_with_the_reports(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("4")
        assert tui.view("sysctls").cursor_key == "sysctl:net.core.netdev_max_backlog"
        await tui.press("enter")
        assert isinstance(tui.app.screen, TextScreen)
        text = tui.screen_text()
        assert "─ net.core.netdev_max_backlog ─" in text
        assert "What the reports found:" in text
        assert "LAN advice" in text and "WAN advice" in text
        await tui.press("escape")
        assert not isinstance(tui.app.screen, TextScreen)
        assert "─ net.core.netdev_max_backlog ─" not in tui.screen_text()


async def test_i_on_a_nic_row_opens_its_help(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("3")
        assert tui.view("nic").cursor_key == "link:mtu"
        await tui.press("i")
        assert isinstance(tui.app.screen, TextScreen)
        text = tui.screen_text()
        assert "─ mtu (mtu) ─" in text and "What the reports found:" in text
        await tui.press("q")
        assert not isinstance(tui.app.screen, TextScreen) and tui.app.is_running


async def test_help_strip_shows_that_enter_gives_more(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("4")
        assert tui.view("sysctls").cursor_key == "sysctl:net.core.netdev_max_backlog"
        # What Enter gives comes first, so a long summary cannot push it out of the strip.
        assert tui.help_strip("sysctls").startswith("Enter: more.")


async def test_a_row_that_offers_help_has_help(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("2")
        assert "Enter" in tui.help_strip("irqs")
        await tui.press("enter")
        assert isinstance(tui.app.screen, TextScreen), tui.header()


async def test_cursor_keys_move_the_highlighted_row(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("4")
        view = tui.view("sysctls")
        keys = [r.key for r in view.shown if not r.section]

        def at() -> str:
            """The sysctl the highlighted line shows, checked against the list's cursor."""
            line = tui.cursor_line("sysctls")
            assert line is not None, "no highlighted row on screen"
            key = f"sysctl:net.{line.split()[0]}"
            assert view.cursor_key == key
            return key

        assert at() == keys[0]  # the first row under the first heading
        await tui.press("down")
        assert at() == keys[1]
        await tui.press("j", "j")
        assert at() == keys[3]
        await tui.press("k")
        assert at() == keys[2]
        await tui.press("up", "up", "up")
        assert at() == keys[0]  # stops at the top, never on a heading
        await tui.press("pagedown")
        page = tui.view("sysctls").scrollable_content_region.height - 1
        assert keys.index(at()) >= page - 2  # a page on, and still on screen
        await tui.press("pageup")
        assert at() == keys[0]
        await tui.press("end")
        assert at() == keys[-1]  # scrolled: the last row is on screen, highlighted
        assert tui.rows_seen("sysctls")[0].split()[0] != "core:"
        await tui.press("home")
        assert at() == keys[0]
        # The help strip follows the cursor.
        assert "Per-CPU queue" in tui.help_strip("sysctls")


async def test_cursor_stays_on_its_row_across_samples(launch: Launch) -> None:
    async with launch(limit=None, samples=40, interval=0.2, wait=2) as tui:
        await tui.press("v")  # the per-CPU list, in topology order
        if tui.app.grid_mode != "list":
            await tui.press("v")
        view = tui.view("cpus")
        await tui.press("down", "down", "down", "down")
        line = tui.cursor_line("cpus")
        assert line is not None and line.split()[0] == "17◆"  # all, 0, 16, 1, 17 (SMT pairs)
        await tui.drawn(tui.app.samples_drawn + 2)  # redrawn from new samples twice
        assert view.cursor_key == "cpu:17"
        line = tui.cursor_line("cpus")
        assert line is not None and line.split()[0] == "17◆"


async def test_cursor_survives_a_filter_on_its_row(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("3", "end")
        assert tui.view("nic").cursor_key == "feature:rx-lro"
        await tui.press("slash", *"lro", "enter")
        line = tui.cursor_line("nic")
        assert line is not None and line.split()[0] == "rx-lro"
        await tui.press("escape")
        assert tui.view("nic").cursor_key == "feature:rx-lro"


async def test_cursor_row_stays_on_screen_when_the_rows_change(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("2", "down", "down", "down", "a")
        assert tui.view("irqs").cursor_key == "irq:95"
        line = tui.cursor_line("irqs")  # None: the cursor row is scrolled out of sight
        assert line is not None and line.split()[:3] == ["TxRx", "3", "95"]
        # The same after clearing a filter: the cursor row is far down the full list.
        await tui.press("3", "end", "slash", *"lro", "escape")
        assert tui.view("nic").cursor_key == "feature:rx-lro"
        line = tui.cursor_line("nic")
        assert line is not None and line.split()[0] == "rx-lro"


async def test_home_shows_the_top_of_the_list(launch: Launch) -> None:
    async with launch() as tui:
        await tui.press("4", "end", "home")
        assert tui.view("sysctls").cursor_key == "sysctl:net.core.netdev_max_backlog"
        assert tui.rows_seen("sysctls")[0].startswith("core:")


def test_offload_rows_carry_their_ethtool_short_name() -> None:
    """The reports and users say "tso", the kernel "tx-tcp-segmentation": the NIC row notes
    the short name, and the filter searches the note. Names from this kernel's veth."""
    from tuitune.core.host.ethtool import short_name as _short_name

    assert _short_name("tx-tcp-segmentation") == "tso"
    assert _short_name("tx-tcp6-segmentation") == "tso"
    assert _short_name("tx-generic-segmentation") == "gso"
    assert _short_name("tx-scatter-gather-fraglist") == "sg"
    assert _short_name("tx-checksum-ip-generic") == "tx"
    assert _short_name("rx-checksum") == "rx"
    assert _short_name("rx-gro-list") == ""  # not what `ethtool -K gro` moves
    assert _short_name("tx-nocache-copy") == ""


def one_tx_queue_without_xps(tree: Path) -> None:
    """eth0 left with one tx queue, whose xps_cpus the kernel does not offer (ENOENT)."""
    queues = tree / "sys" / "class" / "net" / "eth0" / "queues"
    for q in queues.glob("tx-*"):
        if q.name != "tx-0":
            shutil.rmtree(q)
    (queues / "tx-0" / "xps_cpus").unlink(missing_ok=True)


async def test_a_queue_row_names_its_setting_once(launch: Launch) -> None:
    """Issue 22 item 14: the row read "tx-0 xps: xps: needs more than one tx queue"."""
    async with launch(prepare=one_tx_queue_without_xps) as tui:
        await tui.press("3")
        assert tui.view("nic").move_cursor_to("queue:tx-0")
        await tui.pilot.pause()
        line = " ".join((tui.cursor_line("nic") or "").split())
        assert line == "tx-0 xps: needs more than one tx queue", line
