"""`w` on the live screen (issue 34): it offers a new file under the state directory, records
the samples the screen draws with REC in the header, stops on the second `w` with a line
naming the file and its size; the file (0600) replays. A path in a directory that does not
exist: one line, nothing written, no REC."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from textual.widgets import Input

from tests.tui.conftest import Launch
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.replay import open_recording


async def test_w_records_what_the_screen_draws_and_w_again_stops(
    launch: Launch, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    places = tmp_path / "state" / "tuitune" / "recordings"
    async with launch(size=(80, 24), limit=None, interval=0.2, samples=40) as tui:
        app = tui.app
        # A path whose directory does not exist: refused in one line, nothing recorded.
        await tui.press("w")
        await tui.wait(lambda: "Record every sample" in tui.screen_text(), "the file asked for")
        await tui.press("ctrl+u", *str(tmp_path / "nowhere" / "x.rec"), "enter")
        await tui.wait(lambda: "not recording:" in tui.header(), "the refusal's line")
        assert "REC" not in tui.header() and app.rec.recorder is None
        assert not (tmp_path / "nowhere").exists()
        # The offered file: recording, REC in the header, the samples go in.
        await tui.press("w")
        await tui.wait(lambda: "Record every sample" in tui.screen_text(), "the file asked for")
        assert app.screen.query_one(Input).value.startswith(f"{places}/")
        # Its footer says what Enter does here: it starts a recording, it applies nothing.
        assert "Enter: start recording" in tui.screen_text()
        assert "Enter: apply" not in tui.screen_text()
        await tui.press("enter")
        await tui.wait(lambda: " REC " in tui.header(), "REC in the header")
        rec = app.rec.recorder
        assert rec is not None
        await tui.wait(lambda: rec.samples >= 3, "three samples recorded")
        await tui.press("w")
        await tui.wait(lambda: " REC " not in tui.header(), "REC gone")
        (path,) = places.glob("*.rec")
        size = f"{path.stat().st_size / 1024:.1f} KiB"
        await tui.wait(
            lambda: f"{path.name}: {rec.samples} samples, {size}" in tui.header(), "the line"
        )
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(places.stat().st_mode) == 0o700
    recording = open_recording(path)
    first, last, n = recording.span()
    assert n == rec.samples and last > first
    assert recording.header.iface == app.ifname
    # The replay reads it back: the NIC state the screen had, the recorded samples.
    with RecordingReader(recording) as reader:
        assert app.ifname is not None and reader.nic_state(app.ifname).link.ifname == app.ifname
        assert len(reader.times()) == n
