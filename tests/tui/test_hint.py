"""The line above the footer follows what the user has done: measure (B), change something,
measure again, compare (N). Issue 22 item 15. Runs replay a recorded iperf3 output."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Static

from tests.support.edit_host import EditHost, editing
from tests.tui.test_bench_form import open_form, replay, type_into
from tuitune.tui.screens.runs import RunsScreen


def hint(h: EditHost) -> str:
    line = h.app.query_one("#hint", Static)
    return " ".join(h.tui.text_of(line)).strip() if line.display else ""


async def run_once(h: EditHost) -> None:
    runs = h.app.hint.steps.runs
    await open_form(h.tui)
    await type_into(h.tui, "peer", "10.0.0.2")
    await h.tui.press("enter")
    await h.wait(lambda: h.app.hint.steps.runs == runs + 1)


async def test_the_hint_walks_through_the_loop(tmp_path: Path) -> None:
    async with editing(tmp_path) as h:
        h.app.app_bench.command = replay("normal-p1.txt")
        h.app.app_bench.notebook_path = tmp_path / "runs.jsonl"
        await h.wait(lambda: hint(h).startswith("Next: B measures"))
        await run_once(h)
        # The fixture host's CPU 0 takes every eth0 queue IRQ at 100 %: named when a sample
        # came during the run, else the general advice.
        await h.wait(lambda: hint(h).startswith(("cpu0 was", "Next: change one setting")))
        await h.tui.press("3")
        assert h.app.panels["nic"].view.move_cursor_to("feature:rx-gro")
        await h.tui.press("space")
        await h.wait(lambda: hint(h) == "Next: B measures again with your change (u undoes it)")
        await run_once(h)
        await h.wait(lambda: hint(h).startswith("Next: N compares the runs"))
        await h.tui.press("N")
        await h.wait(lambda: isinstance(h.app.screen, RunsScreen))
        await h.tui.press("escape")
        await h.wait(lambda: hint(h) == "")  # the loop done once: the line gives its row back
