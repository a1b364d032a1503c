"""Outside strings on the live screen (issue 30, 2): the captured frame of the running app
holds no raw control character when a `nobody`-written tree names its host with escape
sequences and a notice quotes such a name."""

from __future__ import annotations

from pathlib import Path

from tests.security.hostile_text import ALL, raw_in
from tests.support.hosttree import build_tree, hyperv_2cpu
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader


async def test_the_live_frame_holds_no_raw_control_character(tmp_path: Path) -> None:
    tree = build_tree(tmp_path / "hyperv", hyperv_2cpu(hostname="host" + ALL))
    # An IRQ's action name is a driver's words, and a tree's author's: the rtc0 line names it.
    interrupts = tree / "proc/interrupts"
    text = interrupts.read_text().replace("rtc0", "rtc0" + ALL.replace("\n", ""))
    interrupts.write_text(text)
    reader = HostReader(HostRoot.fixture(tree))
    app = screen_app(reader, "eth0", interval=0.1, journal_dir=tmp_path / "journal")
    try:
        async with app.run_test(size=(200, 60)) as pilot:
            await until(pilot, lambda: app.samples_drawn >= 2)
            app.notify_line("process " + ALL + " is gone")
            await until(pilot, lambda: "is gone" in screen_text(app))
            frame = screen_text(app)
            assert raw_in(frame) == [], frame
            assert "\\x1b" in frame  # the notice is there, its escapes visible
            await pilot.press("2", "a")  # every IRQ of the host, rtc0's among them
            await until(pilot, lambda: "rtc0" in screen_text(app))
            frame = screen_text(app)
            assert raw_in(frame) == [], frame
            await pilot.press("q")
            await until(pilot, lambda: not app.is_running)
    finally:
        reader.close()
