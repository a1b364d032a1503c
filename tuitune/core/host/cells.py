"""Counters as text to integers, converting only the cells that changed since the last tick.

A 1152-CPU host's tick turns thousands of per-CPU counters into integers (a NIC queue IRQ's
row, /proc/stat's columns), and most of them have not moved: an IRQ fires on the few CPUs it
is routed to, and an idle CPU's user and system times stand still. Finding the changed cells
runs in C (map(operator.ne) over the two lists of strings, itertools.compress); only those
go through int().
"""

from __future__ import annotations

import json
from itertools import compress, count
from operator import ne

__all__ = ["Cells", "to_ints"]

# Past this share of changed cells, converting them all at once is cheaper.
_MOSTLY_CHANGED = 4


class Cells:
    """One row (or column) of counters: its text as last read and its values. `dense`: most
    cells changed last time (an idle time column: every CPU's moves), so the next call does
    not look for the unchanged ones."""

    __slots__ = ("dense", "text", "values")

    def __init__(self, text: list[str], values: tuple[int, ...], dense: bool = False) -> None:
        self.text = text
        self.values = values
        self.dense = dense


def _all(text: list[str]) -> tuple[int, ...]:
    """Every cell: json's C scanner turns a list of numbers into ints faster than int() one
    by one; it refuses leading zeros ("007"), which int() takes, so those go the slow way."""
    try:
        return tuple(json.loads("[" + ",".join(text) + "]"))
    except ValueError:
        return tuple(map(int, text))


def to_ints(text: list[str], last: Cells | None) -> Cells:
    """`text` (ASCII digit strings of at most a few hundred digits: the caller checked them)
    as integers, reusing `last`'s value for every cell whose text is the same."""
    if last is None or len(last.text) != len(text):
        return Cells(text, _all(text))
    if last.dense:  # most cells moved last time: they will again; notice when they stop
        values = _all(text)
        moved = sum(map(ne, values, last.values))
        if not moved:
            return Cells(text, last.values)
        return Cells(text, values, dense=moved * _MOSTLY_CHANGED > len(text))
    changed = list(compress(count(), map(ne, last.text, text)))
    if not changed:
        return Cells(text, last.values)  # the same tuple: "nothing moved" is an `is` away
    if len(changed) * _MOSTLY_CHANGED > len(text):
        return Cells(text, _all(text), dense=True)
    cells = list(last.values)
    for i in changed:
        cells[i] = int(text[i])
    return Cells(text, tuple(cells))
