"""The first frame has numbers (issue 18, goal 2): on a live host the first sample's averages
since boot are drawn at once, marked as such, and the state read follows."""

from __future__ import annotations

from pathlib import Path

from tests.support.fixture_hosts import host_4cpu_series
from tests.tui.conftest import Tui
from tuitune.tui.app import TuituneApp


async def test_first_frame_shows_averages_since_boot_before_a_second_sample(
    tmp_path: Path,
) -> None:
    reader, name = host_4cpu_series(tmp_path)
    reader.start = 86400.0  # the replay's clock: a day since boot, as time.monotonic() counts
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)}
    with reader:
        app = TuituneApp(reader, name, env=env, limit=1, show_cost=False, save_settings=False)
        app.sampler.since_boot = True  # what a live host gets (the fixture tree is not live)
        async with app.run_test(size=(160, 48)) as pilot:
            tui = Tui(app, pilot, reader)
            await tui.drawn(1)
            # One sample only (limit=1): no rates between two samples can be on screen.
            assert app.sample is not None and app.sample.rates is None
            assert "averages since boot" in tui.top_border("cpus")
            rows = tui.text_of(tui.view("cpus"))
            cpu0 = next(line for line in rows if line.split()[:1] == ["0"])
            assert any(ch.isdigit() for ch in cpu0.split(None, 1)[1])
            await tui.drawn(2)  # the NIC state, read after the numbers were drawn
            assert any("TxRx 0" in line for line in tui.text_of(tui.view("irqs")))
            app.sampler.stop()
            await pilot.pause()
