"""The finding applied from the findings view is recorded with the next benchmark run: the
notebook's run carries its id, and the runs table says "after cpu-saturated: ..." on that row,
with its delta against the run before. Runs are replayed from a recorded iperf3 output."""

from __future__ import annotations

from pathlib import Path

from tests.support.fixture_hosts import host_32cpu
from tests.support.screen_app import screen_app
from tests.tui.conftest import Tui
from tests.tui.test_bench_form import FIXTURES, bench_app, replay, strip_text
from tests.tui.test_bench_live import fifo, play_run, start
from tests.tui.test_runs_screen import open_runs
from tuitune.core.bench.notebook import Notebook
from tuitune.tui.app import TuituneApp
from tuitune.tui.controllers.advisor import AdvisorScreen

AFTER = "after cpu-saturated: spread 8 queue IRQs one per NIC-local core"


def _aff(app: TuituneApp, irq: str) -> str:
    return (app.reader.root.proc / f"irq/{irq}/smp_affinity_list").read_text().strip()


async def _bench(tui: Tui, nb: Notebook, runs: int) -> None:
    await start(tui)
    await tui.wait(lambda: len(nb.runs()) == runs, f"run {runs} recorded")
    await tui.wait(lambda: "recorded" in strip_text(tui), "the strip says so")


async def _apply_the_worst(tui: Tui) -> None:
    """From the findings view, apply the first finding (cpu-saturated, the worst): its spread
    plan is written to the host tree."""
    await tui.press("A")
    await tui.wait(lambda: isinstance(tui.app.screen, AdvisorScreen), "the findings view")
    await tui.press("enter")
    await tui.wait(lambda: _aff(tui.app, "93") == "1", "the spread plan written")


async def test_the_next_run_names_the_finding_applied(tmp_path: Path) -> None:
    nb = Notebook(tmp_path / "runs.jsonl")
    replayed = replay("normal-p1.txt")
    async with bench_app(tmp_path, command=replayed, size=(160, 48), limit=5, editable=True) as tui:
        await tui.wait(lambda: tui.app.samples_drawn >= 5, "the whole window drawn")
        await _bench(tui, nb, 1)  # before: the baseline
        await _apply_the_worst(tui)
        await _bench(tui, nb, 2)  # after
        await _bench(tui, nb, 3)  # the one after that follows nothing new
        runs = nb.runs()
        assert runs[0].tags == {} and runs[2].tags == {}
        assert runs[1].tags == {
            "after": "cpu-saturated",
            "after_change": "spread 8 queue IRQs one per NIC-local core",
        }
        rows = {r.group: r for r in nb.table()}
        # The finding first, then the settings that differ from the run before it.
        assert rows["r2"].changes.startswith(f"{AFTER}; eth0-TxRx-1 affinity 1, ")
        assert rows["r2"].d_throughput is not None
        await open_runs(tui)
        assert AFTER in tui.screen_text()


async def test_an_undone_finding_is_not_followed(tmp_path: Path) -> None:
    nb = Notebook(tmp_path / "runs.jsonl")
    replayed = replay("normal-p1.txt")
    async with bench_app(tmp_path, command=replayed, size=(160, 48), limit=5, editable=True) as tui:
        await tui.wait(lambda: tui.app.samples_drawn >= 5, "the whole window drawn")
        await _apply_the_worst(tui)
        await tui.press("u")
        await tui.wait(lambda: _aff(tui.app, "93") == "0", "undone")
        await _bench(tui, nb, 1)
        assert nb.runs()[0].tags == {}


async def test_during_and_just_after_a_run_the_window_is_the_run(tmp_path: Path) -> None:
    """Issue 16: "during a benchmark the window is the run itself". Before a run the view
    judges the last seconds; right after one it judges that run's samples (the moving window
    would hold the idle seconds after it); WINDOW samples later the last seconds again."""
    from tuitune.tui.controllers.advisor import COUNT_FROM, WINDOW

    reader, ifname = host_32cpu(tmp_path / "host", samples=5)
    nb = Notebook(tmp_path / "runs.jsonl")
    # A slow interval: the screen samples all along, and Pilot waits for it to go idle after
    # each key (at 0.05 s this one test took 25 s of CPU in CI).
    app = screen_app(
        reader,
        ifname,
        interval=0.2,
        limit=None,  # samples go on during the run
        editable=True,
        journal_dir=tmp_path / "journal",
        notebook_path=nb.path,
    )
    recording = (FIXTURES / "normal-p1.txt").read_text().splitlines(keepends=True)

    async def window() -> bool:
        await tui.press("A")
        await tui.wait(lambda: isinstance(app.screen, AdvisorScreen), "the findings view")
        screen = app.screen
        assert isinstance(screen, AdvisorScreen)
        await tui.press("escape")
        await tui.wait(lambda: not isinstance(app.screen, AdvisorScreen), "closed")
        return screen.of_run

    # The run's window stays the one judged for WINDOW samples after it ends: 2 s at this
    # interval, which a loaded machine may spend before the test could look. Sampling holds from
    # the moment the run ends until the test has looked, so "just after" is exact.
    # It stays so for as many samples as the run lasted (WINDOW at least): count them.
    started, ended = app.advisor.run_started, app.advisor.run_ended
    drawn_at: dict[str, int] = {}

    def run_started() -> None:
        started()
        drawn_at["start"] = app.samples_drawn

    def run_ended() -> None:
        ended()
        drawn_at["end"] = app.samples_drawn
        app.sampler.pause(True)

    app.advisor.run_started = run_started  # type: ignore[method-assign]
    app.advisor.run_ended = run_ended  # type: ignore[method-assign]
    try:
        async with fifo(tmp_path) as (command, path), app.run_test(size=(160, 48)) as pilot:
            app.app_bench.command = command
            tui = Tui(app, pilot, reader)
            await tui.wait(lambda: app.samples_drawn >= 5, "the whole window drawn")
            assert not await window()  # the last seconds
            await start(tui)
            await play_run(tui, path, recording, ready=lambda: "start" in drawn_at)
            await tui.wait(lambda: len(nb.runs()) == 1, "the run recorded")
            await tui.wait(lambda: app.sampler.paused, "the run ended")
            assert await window()  # the run just ended
            app.sampler.pause(False)
            drawn = app.samples_drawn
            assert drawn_at["end"] - drawn_at["start"] >= COUNT_FROM
            lasted = max(WINDOW, drawn_at["end"] - drawn_at["start"])
            await tui.wait(lambda: app.samples_drawn > drawn + lasted + 1, "the run aged out")
            assert not await window()
    finally:
        reader.close()
