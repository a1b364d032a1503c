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


async def test_a_nic_read_again_and_found_the_same_builds_no_rows(
    launch: Launch, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The NIC's state is re-read every 5 ticks; on this host it is the same each time, so its
    # panel's rows (1.7 ms to build on this capture) are not built again, and stay on screen.
    async with launch(samples=40, limit=None, interval=0.05, wait=2) as tui:
        app = tui.app
        await tui.wait(lambda: app.nic is not None, "the NIC read")
        await tui.drawn(app.samples_drawn + 1)
        shown = tui.rows_seen("nic")
        builds, reads = [], []
        monkeypatch.setattr(view_module, "nic_rows", lambda *a: builds.append(a) or [])
        original = app.view.nic

        def nic() -> None:
            reads.append(app.nic)
            original()

        monkeypatch.setattr(app.view, "nic", nic)
        await tui.drawn(app.samples_drawn + 12)  # two re-reads at least
        assert len(reads) >= 2 and all(r == reads[0] for r in reads)
        assert builds == []
        assert tui.rows_seen("nic") == shown
