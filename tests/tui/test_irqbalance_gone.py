"""The header's irqbalance warning goes when the process it names has exited, at the next
tick, not at the next full read of the host state (every 30 ticks). Issue 22 item 14.

The recorded tree's /proc holds the process (its comm and a root Uid line): nothing runs."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.tui.conftest import Launch

PID = "4242"


def irqbalance_running(tree: Path) -> None:
    proc = tree / "proc" / PID
    proc.mkdir(parents=True)
    (proc / "comm").write_text("irqbalance\n")
    (proc / "status").write_text("Name:\tirqbalance\nUid:\t0\t0\t0\t0\n")


async def test_the_warning_goes_with_the_process(launch: Launch) -> None:
    async with launch(
        limit=None, samples=40, interval=0.3, wait=1, prepare=irqbalance_running
    ) as tui:
        await tui.wait(lambda: f"irqbalance is running (pid {PID})" in tui.header(), "the warning")
        shutil.rmtree(tui.tree / "proc" / PID)
        gone = tui.app.samples_drawn
        await tui.wait(lambda: tui.app.samples_drawn >= gone + 3, "three more ticks")
        assert "irqbalance is running" not in tui.header()
