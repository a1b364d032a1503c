"""Where the heat map puts each CPU: lines of cells, a label per NUMA node, within a height.

One cell per CPU as long as that fits in the lines the heat map may take; past that, each cell
stands for `k` neighbouring CPUs (of one node, in topology order) and short nodes share a line,
so every node stays in sight: 16 nodes of 72 CPUs fit six lines of 80 columns at 4 CPUs a cell.
When even one cell per node would not fit, the lines scroll (HeatMap follows the cursor).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

LABEL_W = 4  # "n15 "
GROUP = 8  # cells in a group, a space between groups
# Cell sizes tried in turn: the first that fits the height wins.
STEPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128)

# A run of a line: text (a label, a space) or a cell, the CPUs it stands for.
Run = tuple[str, tuple[int, ...] | None]


@dataclass(frozen=True, slots=True)
class HeatLayout:
    per_cell: int  # CPUs a cell stands for
    lines: tuple[tuple[Run, ...], ...]

    def line_of(self, cpu: int) -> int | None:
        for y, runs in enumerate(self.lines):
            if any(cpus is not None and cpu in cpus for _, cpus in runs):
                return y
        return None


def _segment(node: int | None, cells: Sequence[tuple[int, ...]], first: bool) -> list[Run]:
    label = f"n{node}" if node is not None and first else ""
    runs: list[Run] = [(f"{label:<{LABEL_W}}", None)]
    for n, cell in enumerate(cells):
        if n and n % GROUP == 0:
            runs.append((" ", None))
        runs.append(("", cell))
    return runs


def _width(runs: Sequence[Run]) -> int:
    return sum(len(text) if cpus is None else 1 for text, cpus in runs)


def pack(
    groups: Sequence[tuple[int | None, Sequence[int]]], width: int, per_cell: int, share: bool
) -> HeatLayout:
    """Lines for `groups` (node, its CPUs in order) at `per_cell` CPUs a cell; with `share`,
    a node that fits beside the one before goes on the same line (a space between)."""
    room = max(LABEL_W + GROUP, width)
    per_line = max(GROUP, (room - LABEL_W) // (GROUP + 1) * GROUP)  # groups of 8, a space between
    lines: list[list[Run]] = []
    for node, cpus in groups:
        cells = [tuple(cpus[i : i + per_cell]) for i in range(0, len(cpus), per_cell)]
        whole = _segment(node, cells, True)
        if share and lines and len(cells) <= per_line:
            last = lines[-1]
            if _width(last) + 1 + _width(whole) <= room:
                last.append((" ", None))
                last.extend(whole)
                continue
        for start in range(0, len(cells), per_line):
            lines.append(_segment(node, cells[start : start + per_line], start == 0))
    return HeatLayout(per_cell, tuple(tuple(line) for line in lines))


def heat_layout(
    groups: Sequence[tuple[int | None, Sequence[int]]], width: int, max_lines: int | None
) -> HeatLayout:
    """The finest layout that fits `max_lines` (None: no limit, one cell per CPU); the
    coarsest tried when none fits, and then the heat map scrolls."""
    plain = pack(groups, width, 1, share=False)
    if max_lines is None or len(plain.lines) <= max_lines:
        return plain  # the look of a host that fits: a line (or more) per node
    biggest = max((len(cpus) for _, cpus in groups), default=1)
    best = plain
    for k in STEPS:
        if k > biggest and k != 1:
            break
        best = pack(groups, width, k, share=True)
        if len(best.lines) <= max_lines:
            return best
    return best
