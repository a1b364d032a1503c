"""Moving an IRQ by hand (issue 22 item 10): with the keys in any layout (m: the IRQ under the
IRQ panel's cursor onto the CPU under the grid's cursor), a preview before anything is written,
"pending" until the kernel's effective affinity follows; and a drag onto a heat-map cell with
feedback while dragging. What is asserted: the tree's smp_affinity_list and the screen."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from textual.pilot import Pilot

from tests.support.fixture_hosts import ReplayReader, host_32cpu, host_256cpu
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tests.tui.conftest import Tui
from tuitune.tui.panels.panels import IrqList
from tuitune.tui.screens.dialogs import ChoiceScreen, TextScreen

IRQ = "92"  # eth0-TxRx-0 of the fixture hosts, on CPU 0


@asynccontextmanager
async def running(
    tmp_path: Path,
    size: tuple[int, int],
    host: Callable[..., tuple[ReplayReader, str]] = host_32cpu,
) -> AsyncIterator[Tui]:
    reader, ifname = host(tmp_path / "host", samples=40)
    app = screen_app(reader, ifname, interval=0.25, editable=True, journal_dir=tmp_path / "journal")
    try:
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.samples_drawn >= 2 and app.nic is not None)
            yield Tui(app, pilot, reader)
            app.sampler.stop()
            await pilot.pause()
    finally:
        reader.close()


def irq_file(tui: Tui, name: str) -> Path:
    return tui.app.reader.root.proc / f"irq/{IRQ}/{name}"


def affinity(tui: Tui) -> str:
    return irq_file(tui, "smp_affinity_list").read_text().strip()


def irq_row(tui: Tui) -> str:
    line = next((ln for ln in tui.rows_seen("irqs") if ln.split()[2:3] == [IRQ]), None)
    assert line is not None, tui.rows_seen("irqs")
    return line


@pytest.mark.parametrize("size", [(80, 24), (200, 60)])
async def test_m_moves_the_irq_to_the_cpu_under_the_cursor(
    tmp_path: Path, size: tuple[int, int]
) -> None:
    async with running(tmp_path, size) as tui:
        pilot: Pilot[int] = tui.pilot
        app = tui.app
        await tui.press("2")
        assert app.panels["irqs"].view.move_cursor_to(f"irq:{IRQ}")
        await pilot.pause()
        assert "IRQ 92 lands on cpu0 100%" in tui.help_strip("irqs")
        await tui.press("1")
        assert "m Move IRQ" in tui.footer()
        # Down the list to CPU 5 with the keys, as a user would (topology order: 0, 16, 1...).
        while app.panels["cpus"].view.cursor_key != "cpu:5":
            await tui.press("j")
        assert "m: move IRQ 92 here" in tui.help_strip("cpus")
        await tui.press("m")
        await until(pilot, lambda: isinstance(app.screen, ChoiceScreen))
        preview = screen_text(app)
        assert "IRQ 92 (eth0-TxRx-0)  ->  cpu5" in preview
        assert "its interrupts land on cpu0 100%" in preview
        assert "after: affinity 5" in preview
        assert affinity(tui) == "0"  # nothing written before the answer
        await tui.press("y")
        await until(pilot, lambda: affinity(tui) == "5")
        await tui.press("2")
        # The kernel has not moved it yet (effective_affinity_list still 0): pending.
        await until(pilot, lambda: "pending" in irq_row(tui))
        assert irq_row(tui).split()[-3:-1] == ["5", "pending"]
        app.panels["irqs"].view.move_cursor_to(f"irq:{IRQ}")
        await until(
            pilot, lambda: "PENDING: affinity 5, still delivered to 0" in tui.help_strip("irqs")
        )
        # The next interrupt came on CPU 5: the effective affinity follows, pending goes.
        irq_file(tui, "effective_affinity_list").write_text("5\n")
        await tui.press("r")
        await until(pilot, lambda: "pending" not in irq_row(tui))
        assert irq_row(tui).split()[-3:-1] == ["5", "5"]


async def test_m_without_a_cpu_says_how_and_changes_nothing(tmp_path: Path) -> None:
    async with running(tmp_path, (80, 24)) as tui:
        await tui.press("2")
        tui.app.panels["irqs"].view.move_cursor_to(f"irq:{IRQ}")
        await tui.press("1", "home", "m")  # the grid's cursor on "all"
        assert "no CPU picked" in tui.header()
        assert not isinstance(tui.app.screen, ChoiceScreen)
        assert affinity(tui) == "0"


async def test_help_names_the_move(tmp_path: Path) -> None:
    async with running(tmp_path, (80, 24)) as tui:
        await tui.press("question_mark")
        await until(tui.pilot, lambda: isinstance(tui.app.screen, TextScreen))
        text = " ".join(screen_text(tui.app).split())
        assert "m Move IRQ" in text
        await tui.press("end")
        text = " ".join(screen_text(tui.app).split())
        assert "then m" in text and "pending" in text


async def test_drag_onto_a_heat_map_cell_with_feedback(tmp_path: Path) -> None:
    async with running(tmp_path, (160, 48), host_256cpu) as tui:
        pilot, app = tui.pilot, tui.app
        irqs = app.query_one(IrqList)
        heat = app.query_one("#heatmap")
        source_y = 1 + [r.key for r in irqs.shown].index(f"irq:{IRQ}")
        # A cell of the map's second line, wherever the layout put it (the map's cells may
        # stand for one CPU or several, by the room the panel has): the CPU it names.
        # The map is laid out again when the second sample arrives: pick the cell after that.
        await until(pilot, lambda: app.samples_drawn >= 2)
        await pilot.pause()
        cells = [(x, 1, heat.cpu_at(x, 1)) for x in range(heat.size.width)]  # type: ignore[attr-defined]
        x, y, _ = next(c for c in cells if c[2] not in (None, 0))
        target = (x, y)
        await pilot.mouse_down(irqs, offset=(2, source_y))
        await pilot.hover(heat, offset=target)
        cpu = heat.cpu_at(*target)  # type: ignore[attr-defined]
        assert cpu not in (None, 0)
        await until(pilot, lambda: f"release: IRQ 92 -> cpu{cpu}" in tui.help_strip("irqs"))
        await pilot.mouse_up(heat, offset=target)
        await until(pilot, lambda: affinity(tui) == str(cpu))
