"""The Host view from a network-namespace session: CPU power, SMT and module parameters are
the whole host's (/sys is the host's from any namespace), so a change asks first, in words
naming what it is, as a host-wide sysctl does; Esc writes nothing and the view says so; y
writes it (here to a recorded tree standing for the namespace and its host, never to this
machine). SMT off asks one question, its trial's and the host's together."""

from __future__ import annotations

from pathlib import Path

from textual.pilot import Pilot
from textual.widgets import Input, Static

from tests.support.screen_text import screen_text, until
from tests.tui.test_host_view import console_app, highlight, host_view
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.dialogs import ChoiceScreen, EditorScreen
from tuitune.tui.screens.host import HostScreen

NOT_AGREED = "not changed: the whole host's, not agreed to"


def in_namespace(tmp_path: Path) -> tuple[TuituneApp, Path]:
    """The Host view's app on the recorded tree, its session standing for netns "lab"."""
    app = console_app(tmp_path, editable=True, netns="lab")
    return app, tmp_path / "host_32cpu/sys/devices/system/cpu"


def question(app: TuituneApp) -> str:
    assert isinstance(app.screen, ChoiceScreen)
    return " ".join(str(s.render()) for s in app.screen.query(Static))


async def typed(pilot: Pilot[int], app: TuituneApp, label: str, text: str) -> None:
    """e on the Host view's row `label`, `text` typed, Enter: the question comes up."""
    assert isinstance(app.screen, HostScreen)
    highlight(app.screen, label)
    await pilot.press("e")
    await until(pilot, lambda: isinstance(app.screen, EditorScreen))
    app.screen.query_one(Input).value = text
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))


async def test_a_governor_from_a_namespace_asks_and_esc_writes_nothing(tmp_path: Path) -> None:
    app, cpu = in_namespace(tmp_path)

    def gov(p: int) -> str:
        return (cpu / f"cpufreq/policy{p}/scaling_governor").read_text().strip()

    async with host_view(app) as (pilot, _):
        await typed(pilot, app, "CPU frequency", "0-3 governor performance")
        text = question(app)
        assert "The CPU governor is the host's" in text, text
        assert "not per namespace" in text and "network namespace lab" in text
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, HostScreen))
        await until(pilot, lambda: NOT_AGREED in screen_text(app))
        assert gov(0) == gov(3) == "powersave"

        await typed(pilot, app, "CPU frequency", "0-3 governor performance")
        await pilot.press("y")
        await until(pilot, lambda: gov(3) == "performance")
        assert gov(4) == "powersave"


async def test_smt_off_from_a_namespace_is_one_question_naming_the_host(tmp_path: Path) -> None:
    app, cpu = in_namespace(tmp_path)
    (cpu / "smt").mkdir(exist_ok=True)
    (cpu / "smt/control").write_text("on\n")
    for n in range(8):
        (cpu / f"cpu{n}/topology").mkdir(parents=True, exist_ok=True)
        (cpu / f"cpu{n}/topology/thread_siblings_list").write_text(f"{n % 4},{n % 4 + 4}\n")
    async with host_view(app) as (pilot, _):
        await typed(pilot, app, "SMT", "off")
        text = question(app)
        assert "SMT is one switch for the whole host" in text and "CPUs 4-7" in text, text
        assert (cpu / "smt/control").read_text() == "on\n"
        await pilot.press("y")  # one yes: no second question before the trial
        await until(pilot, lambda: (cpu / "smt/control").read_text() == "off\n")
        assert not isinstance(app.screen, ChoiceScreen)
        await pilot.press("u")
        await until(pilot, lambda: (cpu / "smt/control").read_text() == "on\n")
