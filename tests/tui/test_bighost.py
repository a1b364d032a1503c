"""The CPU panel on a 1152-CPU host in 16 NUMA nodes (issue 22 item 8): every node in the heat
map, the list below it on screen and scrollable to every CPU, and its orders (o)."""

from __future__ import annotations

import pytest

from tests.support.fixture_big import APP_CPU, NCPUS, RPS_CPU, host_1152cpu
from tests.tui.conftest import Launch, Tui


def first_cpus(tui: Tui, n: int) -> list[int]:
    """The CPU numbers of the list's first rows after "all", as drawn (node headings
    skipped)."""
    rows = [ln.split()[0].rstrip("◆") for ln in tui.rows_seen("cpus") if ln.strip()]
    return [int(c) for c in rows if c.isdigit()][:n]


@pytest.mark.parametrize("size", [(80, 24), (160, 48), (200, 60)])
async def test_every_node_in_the_heat_map_and_the_list_on_screen(
    launch: Launch, size: tuple[int, int]
) -> None:
    async with launch(host_1152cpu, size=size, samples=3, limit=2) as tui:
        heat = tui.text_of(tui.app.query_one("#heatmap"))
        labels = [word for ln in heat for word in ln.split() if word[:1] == "n"]
        assert labels == [f"n{n}" for n in range(16)], heat
        title = tui.top_border("cpus")
        assert "CPUs a cell" in title  # a cell stands for a few CPUs: the title says so
        # The list keeps rows of its own under the heat map, busiest first.
        assert len(first_cpus(tui, 5)) == 5
        assert first_cpus(tui, 2) == [0, APP_CPU]


async def test_80x24_every_cpu_is_reachable(launch: Launch) -> None:
    async with launch(host_1152cpu, size=(80, 24), samples=3, limit=2) as tui:
        view = tui.view("cpus")
        await tui.press("pagedown")
        assert tui.cursor_line("cpus") is not None and view.cursor > 1  # PgDn moved
        await tui.press("j")
        line = tui.cursor_line("cpus")
        assert line is not None and view.cursor_key == view.shown[view.cursor].key
        await tui.press("end")
        last = view.shown[-1].key.split(":")[1]
        line = tui.cursor_line("cpus")
        assert line is not None and line.split()[0].rstrip("◆") == last
        cpus = {int(r.key.split(":")[1]) for r in view.shown if r.key != "cpu:all"}
        assert cpus == set(range(NCPUS))
        # The heat map follows: the selected CPU's cell is drawn reversed, in its node's line.
        heat = tui.app.query_one("#heatmap").region
        marked = [
            y
            for y in range(heat.y, heat.bottom)
            if any(s is not None and s.reverse for _, s in tui.styles(y)[heat.x : heat.right])
        ]
        assert len(marked) == 1


async def test_o_cycles_the_order_of_the_cpu_list(launch: Launch) -> None:
    async with launch(host_1152cpu, size=(160, 48), samples=3, limit=2) as tui:
        assert "busiest first" in tui.top_border("cpus")
        await tui.press("o")
        assert "most soft-IRQ first" in tui.top_border("cpus")
        assert first_cpus(tui, 2) == [0, RPS_CPU]  # 50 % soft, then 30 %
        await tui.press("o")
        assert "most NIC interrupts first" in tui.top_border("cpus")
        assert first_cpus(tui, 1) == [0]  # every eth0 queue fires on CPU0
        assert APP_CPU not in first_cpus(tui, 5)
        await tui.press("o")
        assert "busiest first" not in tui.top_border("cpus")  # topology order
        assert first_cpus(tui, 2) == [0, NCPUS // 2]  # CPU0, then its SMT sibling
        await tui.press("o")
        assert "busiest first" in tui.top_border("cpus")
        assert first_cpus(tui, 2) == [0, APP_CPU]
