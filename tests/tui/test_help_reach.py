"""Every device help entry opens from a row it explains (issue 31 item 9).

Of the catalog's device help, seven entries (irqbalance, MSI-X, CPU power, PCIe link, firewall,
nice, sendfile) could not be opened from any screen, and the RPS/XPS rows opened the taskset
help. Here each entry is reached the way a user reaches it, at 80x24 and 200x60: Enter on an
IRQ row (irqbalance, MSI-X), on a CPU row (CPU power, firewall), on the NIC panel's bus row
(PCIe link) and queue-count row (MSI-X), on an RPS/XPS row (its own entry), and `h` in the
processes view (P: CPU affinity, nice, sendfile).
"""

from __future__ import annotations

import pytest

from tests.tui.conftest import Launch, Tui
from tuitune.core.catalog.device import DEVICE_HELP
from tuitune.tui.panels.sysctlpanel import PROCESS_HELP, help_names
from tuitune.tui.screens.dialogs import TextScreen
from tuitune.tui.screens.host import HostScreen
from tuitune.tui.screens.procs import ProcsScreen

SIZES = [(80, 24), (200, 60)]


def _text(tui: Tui) -> str:
    screen = tui.app.screen
    assert isinstance(screen, TextScreen), type(screen)
    return str(screen.body)


async def _enter_on(tui: Tui, panel: str, key_prefix: str) -> str:
    """Put the panel's cursor on the first row whose key starts with `key_prefix`, press
    Enter, and return the help that opened (then close it). The cursor is placed, not walked
    there key by key (the walk was 2.8 of the two tests' 11.2 s of CPU): the arrows' walk is
    tests/tui/test_rows.py's and test_nic_glance_steady.py's; Enter is the user's key here."""
    await tui.press({"cpus": "1", "irqs": "2", "nic": "3"}[panel])
    view = tui.view(panel)
    key = next((r.key for r in view.shown if r.key.startswith(key_prefix)), None)
    assert key is not None and view.move_cursor_to(key), key_prefix
    await tui.pilot.pause()
    assert (view.cursor_key or "").startswith(key_prefix), view.cursor_key
    await tui.press("enter")
    await tui.wait(lambda: isinstance(tui.app.screen, TextScreen), "the row's help")
    text = _text(tui)
    await tui.press("escape")
    return text


@pytest.mark.parametrize("size", SIZES)
async def test_every_device_help_entry_opens_from_its_row(
    launch: Launch, size: tuple[int, int]
) -> None:
    async with launch(size=size) as tui:
        # This host's igb shows few offloads: the others are reached by their kernel names.
        offloads = ("tx-tcp-segmentation", "tx-scatter-gather", "rx-checksum", "tx-checksum-ipv4")
        reached = set(PROCESS_HELP) | {n for f in offloads for n in help_names(f"feature:{f}")}
        for name in ("cpus", "irqs", "nic", "sysctls"):
            for row in tui.view(name).rows:
                if row.key:
                    reached.update(help_names(row.key))
        # The Host view's rows (H): the transceiver's optics row is the only way to its entry.
        await tui.press("H")
        await tui.wait(lambda: isinstance(tui.app.screen, HostScreen), "the Host view")
        screen = tui.app.screen
        assert isinstance(screen, HostScreen)
        await tui.wait(lambda: bool(screen.rows), "the Host view's rows")
        reached.update(r.help for r in screen.rows if r.help)
        await tui.press("escape")
        assert reached == set(DEVICE_HELP), set(DEVICE_HELP) - reached

        rps = await _enter_on(tui, "nic", "queue:rx-")
        assert DEVICE_HELP["rps-xps"].summary in rps
        assert "taskset" not in rps  # not the process-affinity entry
        bus = await _enter_on(tui, "nic", "link:bus")
        assert DEVICE_HELP["pcie-link"].summary in bus
        queues = await _enter_on(tui, "nic", "link:queues")
        assert DEVICE_HELP["msi-x"].summary in queues
        irq = await _enter_on(tui, "irqs", "irq:")
        assert "irqbalance: " + DEVICE_HELP["irqbalance"].summary in irq
        assert "msi-x: " + DEVICE_HELP["msi-x"].summary in irq
        cpu = await _enter_on(tui, "cpus", "cpu:0")
        assert "cpu-power: " + DEVICE_HELP["cpu-power"].summary in cpu
        assert "firewall: " + DEVICE_HELP["firewall"].summary in cpu
        assert "usr" in cpu  # the row itself comes first: a CPU row has no entry of its own

        await tui.press("P")
        await tui.wait(lambda: isinstance(tui.app.screen, ProcsScreen), "the processes view")
        await tui.wait(lambda: "h: help" in tui.screen_text(), "the P view names h")
        await tui.press("h")
        await tui.wait(lambda: isinstance(tui.app.screen, TextScreen), "the process help")
        procs = _text(tui)
        for name in ("cpu-affinity", "nice", "sendfile"):
            assert f"{name}: {DEVICE_HELP[name].summary}" in procs
