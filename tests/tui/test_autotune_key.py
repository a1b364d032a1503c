"""T on the live screen starts autotune (tui/controllers/autotune.py) from a form: the peer
(outside the lab), the goal and an optional sweep spec, read and refused as `tuitune autotune
--goal --spec` reads them (one line under the fields, nothing changed). A latency goal runs
sockperf and judges the median round trip: the runs replay a recorded real sockperf output
(tests/fixtures/engines/sockperf-pp.txt) through the real runner with `cat` as the command, on
the 32-CPU fixture host; what is asserted is what the screen shows and the report says. The
put-back on T or quit was tried by hand in tmux on a veth pair (docs/autotune.md); the search
and its put-back are the CLI's, tested in tests/kernel/test_autotune_*.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Input

from tests.tui.test_bench_form import bench_app
from tuitune.core.advise import peer as peer_mod
from tuitune.tui.screens.autotune_form import AutotuneFormScreen
from tuitune.tui.screens.dialogs import TextScreen
from tuitune.tui.screens.word_choice import WordChoice

SOCKPERF = Path(__file__).resolve().parents[1] / "fixtures" / "engines" / "sockperf-pp.txt"


@pytest.fixture(autouse=True)
def no_ping(monkeypatch: pytest.MonkeyPatch) -> None:
    """The profile's round trip to the peer: unanswered (a documentation address)."""

    def unanswered(*_: object) -> object:
        raise peer_mod.BadPeer("no reply")

    monkeypatch.setattr(peer_mod, "probe_peer", unanswered)


def judged(app: Any) -> None:
    """The advisor's judgement of the samples so far, as the header's count takes it."""
    got = app.advisor.judge()
    assert got is not None
    app.advisor.counted = got[0]


async def test_t_asks_for_the_peer_then_says_why_not_in_one_line(tmp_path: Path) -> None:
    size = (80, 24)
    async with bench_app(tmp_path, size=size) as tui:
        app = tui.app
        app.advisor.counted = None  # not judged yet, whatever the samples so far
        await tui.press("T")
        await tui.wait(lambda: isinstance(app.screen, AutotuneFormScreen), "the form")
        assert "Autotune" in tui.screen_text()
        await tui.press(*"192.0.2.1", "enter")
        await tui.wait(lambda: "advisor has not judged" in tui.screen_text(), "the refusal")
        assert isinstance(app.screen, AutotuneFormScreen)  # still open, to fix and retry
        assert not app.app_autotune.running
        assert not app.session.pending
        assert all(len(x) <= size[0] for x in tui.screen_text().splitlines())


async def test_a_bad_spec_file_is_refused_in_the_clis_words(tmp_path: Path) -> None:
    from tuitune.core.sweep.spec import SpecError, load

    bad = tmp_path / "bad.toml"
    bad.write_text("[[dimension]]\nname = 1\n")
    with pytest.raises(SpecError) as cli:  # what `tuitune autotune --spec` says of it
        load(bad)
    async with bench_app(tmp_path, size=(200, 60)) as tui:
        app = tui.app
        judged(app)
        await tui.press("T")
        await tui.wait(lambda: isinstance(app.screen, AutotuneFormScreen), "the form")
        await tui.press(*"192.0.2.1", "tab", "tab")
        app.screen.query_one("#autotune-spec", Input).value = str(bad)  # typed, in effect
        await tui.press("enter")
        box = app.screen.query_one("#autotune-error")
        await tui.wait(lambda: tui.text_of(box), "the spec's refusal")
        shown = " ".join(x.strip() for x in tui.text_of(box)).replace(" ", "")
        assert shown == str(cli.value).replace(" ", "")  # wrapped in the box; the same words
        assert not app.app_autotune.running
        assert not app.session.pending


async def test_a_latency_goal_runs_sockperf_and_judges_the_round_trip(tmp_path: Path) -> None:
    async with bench_app(tmp_path, size=(200, 60)) as tui:
        app = tui.app
        judged(app)
        app.app_autotune.command = ["cat", str(SOCKPERF)]
        await tui.press("T")
        await tui.wait(lambda: isinstance(app.screen, AutotuneFormScreen), "the form")
        await tui.press(*"192.0.2.1", "tab", "space")  # the goal: throughput -> latency
        assert app.screen.query_one(WordChoice).value == "latency"
        await tui.press("enter")
        await tui.wait(lambda: isinstance(app.screen, TextScreen), "the report", timeout=60)
        report = tui.screen_text()
        assert "Goal: latency" in report
        assert "lower is better" in report
        assert "16.4 us" in report  # sockperf's recorded median round trip (16.390 us)
        assert "nothing kept" in app.app_autotune.last_lines[-1]  # the same every run
        assert not app.app_autotune.running


async def test_the_profile_field_picks_one_and_a_name_no_profile_has_is_refused(
    tmp_path: Path,
) -> None:
    """The form's profile (as `--profile`): `auto` first, space steps to `none` and on to the
    shipped ones, each with what it is; a name that is not one is refused in the CLI's words
    (`--profile`'s), nothing changed. At 80 columns every line fits."""
    from tuitune.core.autotune.sources import unknown_profile

    size = (80, 24)
    async with bench_app(tmp_path, size=size) as tui:
        app = tui.app
        judged(app)
        await tui.press("T")
        await tui.wait(lambda: isinstance(app.screen, AutotuneFormScreen), "the form")
        choice = app.screen.query_one("#autotune-profile", WordChoice)
        assert choice.value == "auto" and "< auto >" in tui.screen_text()
        await tui.press(*"192.0.2.1", "tab", "tab", "space")  # peer, goal, profile: -> none
        assert choice.value == "none"
        await tui.press("space")
        assert choice.value == "lan-10g" and "CERN" in tui.screen_text()
        assert all(len(x) <= size[0] for x in tui.screen_text().splitlines())
        choice.set("nosuch")  # no key makes it: as a typed `--profile nosuch`
        await tui.press("enter")
        box = app.screen.query_one("#autotune-error")
        await tui.wait(lambda: tui.text_of(box), "the refusal")
        shown = " ".join(x.strip() for x in tui.text_of(box)).replace(" ", "")
        assert shown == unknown_profile("nosuch").replace(" ", "")
        assert app.app_autotune.typed["profile"] == "nosuch"
        assert not app.app_autotune.running and not app.session.pending
