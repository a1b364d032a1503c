"""The findings view (A) on the replayed 32-CPU host whose igb queues all land on a pegged
cpu0: it names the finding with its evidence, Enter applies it as one step, u undoes it; with
no window yet it says what it needs. Screen text and the tree's /proc/irq files, not flags."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.support.fixture_hosts import host_32cpu
from tests.tui.conftest import Launch, Tui
from tests.tui.test_editing import running
from tuitune.tui.app import TuituneApp
from tuitune.tui.controllers.advisor import AdvisorScreen


def _aff(app: TuituneApp, irq: str) -> str:
    return (app.reader.root.proc / f"irq/{irq}/smp_affinity_list").read_text().strip()


async def test_findings_apply_and_undo(tmp_path: Path) -> None:
    async with running(tmp_path, limit=5) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        tui = Tui(app, pilot, app.reader)  # type: ignore[arg-type]
        await tui.wait(lambda: app.samples_drawn >= 5, "the whole window drawn")
        await tui.press("A")
        await tui.wait(lambda: isinstance(app.screen, AdvisorScreen), "the findings view")
        text = tui.screen_text()
        assert "cpu-saturated" in text and "cpu0 is saturated by eth0's traffic" in text
        assert "evidence  cpu0: 100 % busy (50 % sys, 0 % irq, 50 % soft)" in text
        assert "change    IRQ 93 (eth0-TxRx-1) affinity -> 1" in text
        assert _aff(app, "93") == "0"
        await tui.press("enter")  # cpu-saturated is first: the worst
        await tui.wait(lambda: _aff(app, "93") == "1", "the spread plan written")
        assert not isinstance(app.screen, AdvisorScreen)
        await tui.wait(lambda: "applied cpu-saturated as one step" in tui.header(), "the news")
        assert [_aff(app, str(i)) for i in range(92, 100)] == [str(c) for c in range(8)]
        await tui.press("u")
        await tui.wait(lambda: _aff(app, "93") == "0", "one undo puts every IRQ back")
        assert {_aff(app, str(i)) for i in range(92, 100)} == {"0"}


async def test_no_window_says_what_it_needs(tmp_path: Path) -> None:
    # One recorded sample, replayed: the counters never move, so the window has no load.
    reader, _ = host_32cpu(tmp_path / "host", samples=1)
    async with running(tmp_path, reader=reader) as pilot:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        tui = Tui(app, pilot, app.reader)  # type: ignore[arg-type]
        await tui.press("A")
        await tui.wait(lambda: isinstance(app.screen, AdvisorScreen), "the findings view")
        text = tui.screen_text()
        assert "not judged: cpu-saturated: no NIC traffic in the window" in text
        assert "cpu0 is saturated" not in text
        await tui.press("c")  # the context: any -> lan
        await tui.wait(lambda: "context lan" in tui.screen_text(), "the view again, for lan")
        await tui.press("escape")
        assert not isinstance(app.screen, AdvisorScreen)


async def test_context_is_remembered_per_interface(launch: Launch, tmp_path: Path) -> None:
    config = tmp_path / "tuitune" / "config.toml"
    async with launch(save_settings=True) as tui:
        await tui.press("A")
        await tui.wait(lambda: isinstance(tui.app.screen, AdvisorScreen), "the findings view")
        assert "context any" in tui.screen_text()
        await tui.press("c", "c")  # any -> lan -> wan
        await tui.wait(lambda: "context wan" in tui.screen_text(), "the view for wan")
        await tui.press("escape")
    assert tomllib.loads(config.read_text())["advise"]["context"] == {"eth0": "wan"}
    async with launch(save_settings=True) as tui:  # the next start, the same user
        await tui.press("A")
        await tui.wait(lambda: isinstance(tui.app.screen, AdvisorScreen), "the findings view")
        assert "context wan" in tui.screen_text()


async def test_header_counts_the_findings_as_the_window_moves(launch: Launch) -> None:
    """At 80x24, without opening anything: the pegged host's window names a bottleneck in the
    header once the Advisor has judged it; the same host replayed without load does not."""
    async with launch(host_32cpu, size=(80, 24), limit=8) as tui:
        await tui.wait(lambda: "(A)" in tui.header(), "the Advisor's count")
        header = tui.header()
        assert "3 bottlenecks, 1 risk (A)" in header  # cpu-saturated, softnet-drops...
        line = next(x for x in header.splitlines() if "(A)" in x)
        assert len(line) <= 80
    async with launch(host_32cpu, size=(80, 24), samples=1, limit=8) as tui:
        await tui.wait(lambda: "(A)" in tui.header(), "the Advisor's count")
        assert "bottleneck" not in tui.header()
