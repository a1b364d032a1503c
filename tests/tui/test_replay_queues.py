"""Replay at 200x60 shows the recorded per-queue rows (issue 34): each NIC queue's IRQ row
has its own recorded packet and drop rates (the driver's counters recorded at every sample,
the rates between the sample shown and the one before), as the live screen shows them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.support.recorded import rerecorded
from tests.tui.conftest import Tui, replay_app
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording
from tuitune.core.watch.sampler import Sample


def _stats(tick: int) -> tuple[tuple[str, int], ...]:
    """igb's per-queue names (the replayed host's driver) for eth4's 4 queues: queue q's
    packets rise by 1000 * (q + 1) a tick, queue 2 drops 50 a tick."""
    out = []
    for q in range(4):
        out.append((f"rx_queue_{q}_packets", 1000 * (q + 1) * tick))
        out.append((f"rx_queue_{q}_drops", 50 * tick if q == 2 else 0))
    return tuple(out)


def _recording(tmp_path: Path) -> Path:
    def counted(i: int, s: Sample) -> Sample:
        return replace(s, driver_stats=_stats(i), stats_source="ethtool -S")

    return rerecorded(tmp_path, "queues.rec", counted)[0]


async def test_replay_shows_the_recorded_per_queue_rows(tmp_path: Path) -> None:
    with RecordingReader(open_recording(_recording(tmp_path))) as reader:
        app = replay_app(reader, tmp_path)
        async with app.run_test(size=(200, 60)) as pilot:
            tui = Tui(app, pilot, reader)  # type: ignore[arg-type]
            await tui.drawn(1)
            times = reader.times()
            await tui.press("T")
            await tui.press(*"3", "enter")  # the sample at 3 s, its rates against 2 s
            await tui.wait(lambda: reader.at == times[3] and app.sampler.paused, "3 s in")
            await tui.wait(lambda: app.sample is not None and app.sample.queues, "queues")
            rows = {ln.split()[1]: ln.split() for ln in tui.rows_seen("irqs") if "TxRx" in ln}
            assert "pkt/s" in tui.screen_text() and "drop/s" in tui.screen_text()
            # queue, IRQ, rate/s, pkt/s, drop/s: the recorded rises over the 1 s step.
            assert [rows[q][4:6] for q in "0123"] == [
                ["1000", "0"],
                ["2000", "0"],
                ["3000", "50"],
                ["4000", "0"],
            ]
            app.sampler.stop()
            await pilot.pause()
