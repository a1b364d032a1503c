"""The per-CPU grid: mpstat -P ALL as rows, or a heat map when the CPUs outnumber the lines.

Rows follow the topology (NUMA node, package, core, thread) so a node's CPUs sit together, and
the NIC-local CPUs carry a mark: that is where its IRQs should land. When there are more CPUs
than lines, a heat map (one cell per CPU) shows them all at once and the list below turns into
"busiest first", still scrollable to every CPU.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import ClassVar, Protocol

from rich.segment import Segment
from rich.style import Style
from textual.binding import Binding, BindingType
from textual.events import Click
from textual.geometry import Region
from textual.message import Message
from textual.strip import Strip
from textual.widget import Widget

from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.cpus import Topology
from tuitune.core.units import pct, rate
from tuitune.core.watch.cpuview import sort_cpus
from tuitune.core.watch.rates import CpuRates, Rates
from tuitune.tui.look.glyphs import Glyphs
from tuitune.tui.look.palette import DEFAULT_PALETTE, Palette, heat_level
from tuitune.tui.panels.heatlayout import HeatLayout, heat_layout
from tuitune.tui.panels.rowview import CellValue, Column, Row, RowsBuilder, RowView, Span

ALL_KEY = "cpu:all"
_UNDERLINE, _REVERSE = Style(underline=True), Style(reverse=True)  # NIC-local; the cursor's
# A heat-map line's piece: separator text (style None), or one cell's glyph and heat style.
Cell = tuple[str, Style | None]


@dataclass(frozen=True, slots=True)
class GridData:
    rates: Rates | None
    topology: Topology | None
    local: frozenset[int]  # CPUs local to the NIC
    # Optional columns shown before: they stay, so the grid does not shift from tick to tick
    # when %iow or %stl dips under 0.05 and back.
    kept: frozenset[str] = frozenset()
    rps_on: bool = False  # RPS steers the NIC's packets: show softnet's received_rps, collisions
    picked: frozenset[int] = frozenset()  # CPUs ticked for a process (controllers/gridpick.py)


def optional_columns(rates: Rates, kept: frozenset[str] = frozenset()) -> frozenset[str]:
    """Titles of the optional columns to show: those with something to say now, and `kept`."""
    cpus = rates.cpus.values()
    now = {
        title
        for title, seen in (
            ("%nice", any(c.nice >= 0.05 for c in cpus)),
            ("%iow", any(c.iowait >= 0.05 for c in cpus)),
            ("%stl", any(c.steal >= 0.05 for c in cpus)),
            ("%gst", any(c.guest + c.gnice >= 0.05 for c in cpus)),
        )
        if seen
    }
    return frozenset(now) | kept


# The columns shown only once some CPU has time in them, as mpstat's would read 0.0 there.
OPTIONAL = ("%nice", "%iow", "%stl", "%gst")


def grid_columns(
    show_iowait: bool,
    show_steal: bool,
    rps: bool = False,
    *,
    show_nice: bool = False,
    show_guest: bool = False,
) -> list[Column]:
    return list(_columns(show_iowait, show_steal, rps, show_nice, show_guest))


@cache
def _columns(
    show_iowait: bool, show_steal: bool, rps: bool, show_nice: bool, show_guest: bool
) -> tuple[Column, ...]:
    """The columns, one tuple per choice: CpuCells compares them by identity first."""
    cols = [Column("CPU", 5), Column("%usr", 5, right=True)]
    if show_nice:  # niced programs' time: in %usr it read as the user's own load
        cols.append(Column("%nice", 5, right=True))
    cols += [
        Column("%sys", 5, right=True),
        Column("%irq", 5, right=True),
        Column("%soft", 5, right=True),
    ]
    if show_iowait:
        cols.append(Column("%iow", 5, right=True, drop=3))
    if show_steal:
        cols.append(Column("%stl", 5, right=True, drop=3))
    if show_guest:  # guest and guest-nice time, which mpstat takes out of usr and nice
        cols.append(Column("%gst", 5, right=True, drop=3))
    cols += [
        Column("%idle", 5, right=True),
        Column("load", 4, flex=True, drop=4, clip=True),
        Column("intr/s", 6, right=True),
        Column("rx/s", 6, right=True, drop=1),
        Column("tx/s", 6, right=True, drop=1),
        Column("drop/s", 6, right=True, drop=2),
        Column("sqz/s", 6, right=True, drop=2),
    ]
    if rps:  # softnet's received_rps (packets other CPUs steered here) and cpu_collision
        cols += [Column("rps/s", 6, right=True, drop=2), Column("coll/s", 6, right=True, drop=2)]
    return tuple(cols)


def cpu_order(data: GridData) -> list[int]:
    if data.rates is None:
        return []
    have = data.rates.cpus
    order = [c for c in data.topology.order() if c in have] if data.topology else []
    seen = set(order)
    return order + sorted(c for c in have if c not in seen)


def node_of(topology: Topology | None) -> dict[int, int]:
    if topology is None:
        return {}
    return {cpu: node for node, cpus in topology.nodes.items() for cpu in cpus}


def _pct_cell(value: float, p: Palette) -> CellValue:
    return ((pct(value), p.heat[heat_level(value)] if value >= 0.05 else p.heat[0]),)


def _bar(c: CpuRates, width: int, p: Palette) -> tuple[Span, ...]:
    """Stacked usr/sys/irq/soft bar with letters, so it reads without colour too (mpstat's
    fields in htop's shape)."""
    style = p.heat[heat_level(c.busy)]
    parts = (
        ("u", c.usr + c.guest),
        ("n", c.nice + c.gnice),
        ("s", c.sys),
        ("i", c.irq),
        ("S", c.soft),
        ("w", c.steal),
    )
    out: list[Span] = []
    used = 0
    for letter, value in parts:
        n = round(value * width / 100)
        n = min(n, width - used)
        if n > 0:
            out.append((letter * n, style))
            used += n
    out.append(("." * (width - used), p.heat[0]))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Bar:
    """The load column's cell, drawn at the width its column gets: equal when its rates and
    palette are, so a row whose numbers did not move compares equal and is not repainted
    (a `partial` compared by identity: the "all" row was new at every tick)."""

    c: CpuRates
    p: Palette

    def __call__(self, width: int) -> tuple[Span, ...]:
        return _bar(self.c, width, self.p)


_PCTS = 10  # CpuRates' fields after `cpu`: ten percentages (averaged), then counts (summed)


def average(rates: Rates) -> CpuRates:
    cs = list(rates.cpus.values())
    n = max(1, len(cs))
    # Column by column, in C: a 1152-CPU host's 20 000 getattr calls were a frame's millisecond.
    cols = list(zip(*cs, strict=True))[1:] if cs else [()] * (len(CpuRates._fields) - 1)
    pcts = (float(sum(col)) / n for col in cols[:_PCTS])
    return CpuRates(-1, *pcts, *(float(sum(col)) for col in cols[_PCTS:]))


def cpu_row(key: str, label: CellValue, c: CpuRates, cols: list[Column], p: Palette) -> Row:
    names = [col.title for col in cols]
    cells: list[CellValue] = [label]
    for name in names[1:]:
        match name:
            case "%usr":
                cells.append(_pct_cell(c.usr, p))
            case "%nice":
                cells.append(_pct_cell(c.nice, p))
            case "%gst":
                cells.append(_pct_cell(c.guest + c.gnice, p))
            case "%sys":
                cells.append(_pct_cell(c.sys, p))
            case "%irq":
                cells.append(_pct_cell(c.irq, p))
            case "%soft":
                cells.append(_pct_cell(c.soft, p))
            case "%iow":
                cells.append(_pct_cell(c.iowait, p))
            case "%stl":
                cells.append(_pct_cell(c.steal, p))
            case "%idle":
                cells.append(pct(c.idle))
            case "load":
                cells.append(Bar(c, p))
            case "intr/s":
                cells.append(rate(c.intr))
            case "rx/s":
                cells.append(rate(c.net_rx))
            case "tx/s":
                cells.append(rate(c.net_tx))
            case "drop/s":
                cells.append(((rate(c.drops), p.heat[4] if c.drops else p.heat[0]),))
            case "sqz/s":
                cells.append(((rate(c.squeezes), p.heat[3] if c.squeezes else p.heat[0]),))
            case "rps/s":
                cells.append(rate(c.rps))
            case "coll/s":
                cells.append(((rate(c.collisions), p.heat[3] if c.collisions else p.heat[0]),))
    return Row(key, tuple(cells), search=f"cpu{c.cpu} {label if isinstance(label, str) else ''}")


class CpuCells:
    """One CPU's row cells, made when drawn (rowview.LazyCells): a 1152-CPU host's list shows
    ~50 rows, and making every row's 20 cells each tick was a fifth of its Python time. Equal
    when the cells would be: the same rates, columns, palette and marks."""

    __slots__ = ("_cells", "args")

    def __init__(
        self,
        cpu: int,
        c: CpuRates,
        cols: tuple[Column, ...],
        p: Palette,
        mark: tuple[str, Style],
        mine: bool,
        node: int | None,  # not in the cells, in the row's search text: kept with them
    ) -> None:
        self.args = (cpu, c, cols, p, mark, mine, node)
        self._cells: tuple[CellValue, ...] | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CpuCells) and self.args == other.args

    __hash__ = None  # type: ignore[assignment]  # mutable cache: compared, never hashed

    def cells(self) -> tuple[CellValue, ...]:
        if self._cells is None:
            cpu, c, cols, p, (mark, style), mine, _ = self.args
            if mine:  # ticked for a process: its own mark, shown over the local one
                style += Style(bold=True, reverse=True)
            label: CellValue = ((f"{cpu:>3}", p.heat[heat_level(c.busy)]), (mark, style))
            self._cells = cpu_row(f"cpu:{cpu}", label, c, list(cols), p).cells
        return self._cells


def grid_rows(
    data: GridData,
    g: Glyphs,
    p: Palette,
    sort: str = "topology",
    nic_irqs: Sequence[str] = (),
    *,
    lazy: bool = True,
    last: Mapping[str, Row] | None = None,
) -> tuple[list[Column], list[Row]]:
    """The rows: "all", then each CPU in topology order under its node's heading, or sorted
    (core/watch/cpuview.py SORTS: by load, soft-IRQ or the NIC's interrupts, heaviest first).

    A CPU's cells are made when its row is drawn (`lazy`), and its row is `last`'s (the rows
    of the tick before, by key) when they are equal: the work per CPU is a comparison."""
    rates = data.rates
    if rates is None:
        return grid_columns(False, False), []
    cpus = rates.cpus
    shown = optional_columns(rates, data.kept)
    fixed = _columns(
        "%iow" in shown, "%stl" in shown, data.rps_on, "%nice" in shown, "%gst" in shown
    )
    cols = list(fixed)
    b = RowsBuilder()
    b.rows.append(cpu_row(ALL_KEY, "all", average(rates), cols, p))
    order = cpu_order(data)
    nodes = node_of(data.topology)
    multi_node = data.topology is not None and len(data.topology.nodes) > 1
    by_topology = sort == "topology"
    if not by_topology:
        order = sort_cpus(order, rates, sort, nic_irqs)
    last = last or {}
    local, picked = data.local, data.picked
    last_node: int | None = -2
    for cpu in order:
        c = cpus[cpu]
        node = nodes.get(cpu)
        if multi_node and by_topology and node != last_node:
            members = (
                data.topology.nodes.get(node, frozenset())
                if data.topology and node is not None
                else frozenset()
            )
            here = " (NIC-local)" if members and members <= local else ""
            b.section(f"node{node}", f"node {node}: CPUs {format_cpulist(members)}{here}")
            last_node = node
        mark: tuple[str, Style] = (
            (g.on if cpu in picked else g.local_mark, p.local)
            if cpu in local
            else (g.on if cpu in picked else " ", p.heat[heat_level(c.busy)])
        )
        key = f"cpu:{cpu}"
        args = (cpu, c, fixed, p, mark, cpu in picked, node)
        before = last.get(key)
        if before is not None and isinstance(made := before.lazy, CpuCells) and made.args == args:
            row = before  # nothing in it changed: the row (and cells made) of the tick before
        else:
            made = CpuCells(*args)
            row = Row(key, (), search=f"cpu{cpu} node{node}", lazy=made)
            if not lazy:
                row = Row(key, made.cells(), search=row.search)
        b.rows.append(row)
    return cols, b.rows


class HeatMap(Widget):
    """One cell per CPU (or per few CPUs on a big host), a line per NUMA node: the whole host
    at a glance, within `max_lines` so the list below keeps its rows (tui/heatlayout.py)."""

    DEFAULT_CSS = """
    HeatMap { height: auto; }
    """

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.data: GridData | None = None
        self.glyphs: Glyphs | None = None
        self.layout_ = HeatLayout(1, ())
        self.max_lines: int | None = None  # the App sets it from the panel's height
        self.top = 0  # first line shown, when the lines do not fit even coarsened
        self.selected: int | None = None
        self._base = Style()
        self._drawn: list[tuple[Cell, ...]] = []  # each shown line's cells, as last drawn
        # What `_drawn` was worked out from (_state): while it holds, a line is drawn from
        # its cells there, not worked out again (a 1152-CPU map is 16 lines of 72 cells).
        self._drawn_for: tuple[object, ...] | None = None
        # What the layout was made for: the topology (by identity), CPUs, width, max_lines.
        self._made_for: tuple[object, ...] | None = None
        self._laid_width = 80  # the width of the last layout made

    @property
    def palette(self) -> Palette:
        return getattr(self.app, "palette", DEFAULT_PALETTE)

    @property
    def per_cell(self) -> int:
        return self.layout_.per_cell

    def update(self, data: GridData, glyphs: Glyphs) -> None:
        self.data, self.glyphs = data, glyphs
        before = self._shown_count()
        # Hidden (the list alone, v), the map has no width: the last layout's, not a guess
        # that made a 1152-CPU layout for nothing each time v brought the map back.
        self._layout(max(10, self.size.width or self._laid_width))
        if self._shown_count() != before:
            self._drawn = []
            self.refresh(layout=True)  # a new layout is what costs: only when the height moves
            return
        self._repaint()

    def select(self, cpu: int | None) -> None:
        """Mark `cpu` (the list's cursor): only the lines whose cells changed are drawn again,
        the old mark's and the new one's (a key in the list repainted the whole map)."""
        self.selected = cpu
        self.follow()
        if self.data is None or not self.display:
            self.refresh()  # drawn afresh when next shown (update)
            return
        self._repaint()

    def _state(self) -> tuple[object, ...]:
        """What the shown lines' cells are worked out from."""
        return (self.data, self.glyphs, self.palette, self.layout_, self.top, self.selected)

    def _holds(self, state: tuple[object, ...] | None) -> bool:
        now = self._state()
        # The data, glyphs, palette and layout by identity (each is made anew when it
        # changes), the numbers by value.
        return (
            state is not None
            and all(a is b for a, b in zip(state[:4], now[:4], strict=True))
            and (state[4:] == now[4:])
        )

    def _repaint(self) -> None:
        # Repaint only the lines whose cells changed: an idle host's map, or a 1 Hz tick that
        # moved one CPU's figures, must not re-render (and re-send) every line (issue 18).
        drawn = [self._cells(y) for y in range(self._shown_count())]
        width = self.size.width
        changed = [
            Region(0, y, width, 1)
            for y, cells in enumerate(drawn)
            if y >= len(self._drawn) or self._drawn[y] != cells
        ]
        self._drawn, self._drawn_for = drawn, self._state()
        if changed:
            self.refresh(*changed)

    def _shown_count(self) -> int:
        n = len(self.layout_.lines)
        return n if self.max_lines is None else min(n, self.max_lines)

    def on_resize(self) -> None:
        if self.data is not None:
            self._layout(self.size.width)
            self.refresh(layout=True)

    def _layout(self, width: int) -> None:
        data = self.data
        if data is None or data.rates is None:
            self.layout_ = HeatLayout(1, ())
            return
        # The layout follows the topology, the CPUs and the size, not the rates: made again
        # only when one of those changed (a 1152-CPU host's was 6 ms a tick).
        key = (tuple(data.rates.cpus), width, self.max_lines)
        if (
            self._made_for is None
            or self._made_for[0] is not data.topology
            or self._made_for[1:] != key
        ):
            nodes = node_of(data.topology)
            groups: dict[int | None, list[int]] = {}
            for cpu in cpu_order(data):
                groups.setdefault(nodes.get(cpu), []).append(cpu)
            self.layout_ = heat_layout(list(groups.items()), width, self.max_lines)
            self._made_for = (data.topology, *key)
            self._laid_width = width
        self.follow()

    def follow(self) -> None:
        """Scroll the lines so the selected CPU's line is in sight (only when they overflow)."""
        shown = self._shown_count()
        total = len(self.layout_.lines)
        line = self.layout_.line_of(self.selected) if self.selected is not None else None
        if line is not None and not self.top <= line < self.top + shown:
            self.top = max(0, line - shown // 2)
        self.top = max(0, min(self.top, total - shown))

    def get_content_height(self, container: object, viewport: object, width: int) -> int:
        if self.data is not None:
            self._layout(width)
        return self._shown_count()

    def render_lines(self, crop: Region) -> list[Strip]:
        self._base = self.rich_style  # once per paint: it walks every ancestor's styles
        return super().render_lines(crop)

    def _line(self, y: int) -> tuple[Cell, ...]:
        """Line y's cells as drawn: those worked out when the data or the mark last changed
        (_repaint) while nothing they came from changed since, else all lines' worked out
        now, once for the paint (a new layout paints every line, often twice)."""
        if not self._holds(self._drawn_for):
            self._drawn = [self._cells(i) for i in range(self._shown_count())]
            self._drawn_for = self._state()
        return self._drawn[y] if y < len(self._drawn) else self._cells(y)

    def _cells(self, y: int) -> tuple[Cell, ...]:
        """What line y shows: separator text, or a cell's glyph and style (the key its
        repaint is decided by)."""
        lines = self.layout_.lines
        y += self.top
        data = self.data
        if y >= len(lines) or data is None or data.rates is None:
            return ()
        p, g, cpus = self.palette, self.glyphs, data.rates.cpus
        assert g is not None
        heat, top, steps = g.heat, len(g.heat) - 1, len(g.heat) - 2
        picked, local, selected = data.picked, data.local, self.selected
        out: list[Cell] = []
        for text, cell in lines[y]:
            if cell is None:
                out.append((text, None))
                continue
            # A cell of several CPUs shows its busiest: a hot core must not average away.
            if len(cell) == 1:
                c = cpus.get(cell[0])
                busy = 0.0 if c is None else c.busy
            else:
                busy = max((cpus[c].busy for c in cell if c in cpus), default=0.0)
            # Idle CPUs get the lowest visible step, so every CPU shows as a cell.
            ch = heat[min(top, 1 + round(busy / 100 * steps))]
            if picked and not picked.isdisjoint(cell):
                ch = g.on  # ticked for a process: readable without colour too
            style = p.heat[heat_level(busy)]
            if local and not local.isdisjoint(cell):
                style += _UNDERLINE
            if selected in cell:
                style += _REVERSE
            out.append((ch, style))
        return tuple(out)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self._base
        cells = self._line(y)
        if not cells:
            return Strip([Segment(" " * width, base)], width)
        # Neighbours of one style as one segment (an idle node's cells are one run): each
        # later step of a repaint works per segment, and a line of 72 cells was 80 of them.
        segs: list[Segment] = []
        texts: list[str] = []
        last: Style | None = None
        for text, style in cells:
            st = base if style is None else base + style
            if st is not last and texts:
                segs.append(Segment("".join(texts), last))
                texts = []
            texts.append(text)
            last = st
        segs.append(Segment("".join(texts), last))
        strip = Strip(segs)
        return strip.extend_cell_length(width, base).crop(0, width)

    def cpu_at(self, x: int, y: int) -> int | None:
        """The CPU of the cell at (x, y); of a cell of several, the busiest."""
        lines = self.layout_.lines
        y += self.top
        if not 0 <= y < len(lines):
            return None
        col = 0
        for text, cell in lines[y]:
            w = len(text) if cell is None else 1
            if col <= x < col + w:
                if cell is None:
                    return None
                rates = self.data.rates.cpus if self.data and self.data.rates else {}
                return max(cell, key=lambda c: (rates[c].busy if c in rates else 0.0, -c))
            col += w
        return None

    def on_click(self, event: Click) -> None:
        cpu = self.cpu_at(event.x, event.y)
        if cpu is not None:
            self.post_message(CpuPicked(cpu))


class CpuPicked(Message):
    """A CPU clicked in the heat map: the list below moves its cursor there."""

    def __init__(self, cpu: int) -> None:
        super().__init__()
        self.cpu = cpu


class CpuPicker(Protocol):
    """Pick mode (controllers/gridpick.py): CPUs ticked in the grid for a process."""

    @property
    def picking(self) -> bool: ...

    def toggle(self, cpu: int) -> None: ...

    def apply(self) -> None: ...

    def cancel(self) -> None: ...


PICK_ACTIONS = frozenset({"pick_toggle", "pick_apply", "pick_cancel"})


class CpuList(RowView):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("v", "app.grid_view", "Heat/list"),
        # o is in the help strip and ?: at 80 columns the footer holds only one more key.
        Binding("o", "app.cpu_sort", "Order: topology, load, soft-IRQ, NIC IRQs", show=False),
        Binding("m", "app.move_irq", "Move IRQ"),
        # Only while picking a process's CPUs (g in P); otherwise the key goes on to the App.
        Binding("space", "pick_toggle", "Picking CPUs: tick/untick this one", show=False),
        Binding("enter", "enter", "Help on row (picking CPUs: move the process there)", show=False),
        Binding("i", "app.info", "Help on row: CPU power, firewall", show=False),
        Binding("escape", "pick_cancel", "Picking CPUs: cancel, nothing moved", show=False),
    ]

    picker: CpuPicker | None = None  # the App sets it

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in PICK_ACTIONS:
            return self.picker is not None and self.picker.picking
        return True

    def action_pick_toggle(self) -> None:
        key = self.cursor_key
        if self.picker is None:
            return
        if not key or key == ALL_KEY or not key.startswith("cpu:"):
            self.app.bell()  # "all" or a node heading: not one CPU
            return
        self.picker.toggle(int(key.split(":")[1]))

    def action_pick_apply(self) -> None:
        if self.picker is not None:
            self.picker.apply()

    async def action_enter(self) -> None:
        """Enter moves the process while picking CPUs; otherwise it opens the row's help, as
        in every other panel (CPU power and the firewall's cost are reachable from here)."""
        if self.picker is not None and self.picker.picking:
            self.picker.apply()
        else:
            await self.app.run_action("info")

    def action_pick_cancel(self) -> None:
        if self.picker is not None:
            self.picker.cancel()
