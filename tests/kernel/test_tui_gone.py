"""An interface deleted under the live screen: the screen says it is gone, the CPU grid stays
live, and the interface is picked up again when a device of that name comes back.

Before, every tick failed while it was gone: the CPU grid froze and the header showed
`(19, 'No such device')`.
"""

from __future__ import annotations

from pathlib import Path

from tests.kernel.conftest import VethNs
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp


def header(app: TuituneApp) -> str:
    return "\n".join(screen_text(app).splitlines()[:6])


async def test_deleted_interface_is_gone_then_back(veth_ns: VethNs, tmp_path: Path) -> None:
    reader = HostReader(HostRoot(netns=veth_ns.ns))
    app = screen_app(reader, veth_ns.a, interval=0.1, journal_dir=tmp_path)
    try:
        async with app.run_test(size=(160, 48)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 2)
            assert "veth" in header(app)

            veth_ns.ip("link", "del", veth_ns.a)  # takes its peer with it
            deleted_at = app.samples_drawn
            await until(pilot, lambda: "GONE" in header(app), timeout=30)
            assert app.samples_drawn - deleted_at <= 5  # said within a few samples
            assert "No such device" not in screen_text(app)
            assert "gone: waiting" in screen_text(app)  # the NIC panel says so too

            # The CPU grid goes on: new samples keep coming, each with its numbers.
            seen = app.samples_drawn
            await until(pilot, lambda: app.samples_drawn >= seen + 3, timeout=30)
            s = app.sample
            assert s is not None and s.gone and s.counters is not None and s.rates is not None
            assert s.rates.cpus and app.panels["cpus"].view.rows
            assert s.error is None

            # A device of that name again: read afresh, the header shows it, GONE goes.
            veth_ns.ip("link", "add", veth_ns.a, "type", "veth", "peer", "name", veth_ns.b)
            veth_ns.ip("link", "set", veth_ns.a, "up")
            await until(
                pilot,
                lambda: app.nic is not None and "GONE" not in header(app),
                timeout=30,
            )
            assert "veth" in header(app) and app.nic.link.ifname == veth_ns.a
            assert app.panels["nic"].view.rows  # the NIC panel has its rows again
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()
