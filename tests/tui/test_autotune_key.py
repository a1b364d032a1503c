"""T on the live screen starts autotune (tui/controllers/autotune.py): outside the lab it asks
for the peer, then refuses in one line, changing nothing, what it cannot try (here: the
advisor has not judged the interface yet). The run itself, stopping it with T or quit and
everything going back, was tried by hand in tmux on a veth pair (docs/autotune.md); the
search and its put-back are the CLI's, tested in tests/kernel/test_autotune_*.py."""

from __future__ import annotations

from pathlib import Path

from tests.tui.test_bench_form import bench_app
from tuitune.tui.screens.dialogs import EditorScreen


async def test_t_asks_for_the_peer_then_says_why_not_in_one_line(tmp_path: Path) -> None:
    size = (80, 24)
    async with bench_app(tmp_path, size=size) as tui:
        app = tui.app
        app.advisor.counted = None  # not judged yet, whatever the samples so far
        await tui.press("T")
        await tui.wait(lambda: isinstance(app.screen, EditorScreen), "the peer prompt")
        assert "autotune" in tui.screen_text()
        await tui.press(*"192.0.2.1", "enter")
        await tui.wait(lambda: "advisor has not judged" in tui.screen_text(), "the refusal")
        assert not app.app_autotune.running
        assert not app.session.pending
        assert all(len(x) <= size[0] for x in tui.screen_text().splitlines())
