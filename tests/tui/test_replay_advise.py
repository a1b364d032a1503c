"""Replay's `A` judges the window around the cursor (issue 34), not the whole file and not
the samples the screen happened to draw, and says the same as `advise --recording FILE --from
T1 --to T2` for that window: the title names it, the findings and the window's seconds agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.command import ran
from tests.support.recorded import record
from tests.tui.conftest import Tui, replay_app
from tuitune.core.record.judge import HALF_WINDOW
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording
from tuitune.tui.controllers.advisor import AdvisorScreen

SAMPLES = 14  # 13 s at 1 s: longer than the window either side of a cursor


def _advise(path: Path, *window: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(ran("advise", "--json", "--recording", path, *window)[1])
    return doc


async def test_a_in_replay_judges_the_window_around_the_cursor(tmp_path: Path) -> None:
    path = tmp_path / "r.rec"
    record(tmp_path, path, samples=SAMPLES)
    with RecordingReader(open_recording(path)) as reader:
        times = reader.times()
        app = replay_app(reader, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            tui = Tui(app, pilot, reader)  # type: ignore[arg-type]
            await tui.drawn(1)
            await tui.press("T")
            await tui.press(*"3", "enter")  # the cursor on the sample at 3 s
            await tui.wait(lambda: reader.at == times[3] and app.sampler.paused, "3 s in")
            await tui.press("A")
            await tui.wait(lambda: isinstance(app.screen, AdvisorScreen), "the findings")
            screen = app.screen
            assert isinstance(screen, AdvisorScreen)
            start, end = max(times[0], times[3] - HALF_WINDOW), times[3] + HALF_WINDOW
            assert f"from {start:g} s to {end:g} s (--from" in (screen.span or "")
            shown = [f.id for f in screen.advice.findings]
            seconds = screen.seconds
            app.sampler.stop()
            await pilot.pause()
    cli = _advise(path, "--from", f"{start:g}", "--to", f"{end:g}")
    assert [f["id"] for f in cli["findings"]] == shown
    assert cli["window"]["seconds"] == round(seconds, 3) == end - start
    whole = _advise(path)
    assert whole["window"]["seconds"] == times[-1] - times[0] > seconds  # not the whole file
