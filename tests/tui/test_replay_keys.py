"""`tuitune replay`'s keys at 80x24 (issue 34): `]` jumps to the sample just after a setting
changed (the NIC panel's MTU is the new one, the rates are that sample's), `,` steps back
across it (the old MTU), the footer names the keys, and the screen stays read-only."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.support.recorded import record
from tests.tui.conftest import Tui, replay_app
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.recorder import Recorder
from tuitune.core.record.replay import open_recording

CHANGE_AT = 3  # the sample from which the recorded MTU is 1300


def _recording_with_a_change(tmp_path: Path) -> Path:
    """The 4-CPU replayed host's samples, recorded again with the MTU set to 1300 from the
    fourth sample on: a setting changed mid-recording."""
    taken = record(tmp_path, tmp_path / "plain.rec", samples=6)
    path = tmp_path / "changed.rec"
    host = next(s.host for s in taken if s.host is not None)
    nic = next(s.nic for s in taken if s.nic is not None)
    rec = Recorder(path, iface=nic.link.ifname, netns=None, interval=1.0, host=host, started=0.0)
    for i, s in enumerate(taken):
        mtu = 1300 if i >= CHANGE_AT else 1500
        rec.sample(replace(s, nic=replace(nic, link=replace(nic.link, mtu=mtu)), host=host))
    rec.close()
    return path


async def test_replay_jumps_to_a_change_and_steps_back_across_it(tmp_path: Path) -> None:
    rec = open_recording(_recording_with_a_change(tmp_path))
    with RecordingReader(rec) as reader:
        times = reader.times()
        app = replay_app(reader, tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            tui = Tui(app, pilot, reader)  # type: ignore[arg-type]
            await tui.drawn(1)
            assert "Next change" in tui.footer() and "Step" in tui.footer()
            assert "Bench" not in tui.footer()  # nothing to measure on a recording
            assert "mtu 1500" in tui.header()
            drawn = app.samples_drawn
            await tui.press("right_square_bracket")
            await tui.wait(lambda: reader.at == times[CHANGE_AT], "the change's sample")
            await tui.wait(lambda: "mtu 1300" in tui.header(), "the new MTU on screen")
            assert app.sampler.paused
            assert app.sample is not None and app.sample.rates is not None  # its own rates
            assert app.sample.rates.interval == times[CHANGE_AT] - times[CHANGE_AT - 1]
            await tui.press("comma")
            await tui.wait(lambda: reader.at == times[CHANGE_AT - 1], "a step back")
            await tui.wait(lambda: "mtu 1500" in tui.header(), "the old MTU again")
            assert app.samples_drawn > drawn
            # Read-only: the edit keys do nothing, no journal is opened for this host.
            await tui.press("u", "e")
            assert app.session.read_only and not list(tmp_path.glob("**/*.journal*"))
            # The all-IRQs view of a recording: the whole table is in it at its whole-read
            # samples only, so its title does not say every tick re-reads it (the live one's).
            await tui.press("2", "a")
            title = "IRQs (all of the host, as recorded)"
            await tui.wait(lambda: title in tui.screen_text(), "the recorded all view")
            await tui.press("m")  # no move on a recording: one line says why, nothing asked
            said = "m: no IRQ is moved here: read-only"
            await tui.wait(lambda: said in tui.header(), "m's reason")
            app.sampler.stop()
            await pilot.pause()
