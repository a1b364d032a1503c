"""Which combinations a sweep measures, and in which order.

`grid`: every combination of every dimension's values. `one-at-a-time` (NASA's Table 2): a
baseline where every dimension has its first value, then each other value of each dimension
alone against it; the `columns` dimension is crossed in full with both designs.

The order: dimensions whose change resets the link (MTU, channels, rings) vary slowest, and
the grid is walked as a snake (each pass runs the fastest dimension's values backwards every
other time), so that two neighbouring cells differ in one value and a drift between
neighbours names one setting. Every cell is still applied from the originals (the runner puts
them back between cells), so the order does not save writes; it keeps the measuring order
easy to read back. By default (`order = "shuffle"`) that walk is then shuffled with a
recorded seed (measuring_order).
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass

from tuitune.core.sweep.spec import MAX_SEED, Dimension, Setting, SweepSpec, Value

# Kinds whose write restarts the device (a link flap, a ring reallocation): changed least.
_SLOW = {"mtu": 0, "channels": 1, "ring": 2}


@dataclass(frozen=True, slots=True)
class Combination:
    """One cell: the value of each dimension (in the spec's dimension order)."""

    values: tuple[tuple[str, Value], ...]  # (dimension name, value)

    @property
    def key(self) -> tuple[str, ...]:
        """What identifies the cell in the notebook: each dimension's label."""
        return tuple(v.label for _, v in self.values)

    @property
    def label(self) -> str:
        """ "tso off, mtu 9000": each dimension and its value."""
        return ", ".join(f"{d} {v.label}" for d, v in self.values)

    def settings(self) -> list[tuple[Setting, str]]:
        return [p for _, v in self.values for p in v.settings]

    def test(self, name: str) -> str | None:
        """A test parameter's value here (streams, direction), None when not a dimension."""
        for s, text in self.settings():
            if s.kind is None and s.name == name:
                return text
        return None


def _cost(d: Dimension) -> int:
    kinds = [s.kind for v in d.values for s, _ in v.settings]
    return min((_SLOW[k] for k in kinds if k in _SLOW), default=len(_SLOW))


def _snake(dims: list[Dimension]) -> list[list[Value]]:
    """Every combination of `dims` (first varies slowest), neighbours differing in one."""
    rows: list[list[Value]] = [[]]
    for d in dims:
        grown: list[list[Value]] = []
        for i, row in enumerate(rows):
            values = d.values if i % 2 == 0 else tuple(reversed(d.values))
            grown += [[*row, v] for v in values]
        rows = grown
    return rows


def combinations(spec: SweepSpec) -> list[Combination]:
    """The cells in the order they are measured (see the module's note)."""
    dims = list(spec.dimensions)
    column = next((d for d in dims if d.name == spec.columns), None)
    if spec.design == "grid":
        order = sorted(dims, key=_cost)  # stable: the spec's order among equals
        rows = _snake(order)
        picked = [dict(zip([d.name for d in order], r, strict=True)) for r in rows]
    else:
        others = [d for d in dims if d is not column]
        variants: list[dict[str, Value]] = [{d.name: d.values[0] for d in others}]
        for d in others:
            for v in d.values[1:]:
                variants.append({**variants[0], d.name: v})
        picked = []
        col_values = column.values if column is not None else (None,)
        # The column (MTU in Table 2) varies slowest: one link reset per column value.
        for i, cv in enumerate(col_values):
            rows_here = variants if i % 2 == 0 else list(reversed(variants))
            for var in rows_here:
                cell = dict(var)
                if column is not None and cv is not None:
                    cell[column.name] = cv
                picked.append(cell)
    return [Combination(tuple((d.name, cell[d.name]) for d in dims)) for cell in picked]


def row_label(spec: SweepSpec, combo: Combination) -> str:
    """The pivot row a cell belongs to: every dimension but the columns' one. For the
    one-at-a-time design, the one dimension that left its baseline (or "baseline")."""
    parts = [(d, v) for d, v in combo.values if d != spec.columns]
    if spec.design == "one-at-a-time":
        firsts = {d.name: d.values[0] for d in spec.dimensions}
        moved = [(d, v) for d, v in parts if v != firsts[d]]
        parts = moved
        if not parts:
            return "baseline"
    return ", ".join(f"{d} {v.label}" for d, v in parts) or "all"


def column_label(spec: SweepSpec, combo: Combination) -> str:
    if spec.columns is None:
        return ""
    return next(v.label for d, v in combo.values if d == spec.columns)


def new_seed() -> int:
    """A seed for a shuffled sweep, drawn once and recorded with every run."""
    return secrets.randbelow(MAX_SEED + 1)


def measuring_order(spec: SweepSpec, seed: int | None) -> list[Combination]:
    """The cells in the order they are measured: the snake (see the module's note), or with
    `order = "shuffle"` the same cells shuffled by `seed`, so that a drift of the machine
    while the sweep runs spreads over every dimension instead of following the slowest one.
    The same seed gives the same order (a run is reproducible, and --resume keeps it)."""
    cells = combinations(spec)
    if spec.order != "shuffle" or seed is None:
        return cells
    random.Random(seed).shuffle(cells)
    return cells
