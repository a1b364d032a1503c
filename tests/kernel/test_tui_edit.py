"""Editing from the live screen against a real veth in a test namespace.

Toggling tx-checksum-ip-generic off makes the 6.18 kernel drop TSO too: the screen must mark
both rows "was on", `ethtool -k` must agree, undo must give back the exact requested bits, and
quitting with a change pending must ask, and revert when told to.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.conftest import VethNs
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import ChoiceScreen

FEATURE = "tx-checksum-ip-generic"


def nic_line(app: TuituneApp, key: str) -> str:
    row = next(r for r in app.panels["nic"].view.rows if r.key == key)
    return " ".join(c if isinstance(c, str) else "".join(t for t, _ in c) for c in row.cells)


async def test_toggle_shows_consequences_undo_and_quit_revert(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    before = veth_ns.nsexec("ethtool", "-k", veth_ns.a)
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, 0.1, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
            await pilot.press("3")
            assert app.panels["nic"].view.move_cursor_to(f"feature:{FEATURE}")
            await pilot.press("space")
            await until(pilot, lambda: "was on" in nic_line(app, "feature:tx-tcp-segmentation"))
            assert "off" in nic_line(app, f"feature:{FEATURE}").split()
            assert f"{FEATURE}: off" in veth_ns.nsexec("ethtool", "-k", veth_ns.a)
            assert "1 changed" in screen_text(app)
            await pilot.press("u")
            await until(pilot, lambda: veth_ns.nsexec("ethtool", "-k", veth_ns.a) == before)
            # Change again, then quit: tuitune asks, and "r" puts the original back.
            assert app.panels["nic"].view.move_cursor_to(f"feature:{FEATURE}")
            await pilot.press("space")
            await until(
                pilot, lambda: f"{FEATURE}: off" in veth_ns.nsexec("ethtool", "-k", veth_ns.a)
            )
            await pilot.press("q")
            await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
            await pilot.press("r")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()
    assert veth_ns.nsexec("ethtool", "-k", veth_ns.a) == before
    assert not list(tmp_path.glob("*.journal"))  # nothing left to restore


def tso_members(text: str) -> dict[str, str]:
    """`ethtool -k`'s TSO members (tx-tcp*-segmentation) and their state words."""
    out = {}
    for line in text.splitlines():
        name, _, rest = line.strip().partition(": ")
        if name.startswith("tx-tcp") and name.endswith("-segmentation"):
            out[name] = rest.split()[0]
    return out


async def test_g_moves_a_whole_short_name_group_as_one_step(
    veth_ns: VethNs, tmp_path: Path
) -> None:
    """g on tx-tcp-segmentation is `ethtool -K IF tso off`: every changeable member off, as
    one step that one u puts back exactly."""
    before = veth_ns.nsexec("ethtool", "-k", veth_ns.a)
    members = tso_members(before)
    assert len(members) >= 4 and set(members.values()) == {"on"}, members
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, 0.1, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
            await pilot.press("3")
            assert app.panels["nic"].view.move_cursor_to("feature:tx-tcp-segmentation")
            await pilot.press("g")
            now = lambda: tso_members(veth_ns.nsexec("ethtool", "-k", veth_ns.a))  # noqa: E731
            await until(pilot, lambda: set(now().values()) == {"off"})
            await until(pilot, lambda: "tso off: changed tx-tcp-segmentation, " in screen_text(app))
            assert app.editor.journal is not None and len(app.editor.journal.steps()) == 1
            for name in members:
                assert "was on" in nic_line(app, f"feature:{name}"), name
            await pilot.press("u")
            await until(pilot, lambda: veth_ns.nsexec("ethtool", "-k", veth_ns.a) == before)
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()
    assert veth_ns.nsexec("ethtool", "-k", veth_ns.a) == before
