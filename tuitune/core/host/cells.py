"""Counters as text to integers, converting only the cells that changed since the last tick.

A 1152-CPU host's tick turns thousands of per-CPU counters into integers (a NIC queue IRQ's
row, /proc/stat's columns), and most of them have not moved: an IRQ fires on the few CPUs it
is routed to, and an idle CPU's user and system times stand still. Finding the changed cells
runs in C (map(operator.ne) over the two lists of strings, itertools.compress); only those
go through int().
"""

from __future__ import annotations

from itertools import compress, count
from operator import ne

__all__ = ["Cells", "to_ints"]

# Past this share of changed cells, converting them all at once is cheaper.
_MOSTLY_CHANGED = 4


class Cells:
    """One row (or column) of counters: its text as last read and its values."""

    __slots__ = ("text", "values")

    def __init__(self, text: list[str], values: tuple[int, ...]) -> None:
        self.text = text
        self.values = values


def to_ints(text: list[str], last: Cells | None) -> Cells:
    """`text` (ASCII digit strings of at most a few hundred digits: the caller checked them)
    as integers, reusing `last`'s value for every cell whose text is the same."""
    if last is None or len(last.text) != len(text):
        return Cells(text, tuple(map(int, text)))
    changed = list(compress(count(), map(ne, last.text, text)))
    if not changed:
        return Cells(text, last.values)  # the same tuple: "nothing moved" is an `is` away
    if len(changed) * _MOSTLY_CHANGED > len(text):
        return Cells(text, tuple(map(int, text)))
    values = list(last.values)
    for i in changed:
        values[i] = int(text[i])
    return Cells(text, tuple(values))
