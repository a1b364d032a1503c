"""Shared pieces of the Pilot tests: start the live app on a fixture host, wait until it has
drawn, and read back what the terminal shows (text of the screen, not internal flags).

Keeping a TUI test cheap (issue 29: this tier is the longest host lane, and every CPU second
it spends is one the VM guest beside it waits for). Each booted App costs about 0.5 s of CPU
(tree 0.1, mount 0.15, the first three samples 0.2-0.35); what a test does after that is
mostly frames, each key and each sample one render. So:

- `launch` (below) for a read-mostly test on a fixture host: 3 samples at 0.05 s, then the
  sampler stops. A test that needs sampling to go on (limit=None) takes interval=0.2 or
  slower: Pilot waits for the app to go idle after every key, which 0.05 s never lets it do,
  and a sampler that never stops draws frames for the whole of the test's wall time, which a
  loaded machine stretches (test_advisor_runs' run-window test: 25 s of CPU in CI at 0.05 s).
- `tests/support/edit_host.editing` for a test that edits (a FakeDevice eth0, logged writes).
  It samples at 1 s, as the command does (a change's own tick comes at once: the editor
  asks the sampler for it). Its 200 replayed samples are one series built once per process
  (`tests/support/fixture_hosts.shared_samples`, read-only; the test's own tree holds only
  sample 0): building them per test was about 0.65 s of CPU each. A test with its own host
  and many samples can do the same: `ReplayReader(tree, samples=shared_samples(builder, n))`,
  unless it writes into the samples (then it needs its own, as `launch(prepare=...)` has).
- A benchmark run that must span samples: feed its recording through a FIFO
  (`tests/tui/test_bench_live.fifo`, `feeder`) and wait for a sample between lines, rather
  than pacing it with sleeps; the test then decides how long the run is, not the machine.
- A row to act on: `view.move_cursor_to(key)` when the walk there is not what the test
  checks (the arrows' walk is test_rows.py's); one arrow key is one render.
- A table of bad inputs: through the journal as the editor's Enter does, with one case per
  editor typed into the screen (tests/tui/test_edit_invalid.py).
- One App shared by several tests was weighed and not taken: of the 62 `launch` tests only
  15 press no key, and those differ in host, size or samples (docs/testing.md).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Protocol

import pytest
from rich.style import Style
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Static

from tests.support.fixture_hosts import ReplayReader, host_32cpu
from tests.support.screen_text import settled
from tuitune.core.record.player import RecordingReader
from tuitune.core.watch.cadence import Cadence
from tuitune.tui.app import TuituneApp
from tuitune.tui.panels.panels import Panel
from tuitune.tui.panels.rowview import RowView

Builder = Callable[..., tuple[ReplayReader, str]]
PANEL_KEYS = {"cpus": "1", "irqs": "2", "nic": "3", "sysctls": "4"}
KEEP = "keep"  # ifname sentinel: watch the builder's interface
# Only a bound on a hang: a slow CI box waits longer, the timeout never fails a test by itself
# (10 s was not enough for the 1152-CPU host's first two frames at a load average of 15).
TIMEOUT = 60.0


class Tui:
    """One running app and what its terminal shows."""

    def __init__(self, app: TuituneApp, pilot: Pilot[int], reader: ReplayReader) -> None:
        self.app = app
        self.pilot = pilot
        self.reader = reader
        self.tree = reader.root.sys.parent  # the recorded host tree (tmp/host_NAME)

    # -- reading the screen ---------------------------------------------------------------------
    def _strips(self) -> list[list[tuple[str, Style | None]]]:
        """The whole terminal as (character, style) cells per line."""
        # The compositor is Textual's own flattening of every layer (modal screens included).
        strips = self.app.screen._compositor.render_strips()
        return [[(ch, seg.style) for seg in strip for ch in seg.text] for strip in strips]

    def lines(self) -> list[str]:
        """The whole terminal as text, one string per line, as the user's screen shows it."""
        strips = self.app.screen._compositor.render_strips()
        return ["".join(seg.text for seg in strip) for strip in strips]

    def styles(self, y: int) -> list[tuple[str, Style | None]]:
        """Line y of the terminal as (character, style) per cell."""
        return self._strips()[y]

    def region_lines(self, region: Region) -> list[str]:
        rows = self.lines()[region.y : region.bottom]
        return [row[region.x : region.right] for row in rows]

    def text_of(self, widget: Widget) -> list[str]:
        """What the user sees of `widget`: its content, without border or scrollbar (no lines
        when it is hidden)."""
        return self.region_lines(widget.scrollable_content_region)

    def screen_text(self) -> str:
        return "\n".join(self.lines())

    def header(self) -> str:
        return "\n".join(self.text_of(self.app.query_one("#header", Static)))

    def focused(self) -> Widget | None:
        """The focused widget (a call, so a type checker does not narrow it between keys)."""
        return self.app.focused

    def footer(self) -> str:
        return self.lines()[-1]

    def top_border(self, name: str) -> str:
        """A panel's top border line as drawn (it holds the title)."""
        r = self.panel(name).region
        return self.lines()[r.y][r.x : r.right]

    def bottom_border(self, name: str) -> str:
        """A panel's bottom border line as drawn (it holds the filter)."""
        r = self.panel(name).region
        return self.lines()[r.bottom - 1][r.x : r.right]

    def visible_panels(self) -> set[str]:
        """Names of the panels whose box is drawn on screen (its title on a top border)."""
        text = self.screen_text()
        return {n for n, p in self.app.panels.items() if f"─ {p.border_title} ─" in text}

    def panel(self, name: str) -> Panel:
        return self.app.panels[name]

    def view(self, name: str) -> RowView:
        return self.app.panels[name].view

    def rows_seen(self, name: str) -> list[str]:
        """The visible table lines of a panel's list, without its column-title line."""
        return [ln.rstrip() for ln in self.text_of(self.view(name))[1:]]

    def titles(self, name: str) -> list[str]:
        return self.text_of(self.view(name))[0].split()

    def cursor_line(self, name: str) -> str | None:
        """The line of a panel's list drawn highlighted (reverse video across the row), as the
        user sees it; None when no row is highlighted (the list is not focused)."""
        region = self.view(name).scrollable_content_region
        screen = self._strips()
        for y in range(region.y, region.bottom):
            cells = screen[y][region.x : region.right]
            if sum(1 for _, s in cells if s is not None and s.reverse) >= len(cells) * 0.9:
                return "".join(ch for ch, _ in cells).rstrip()
        return None

    def help_strip(self, name: str) -> str:
        return " ".join(ln.strip() for ln in self.text_of(self.panel(name).help_strip)).strip()

    # -- driving ----------------------------------------------------------------------------------
    async def wait(
        self, cond: Callable[[], object], what: str = "", timeout: float = TIMEOUT
    ) -> None:
        """Poll until `cond()` holds; the timeout only bounds a hang, it decides nothing."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while not (cond() and settled(self.app)):
            if loop.time() > end:
                raise AssertionError(f"timed out waiting for: {what or cond}")
            await self.pilot.pause(0.01)
        await self.pilot.pause()

    async def drawn(self, n: int) -> None:
        await self.wait(lambda: self.app.samples_drawn >= n, f"{n} samples drawn")

    async def press(self, *keys: str) -> None:
        await self.pilot.press(*keys)
        await self.pilot.pause()


class Launch(Protocol):
    def __call__(
        self,
        host: Builder = ...,
        *,
        size: tuple[int, int] = ...,
        samples: int = ...,
        limit: int | None = ...,
        interval: float = ...,
        ifname: str | None = ...,
        save_settings: bool = ...,
        wait: int | None = ...,
        prepare: Callable[[Path], None] | None = ...,
    ) -> AbstractAsyncContextManager[Tui]: ...


@pytest.fixture
def launch(tmp_path: Path) -> Launch:
    """`async with launch(host_32cpu, size=(80, 24)) as tui:` runs the app on a fixture host
    and returns once `wait` samples (default: all `limit` of them) are on screen.

    A test that keeps sampling (limit=None) should use a slower `interval`: Pilot waits for
    the app to go idle after every key, which a 50 ms refresh never lets it do."""

    runs = 0

    @asynccontextmanager
    async def run(
        host: Builder = host_32cpu,
        *,
        size: tuple[int, int] = (160, 48),
        samples: int = 5,
        limit: int | None = 3,
        interval: float = 0.05,
        ifname: str | None = KEEP,
        save_settings: bool = False,
        wait: int | None = None,
        prepare: Callable[[Path], None] | None = None,
    ) -> AsyncIterator[Tui]:
        nonlocal runs
        runs += 1  # each run its own tree; XDG_CONFIG_HOME is shared, as for one user
        reader, name = host(tmp_path / f"run{runs}", samples=samples)
        if prepare is not None:
            prepare(reader.root.sys.parent)
        env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)}
        with reader:
            app = TuituneApp(
                reader,
                name if ifname == KEEP else ifname,
                interval=interval,
                env=env,
                limit=limit,
                show_cost=False,
                save_settings=save_settings,
            )
            async with app.run_test(size=size) as pilot:
                tui = Tui(app, pilot, reader)
                want = wait if wait is not None else (limit or 3)
                if want:
                    await tui.drawn(want)
                yield tui
                # Stop sampling and let the last samples land while the screen still exists:
                # run_test shuts the app down while its message loop still runs, and a sample
                # handled then finds no #header (NoMatches). A real run ends the loop first.
                app.sampler.stop()
                await pilot.pause()

    return run


def replay_app(reader: RecordingReader, tmp_path: Path) -> TuituneApp:
    """The App `tuitune replay` starts, on `reader`: a long interval, so nothing moves but
    what the keys ask for."""
    env = {"TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CONFIG_HOME": str(tmp_path)}
    return TuituneApp(
        reader,
        reader.ifname,
        interval=60.0,
        env=env,
        editable=False,
        save_settings=False,
        show_cost=False,
        cadence=Cadence.in_time(60.0),
    )
