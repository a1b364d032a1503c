"""The MTU editor against a real veth: the bounds are the device's own (rtnetlink min_mtu 68,
max_mtu 65535 for veth); a value outside them is refused on screen and the link keeps its
MTU, as `ip link` shows."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from tests.kernel.conftest import VethNs
from tests.support.screen_app import screen_app
from tests.support.screen_text import until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.screens.dialogs import EditorScreen

pytestmark = pytest.mark.kernel


def mtu(veth: VethNs) -> str:
    return veth.ip("-o", "link", "show", veth.a).split(" mtu ")[1].split()[0]


async def test_mtu_outside_the_devices_bounds_is_refused(veth_ns: VethNs, tmp_path: Path) -> None:
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, interval=0.2, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
            await pilot.press("3")
            for typed, message in (
                ("67", f"{veth_ns.a} mtu: 67 is below the minimum 68"),
                ("65536", f"{veth_ns.a} mtu: 65536 is above the maximum 65535"),
            ):
                assert app.panels["nic"].view.move_cursor_to("link:mtu")
                await pilot.press("e")
                await until(pilot, lambda: isinstance(app.screen, EditorScreen))
                await pilot.press("ctrl+u", *typed, "enter")
                await until(
                    pilot, lambda: isinstance(app.screen, EditorScreen) and app.screen.error != ""
                )
                error = app.screen.query_one("#editor-error", Static)
                assert " ".join(str(error.render()).split()) == message
                assert mtu(veth_ns) == "1500"
                await pilot.press("escape")
                await until(pilot, lambda: not isinstance(app.screen, EditorScreen))
            app.sampler.stop()
    finally:
        reader.close()
    assert not list(tmp_path.glob("*.journal")) or all(
        "orig" not in p.read_text() for p in tmp_path.glob("*.journal")
    )
