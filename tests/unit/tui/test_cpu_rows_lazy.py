"""The CPU list's visible-only and incremental paths (issue 38): a row's cells made when drawn,
a row kept from the tick before when nothing in it changed, the heat map's layout kept while
the topology, CPUs and size stay. Each is held equal to the full computation: every row's
cells made at once, worked out here as the grid did before (hypothesis)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.style import Style

from tuitune.core.host.cpus import CpuInfo, Topology
from tuitune.core.watch.cpuview import SORTS
from tuitune.core.watch.rates import CpuRates, Rates
from tuitune.tui.look.glyphs import ASCII, UNICODE, Glyphs
from tuitune.tui.look.palette import DEFAULT_PALETTE as P
from tuitune.tui.look.palette import heat_level
from tuitune.tui.panels.cpugrid import (
    ALL_KEY,
    GridData,
    HeatMap,
    cpu_order,
    cpu_row,
    grid_rows,
    node_of,
)
from tuitune.tui.panels.heatlayout import heat_layout
from tuitune.tui.panels.rowview import CellValue, Row


def _drawn(cells: Sequence[CellValue]) -> list[object]:
    """Cells as drawn: a bar (made at its column's width) drawn at a few widths."""
    return [(c(4), c(11)) if callable(c) else c for c in cells]


def _full(data: GridData, g: Glyphs, sort: str) -> list[tuple[str, str, bool, list[object]]]:
    """Every row made at once, the label worked out as the grid did before issue 38."""
    cols, rows = grid_rows(data, g, P, sort=sort, lazy=False)
    out = []
    for row in rows:
        if row.key.startswith("cpu:") and row.key != ALL_KEY:
            cpu = int(row.key[4:])
            c = data.rates.cpus[cpu] if data.rates else None
            assert c is not None
            mark = g.local_mark if cpu in data.local else " "
            style = P.local if cpu in data.local else P.heat[heat_level(c.busy)]
            if cpu in data.picked:
                mark, style = g.on, style + Style(bold=True, reverse=True)
            label: CellValue = ((f"{cpu:>3}", P.heat[heat_level(c.busy)]), (mark, style))
            cells = cpu_row(row.key, label, c, cols, P).cells
        else:
            cells = row.cells
        out.append((row.key, row.search, row.section, _drawn(cells)))
    return out


def _seen(rows: Sequence[Row]) -> list[tuple[str, str, bool, list[object]]]:
    return [(r.key, r.search, r.section, _drawn(r.values)) for r in rows]


_PCT = st.floats(0, 100, allow_nan=False)
_RATE = st.floats(0, 1e6, allow_nan=False)


@st.composite
def cpu_rates(draw: st.DrawFn, cpu: int) -> CpuRates:
    usr, sys_, soft, nice, iow = (draw(_PCT) / 5 for _ in range(5))
    idle = max(0.0, 100 - usr - sys_ - soft - nice - iow)
    return CpuRates(
        cpu, usr, nice, sys_, iow, 0.0, soft, 0.0, 0.0, 0.0, idle, *(draw(_RATE) for _ in range(7))
    )


@st.composite
def grids(draw: st.DrawFn) -> GridData:
    n = draw(st.integers(1, 24))
    cpus = {c: draw(cpu_rates(c)) for c in range(n)}
    nodes = draw(st.integers(1, 3))
    topo = Topology(
        tuple(CpuInfo(c, True, 0, c, c % nodes, frozenset({c})) for c in range(n)),
        frozenset(range(n)),
        frozenset(),
        frozenset(),
        {k: frozenset(c for c in range(n) if c % nodes == k) for k in range(nodes)},
    )
    some = st.frozensets(st.integers(0, n - 1))
    return GridData(
        Rates(1.0, cpus, {}, {}),
        draw(st.sampled_from([topo, None])),
        draw(some),
        rps_on=draw(st.booleans()),
        picked=draw(some),
    )


@st.composite
def next_tick(draw: st.DrawFn, data: GridData) -> GridData:
    """The tick after `data`: some CPUs' rates moved, the marks may have."""
    assert data.rates is not None
    cpus = dict(data.rates.cpus)
    for c in draw(st.lists(st.sampled_from(sorted(cpus)), max_size=len(cpus))):
        cpus[c] = draw(cpu_rates(c))
    picked = draw(st.sampled_from([data.picked, frozenset(), frozenset(list(cpus)[:1])]))
    return GridData(
        Rates(1.0, cpus, {}, {}), data.topology, data.local, data.kept, data.rps_on, picked
    )


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(grids(), st.sampled_from(SORTS), st.sampled_from([UNICODE, ASCII]))
def test_rows_made_when_drawn_equal_rows_made_at_once(data: GridData, sort: str, g: Glyphs) -> None:
    _, rows = grid_rows(data, g, P, sort=sort)
    assert _seen(rows) == _full(data, g, sort)


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(grids().flatmap(lambda d: st.tuples(st.just(d), next_tick(d))), st.sampled_from(SORTS))
def test_rows_kept_from_the_tick_before_equal_the_full_rows(
    ticks: tuple[GridData, GridData], sort: str
) -> None:
    before, now = ticks
    cols_before, old = grid_rows(before, UNICODE, P, sort=sort)
    for r in old[: len(old) // 2]:  # some drawn (their cells made) before the next tick
        r.values  # noqa: B018
    last = {r.key: r for r in old}
    cols, rows = grid_rows(now, UNICODE, P, sort=sort, last=last)
    assert _seen(rows) == _full(now, UNICODE, sort)
    # Kept exactly where nothing in the row changed: the same object, its cells not made again.
    assert now.rates is not None and before.rates is not None
    for r in rows:
        if r.key.startswith("cpu:") and r.key != ALL_KEY:
            cpu = int(r.key[4:])
            same = (
                cols == cols_before  # a column came or went (%iow): every row is new
                and now.rates.cpus[cpu] == before.rates.cpus[cpu]
                and (cpu in now.picked) == (cpu in before.picked)
            )
            assert (r is last[r.key]) == same


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(
    grids(),
    st.lists(
        st.tuples(st.sampled_from([10, 40, 200]), st.sampled_from([None, 1, 4]), st.booleans()),
        min_size=1,
        max_size=6,
    ),
)
def test_the_heat_maps_kept_layout_is_the_layout_made_afresh(
    data: GridData, steps: list[tuple[int, int | None, bool]]
) -> None:
    heat = HeatMap()
    assert data.rates is not None
    for width, max_lines, drop_one in steps:
        cpus = dict(data.rates.cpus)
        if drop_one and len(cpus) > 1:  # a CPU went offline
            cpus.pop(max(cpus))
        heat.data = GridData(Rates(1.0, cpus, {}, {}), data.topology, data.local)
        heat.max_lines = max_lines
        heat._layout(width)
        nodes = node_of(data.topology)
        groups: dict[int | None, list[int]] = {}
        for cpu in cpu_order(heat.data):
            groups.setdefault(nodes.get(cpu), []).append(cpu)
        assert heat.layout_ == heat_layout(list(groups.items()), width, max_lines)


def _cells_afresh(heat: HeatMap, y: int) -> tuple[object, ...]:
    """Line y of the map worked out from scratch, as the map did before issue 38."""
    lines = heat.layout_.lines
    y += heat.top
    data, g = heat.data, heat.glyphs
    if y >= len(lines) or data is None or data.rates is None or g is None:
        return ()
    cpus = data.rates.cpus
    out: list[object] = []
    for text, cell in lines[y]:
        if cell is None:
            out.append((text, None))
            continue
        busy = max((cpus[c].busy for c in cell if c in cpus), default=0.0)
        ch = g.heat[min(len(g.heat) - 1, 1 + round(busy / 100 * (len(g.heat) - 2)))]
        if any(c in data.picked for c in cell):
            ch = g.on
        style = P.heat[heat_level(busy)]
        if any(c in data.local for c in cell):
            style += Style(underline=True)
        if heat.selected in cell:
            style += Style(reverse=True)
        out.append((ch, style))
    return tuple(out)


class _Heat(HeatMap):
    """The heat map off screen: its palette the default one, its repaints counted by line."""

    palette = P  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.repainted: set[int] | None = set()  # None: all of it

    def refresh(self, *regions: object, **kw: object) -> _Heat:
        if not regions or self.repainted is None:
            self.repainted = None
        else:
            self.repainted |= {r.y for r in regions}  # type: ignore[attr-defined]
        return self


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(
    grids().flatmap(
        lambda d: st.tuples(
            st.just(d),
            st.lists(
                st.one_of(
                    next_tick(d).map(lambda t: ("tick", t)),
                    st.one_of(st.none(), st.integers(0, 30)).map(lambda c: ("select", c)),
                    st.sampled_from([None, 1, 2]).map(lambda n: ("lines", n)),
                ),
                min_size=1,
                max_size=8,
            ),
        )
    ),
    st.sampled_from([UNICODE, ASCII]),
)
def test_the_heat_maps_kept_cells_are_the_cells_made_afresh(
    start: tuple[GridData, list[tuple[str, object]]], g: Glyphs
) -> None:
    """A heat map line is drawn from the cells worked out at the last tick or cursor move:
    equal to the line worked out afresh, and every line that changed is repainted."""
    data, steps = start
    heat = _Heat()
    heat.update(data, g)
    for what, arg in steps:
        before = [_cells_afresh(heat, y) for y in range(heat._shown_count())]
        heat.repainted = set()
        if what == "tick":
            assert isinstance(arg, GridData)
            heat.update(arg, g)
        elif what == "select":
            assert arg is None or isinstance(arg, int)
            heat.select(arg)
        else:
            assert arg is None or isinstance(arg, int)
            heat.max_lines = arg  # the panel's height moved: a new layout at the next tick
            heat.update(heat.data or data, g)
        after = [_cells_afresh(heat, y) for y in range(heat._shown_count())]
        assert [heat._line(y) for y in range(heat._shown_count())] == after
        if heat.repainted is not None and len(after) == len(before):
            moved = {y for y, (a, b) in enumerate(zip(before, after, strict=True)) if a != b}
            assert moved <= heat.repainted


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(grids().flatmap(lambda d: st.tuples(st.just(d), next_tick(d))), st.sampled_from(SORTS))
def test_a_row_compares_equal_to_the_tick_befores_when_nothing_it_shows_moved(
    ticks: tuple[GridData, GridData], sort: str
) -> None:
    # The list repaints the rows that compare unequal (rowview.changed_lines): a row drawn
    # otherwise must compare unequal, and the "all" row, load bar included, equal when no
    # CPU's rates moved (it was new at every tick).
    before, now = ticks
    _, old = grid_rows(before, UNICODE, P, sort=sort)
    _, rows = grid_rows(now, UNICODE, P, sort=sort, last={r.key: r for r in old})
    was = {r.key: r for r in old}
    assert now.rates is not None and before.rates is not None
    for r in rows:
        if r.key not in was:
            continue
        if _seen([r]) != _seen([was[r.key]]):
            assert r != was[r.key]
        if r.key == ALL_KEY and now.rates.cpus == before.rates.cpus:
            assert r == was[r.key]
