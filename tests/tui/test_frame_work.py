"""A tick that changes nothing on a part of the screen does not redraw that part (issue 18,
goal 4: the frame, Textual's drawing in the main thread, was 3.6x the tick's reads)."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import Static

from tests.support.recording import recorded
from tests.tui.conftest import Launch
from tuitune.tui import view as view_module
from tuitune.tui.panels.cpugrid import HeatMap
from tuitune.tui.panels.nicpanel import nic_rows as view_rows


async def test_an_unchanged_header_is_not_updated_again(launch: Launch) -> None:
    # Two samples, then the replay holds: later ticks have the same (zero) link rates, and the
    # launch hides the read cost, so the header's text stays the same from tick to tick
    # (the findings' count may still change once).
    async with launch(samples=2, limit=None, interval=0.1, wait=3) as tui:
        header = tui.app.query_one("#header", Static)
        texts: list[Text] = recorded(header, "update")
        seen = tui.app.samples_drawn
        await tui.drawn(seen + 5)
        # Each update brings a new text: five ticks of the same text cost no new Content.
        assert len(texts) < 5
        assert all(a != b for a, b in pairwise(texts))
        assert tui.header().startswith("tuitune 2xE5-2640-i350")


def _count_lines(app: Any) -> Counter[str]:
    """Every widget's render_line calls, by widget: a line Textual draws afresh (not one it
    takes from its cache) is a line of work in the frame and cells sent to the terminal."""
    counts: Counter[str] = Counter()
    for widget in app.screen.walk_children(with_self=True):
        name = f"{type(widget).__name__}#{widget.id}"
        original = widget.render_line

        def counting(y: int, name: str = name, original: Any = original) -> Any:
            counts[name] += 1
            return original(y)

        widget.render_line = counting
    return counts


async def test_a_tick_redraws_the_lines_that_changed_and_no_other(launch: Launch) -> None:
    # Issue 18, goal 4: the main thread's frame was most of an idle host's 1 Hz cost. The
    # 32-CPU host at 160x48 shows its CPUs as a heat map over the list. Its CPU loads are the
    # same in every recorded sample while its NIC's interrupt counts move: from tick to tick
    # the list's intr/s figures change, the heat map's cells do not.
    async with launch(samples=40, limit=None, interval=0.1, wait=1) as tui:
        app = tui.app
        heat = app.query_one(HeatMap)
        await tui.wait(lambda: heat.display, "the heat map shown (the CPUs do not fit)")
        await tui.drawn(app.samples_drawn + 1)
        assert tui.reader.calls < 30, "moving samples left to count"
        shown = tui.text_of(heat)
        counts = _count_lines(app)
        await tui.drawn(app.samples_drawn + 4)
        assert tui.reader.calls <= 40, "the samples still moving"
        assert counts["CpuList#cpu-list"] > 0  # the changed figures were drawn
        # The heat map drew none of its lines again, and shows what it showed.
        assert counts["HeatMap#heatmap"] == 0
        assert heat.display and tui.text_of(heat) == shown


def _counting(widths: list[int]) -> Any:
    """nic_rows, noting the width each build is for."""

    def build(*args: Any) -> Any:
        widths.append(args[-1])
        return view_rows(*args)

    return build


async def test_a_nic_read_again_and_found_the_same_builds_no_rows(
    launch: Launch, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The NIC's state is re-read every 5 ticks; on this host it is the same each time, so its
    # panel's rows (1.7 ms to build on this capture) are not built again, and stay on screen.
    # Rows are rightly built again when the panel's width changes (its first layout can come
    # after the first sample under load): a read is judged against the read before it at
    # the same width.
    async with launch(samples=40, limit=None, interval=0.05, wait=2) as tui:
        app = tui.app
        await tui.wait(lambda: app.nic is not None, "the NIC read")
        await tui.drawn(app.samples_drawn + 1)
        builds: list[int] = []
        monkeypatch.setattr(view_module, "nic_rows", _counting(builds))
        view = tui.view("nic")
        original = app.view.nic
        reads: list[tuple[object, int, int]] = []  # (the NIC read, the panel's width, builds)

        def nic() -> None:
            width = view.size.width
            before = len(builds)
            original()
            reads.append((app.nic, width, len(builds) - before))

        monkeypatch.setattr(app.view, "nic", nic)
        await tui.wait(lambda: len(reads) >= 1, "a NIC read at the settled layout")
        shown = tui.rows_seen("nic")
        await tui.drawn(app.samples_drawn + 12)  # two re-reads at least
        judged = [r for prev, r in pairwise(reads) if r[1] == prev[1] > 0]
        assert len(judged) >= 2 and all(r[0] == reads[0][0] for r in reads)
        assert [r[2] for r in judged] == [0] * len(judged)
        if not any(r[2] for r in reads[1:]):  # no new width since `shown` was read
            assert tui.rows_seen("nic") == shown


async def test_a_panels_first_layout_draws_its_rows_at_its_width(
    launch: Launch, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Under load a sample can reach the screen before a panel's first layout: its rows were
    # built for a guessed width (80) and would stay so until the NIC's next re-read. The
    # first layout draws that panel again at the width it has.
    async with launch() as tui:  # three samples, then no tick re-reads the NIC
        app = tui.app
        view = tui.view("nic")
        app.view._nic_drawn = ()  # as if drawn at another width
        widths: list[int] = []
        monkeypatch.setattr(view_module, "nic_rows", _counting(widths))
        view.post_message(type(view).LaidOut(view))
        await tui.wait(lambda: widths != [], "the NIC rows drawn again")
        assert widths[0] == view.size.width - view.styles.scrollbar_size_vertical
