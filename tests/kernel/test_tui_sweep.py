"""A sweep set up and run from the live screen (W) against a real veth pair: the form, the
progress, the chart of bars with whiskers and the table, at 80x24 on the Linux console's
glyphs, and the kernel holding its originals afterwards. A plan this device cannot take is
refused in the form, and nothing changes."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Input

from tests.kernel.test_sweep_kernel import SERVER_ADDR, Pair, run
from tests.kernel.test_sweep_kernel import pair as pair  # the fixture
from tests.support.screen_text import screen_text, until
from tuitune.core.bench.notebook import Notebook
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.tui.app import TuituneApp
from tuitune.tui.screens.sweep import SweepScreen


def _state(p: Pair) -> tuple[str, str]:
    k = run("ip", "netns", "exec", p.client_ns, "ethtool", "-k", p.dev)
    rps = run(
        "ip", "netns", "exec", p.client_ns, "cat", f"/sys/class/net/{p.dev}/queues/rx-0/rps_cpus"
    )
    return k, rps


def _fill(screen: SweepScreen, **values: str) -> None:
    for name, value in values.items():
        screen.query_one(f"#sweep-{name}", Input).value = value
    screen.query_one("#sweep-dim1", Input).focus()


async def test_a_sweep_from_the_screen_draws_its_chart_and_puts_everything_back(
    pair: Pair, tmp_path: Path
) -> None:
    before = _state(pair)
    reader = HostReader(HostRoot(netns=pair.client_ns))
    app = TuituneApp(
        reader,
        pair.dev,
        interval=0.2,
        env={"TERM": "linux", "LANG": "C"},
        show_cost=False,
        save_settings=False,
        journal_dir=tmp_path / "journal",
        notebook_path=tmp_path / "runs.jsonl",
    )
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await until(pilot, lambda: app.nic is not None and app.samples_drawn >= 1)
            await pilot.press("W")
            await until(pilot, lambda: isinstance(app.screen, SweepScreen))
            screen = app.screen
            assert isinstance(screen, SweepScreen)
            # A veth has no queue IRQs: refused in the form, one line, nothing changed.
            _fill(screen, dim1="irqs = cpu 0", dim2="", repeats="1", seconds="1", peer=SERVER_ADDR)
            await pilot.press("enter")
            await until(pilot, lambda: "has no queue IRQs" in screen_text(app))
            assert "nothing was changed" in screen_text(app)
            assert _state(pair) == before
            _fill(screen, dim1="tso = on | off", dim2="rps = none | 1")
            await pilot.press("enter")
            await until(pilot, lambda: screen.running)
            await pilot.press("q")  # refused: the sweep would go on after the revert
            await until(pilot, lambda: "a sweep is running: X stops it" in screen_text(app))
            assert app.is_running
            await until(pilot, lambda: "every original is back" in screen_text(app), timeout=120)
            text = screen_text(app)
            bars = [line for line in text.splitlines() if line.startswith("tso ")]
            # Four cells, each a bar of '#' (the console has no block glyphs) with its value.
            assert len(bars) >= 4, text
            assert all("#" in line and "Mb/s" in line for line in bars[:4]), text
            assert all(len(line) <= 80 for line in text.splitlines())
            assert any(line.startswith("tso off  rps 1") for line in bars), text
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, SweepScreen))
    finally:
        reader.close()
    assert _state(pair) == before
    runs = Notebook(tmp_path / "runs.jsonl").runs()
    assert len({r.tags["cell"] for r in runs}) == 4
    assert not any((tmp_path / "journal").glob("*.journal"))
