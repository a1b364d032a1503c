"""SVG snapshots of the main screen on fixture hosts replayed from real captures.

Update them after an intended change with `pytest tests/tui/test_snapshots.py --snapshot-update`
and look at the SVGs (pytest writes a report with a side-by-side diff when one differs).
The app stops sampling after `limit` samples, so every image shows the same rates.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from tests.support.fixture_hosts import host_32cpu, host_256cpu
from tests.support.screen_app import screen_app
from tests.support.screen_text import settled as screen_settled
from tuitune.tui.app import TuituneApp

SAMPLES = 3
Builder = Callable[..., Any]


def make_app(builder: Builder, tmp: Path, term: str = "xterm-256color") -> TuituneApp:
    reader, ifname = builder(tmp, samples=5)
    env = {"TERM": term, "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp)}
    return TuituneApp(
        reader,
        ifname,
        interval=0.02,
        env=env,
        limit=SAMPLES,
        show_cost=False,
        save_settings=False,
    )


def settled(*keys: str) -> Callable[[Pilot[Any]], Awaitable[None]]:
    async def run_before(pilot: Pilot[Any]) -> None:
        app = pilot.app
        assert isinstance(app, TuituneApp)
        for _ in range(400):
            if app.samples_drawn >= SAMPLES:
                break
            await pilot.pause(0.02)
        assert app.samples_drawn >= SAMPLES, "the fixture host never delivered its samples"
        for key in keys:
            await pilot.press(key)
        # The picture is taken once the screen is laid out and what the last sample asked
        # for after its refresh (a panel's first layout draws it again) has run: under load
        # the third sample can land before the panels' first layout.
        for _ in range(3):
            await pilot.pause()
            for _ in range(3000):
                if screen_settled(app):
                    break
                await pilot.pause(0.02)

    return run_before


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_main_screen_32cpu(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(host_32cpu, tmp_path)
    try:
        assert snap_compare(app, terminal_size=size, run_before=settled())
    finally:
        app.reader.close()


@pytest.mark.parametrize("size", [(80, 24), (160, 48)], ids=["80x24", "160x48"])
def test_compact_heat_view_256cpu(snap_compare: Any, tmp_path: Path, size: tuple[int, int]) -> None:
    app = make_app(host_256cpu, tmp_path)
    try:
        assert snap_compare(app, terminal_size=size, run_before=settled())
    finally:
        app.reader.close()


def test_irq_panel_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app(host_32cpu, tmp_path)
    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=settled("2"))
    finally:
        app.reader.close()


def test_linux_console_ascii_80x24(snap_compare: Any, tmp_path: Path) -> None:
    app = make_app(host_32cpu, tmp_path, term="linux")
    try:
        assert snap_compare(app, terminal_size=(80, 24), run_before=settled())
    finally:
        app.reader.close()


def test_baseline_160x48(snap_compare: Any, tmp_path: Path) -> None:
    """After `b` the header says BASELINE and the IRQ panel grows a count column.

    With a very long interval the sampler only samples when asked (at start and FIRST_GAP
    after it, on `b`, on `r`), so the baseline falls on the same sample every run: `b` only
    once the first gap's sample is drawn, or the two race."""
    reader, ifname = host_32cpu(tmp_path, samples=6)
    app = screen_app(reader, ifname, interval=3600)

    async def until(pilot: Pilot[Any], n: int) -> None:
        for _ in range(400):
            if app.samples_drawn >= n:
                return
            await pilot.pause(0.02)
        raise AssertionError(f"only {app.samples_drawn} samples drawn, wanted {n}")

    async def run_before(pilot: Pilot[Any]) -> None:
        await until(pilot, 2)
        await pilot.press("b")
        await until(pilot, 3)
        for n in (4, 5):
            await pilot.press("r")
            await until(pilot, n)
        await pilot.pause()

    try:
        assert snap_compare(app, terminal_size=(160, 48), run_before=run_before)
    finally:
        reader.close()
