"""N lists an autotune's runs with its report: the detail line names the autotune and `r`
opens the report kept beside the notebook (what `T` and `tuitune autotune` save there); a
run of no autotune, or one whose report is gone, says so in one line."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.tui.test_bench_form import bench_app
from tests.tui.test_runs_screen import notebook, open_runs, run
from tuitune.core.autotune.sources import save_report
from tuitune.tui.screens.dialogs import TextScreen

RID = "autotune-20261207093000"


async def test_r_opens_the_report_of_an_autotunes_run(tmp_path: Path) -> None:
    nb = notebook(tmp_path / "runs.jsonl")
    tagged = dataclasses.replace(
        run("r5", "r5", 26.1e9, 100, 50.0), tags={"sweep": RID, "cell": "baseline"}
    )
    nb.add(tagged)
    save_report(nb.path, RID, "# autotune on eth0\n\nkept: offload-disabled\n")
    async with bench_app(tmp_path, notebook=nb.path) as tui:
        await open_runs(tui)
        await tui.press("r")  # the cursor is on r1: a plain run
        await tui.wait(lambda: "not an autotune's run" in tui.screen_text(), "the refusal")
        await tui.press("down", "down", "down")  # r1, r2, r4, then r5
        await tui.wait(lambda: f"of {RID}: r shows its report" in tui.screen_text(), "detail")
        await tui.press("r")
        await tui.wait(lambda: isinstance(tui.app.screen, TextScreen), "the report")
        assert "kept: offload-disabled" in tui.screen_text()
        await tui.press("escape")
        (tmp_path / f"runs.{RID}.md").unlink()
        await tui.press("r")
        await tui.wait(lambda: f"no report kept for {RID}" in tui.screen_text(), "gone")
