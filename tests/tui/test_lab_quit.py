"""Leaving a `tuitune lab` session asks whether the lab goes; `r` removes it (through the
injected `down`, here a recorder), `k` keeps it, Esc stays. Without a lab, nothing is asked."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

from tests.support.fixture_hosts import host_32cpu
from tests.tui.conftest import Tui
from tuitune.core.lab import Lab, LabError
from tuitune.tui.app import TuituneApp
from tuitune.tui.controllers.lab_quit import QUESTION
from tuitune.tui.screens.dialogs import ChoiceScreen

LAB = Lab(
    name="abc123",
    netns="tuitune-lab-abc123",
    peer_netns="tuitune-peer-abc123",
    ifname="veth-lab",
    peer_ifname="veth-peer",
    local_addr="198.18.0.1",
    peer_addr="198.18.0.2",
    server_pid=None,
    owner_pid=None,
)


class Recorder:
    def __init__(self, fail: bool = False) -> None:
        self.calls: list[Lab] = []
        self.fail = fail

    def __call__(self, lab: Lab) -> list[str]:
        self.calls.append(lab)
        if self.fail:
            raise LabError("ip netns del failed: Device or resource busy")
        return [f"netns {lab.netns}"]


@asynccontextmanager
async def lab_app(
    tmp_path: Path, down: Callable[[Lab], list[str]], lab: Lab | None = LAB
) -> AsyncIterator[Tui]:
    reader, name = host_32cpu(tmp_path / "host", samples=3)
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)}
    with reader:
        app = TuituneApp(
            reader,
            name,
            interval=0.05,
            env=env,
            limit=2,
            show_cost=False,
            save_settings=False,
            journal_dir=tmp_path / "journal",
            lab=lab,
            lab_down=down,
        )
        async with app.run_test(size=(160, 48)) as pilot:
            tui = Tui(app, pilot, reader)
            await tui.drawn(2)
            yield tui


async def test_remove_calls_down_once_and_leaves(tmp_path: Path) -> None:
    down = Recorder()
    async with lab_app(tmp_path, down) as tui:
        await tui.press("q")
        await tui.wait(lambda: isinstance(tui.app.screen, ChoiceScreen), "the question")
        text = tui.screen_text()
        assert QUESTION in text
        assert "k: keep the lab" in text and "r: remove it" in text
        assert "tuitune-peer-abc123" in text and "198.18.0.2" in text
        await tui.press("r")
        await tui.wait(lambda: not tui.app.is_running, "the app to leave")
    assert down.calls == [LAB]


async def test_keep_leaves_without_removing(tmp_path: Path) -> None:
    down = Recorder()
    async with lab_app(tmp_path, down) as tui:
        await tui.press("q")
        await tui.wait(lambda: isinstance(tui.app.screen, ChoiceScreen), "the question")
        await tui.press("k")
        await tui.wait(lambda: not tui.app.is_running, "the app to leave")
    assert down.calls == []


async def test_escape_stays(tmp_path: Path) -> None:
    down = Recorder()
    async with lab_app(tmp_path, down) as tui:
        await tui.press("q")
        await tui.wait(lambda: isinstance(tui.app.screen, ChoiceScreen), "the question")
        await tui.press("escape")
        await tui.wait(lambda: not isinstance(tui.app.screen, ChoiceScreen), "the question gone")
        assert tui.app.is_running and QUESTION not in tui.screen_text()
        assert "CPUs (" in tui.screen_text()
    assert down.calls == []


async def test_a_failed_removal_says_why_and_stays(tmp_path: Path) -> None:
    down = Recorder(fail=True)
    async with lab_app(tmp_path, down) as tui:
        await tui.press("q")
        await tui.wait(lambda: isinstance(tui.app.screen, ChoiceScreen), "the question")
        await tui.press("r")
        await tui.wait(lambda: "could not remove the lab" in tui.header(), "the error")
        assert "Device or resource busy" in tui.header()
        assert tui.app.is_running
    assert down.calls == [LAB]


async def test_without_a_lab_nothing_is_asked(tmp_path: Path) -> None:
    down = Recorder()
    async with lab_app(tmp_path, down, lab=None) as tui:
        await tui.press("q")
        await tui.wait(lambda: not tui.app.is_running, "the app to leave")
    assert down.calls == []
