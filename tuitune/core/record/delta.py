"""A JSON tree as the difference from an earlier tree of the same shape (docs/recording.md).

Two samples of a host have the same shape (the same CPUs, IRQ rows, counter names) and
counters that move little, so a sample is stored as one flat list, a leaf per entry in walk
order: an int leaf as its rise, any other leaf `null` when unchanged or `[value]` when not.
A tree whose shape differs from every base is stored whole (a key frame).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tuitune.core.untrusted import Refused

BASES = 4  # recent trees kept to diff against: a sample with the whole IRQ table, one without


class Mismatch(Exception):
    """The trees differ in shape."""


def diff(prev: Any, cur: Any, out: list[Any]) -> None:
    """Append `cur`'s leaves as changes from `prev`'s to `out`; Mismatch when shapes differ."""
    if isinstance(cur, dict):
        if not isinstance(prev, dict) or len(prev) != len(cur) or list(prev) != list(cur):
            raise Mismatch
        for key, value in cur.items():
            diff(prev[key], value, out)
    elif isinstance(cur, list):
        if not isinstance(prev, list) or len(prev) != len(cur):
            raise Mismatch
        if cur and all(type(v) is int for v in cur) and all(type(v) is int for v in prev):
            out.extend([c - p for c, p in zip(cur, prev, strict=True)])
            return
        for p, c in zip(prev, cur, strict=True):
            diff(p, c, out)
    elif isinstance(prev, dict | list):
        raise Mismatch
    elif type(cur) is int and type(prev) is int:
        out.append(cur - prev)
    else:
        out.append(None if type(cur) is type(prev) and cur == prev else [cur])


def apply(prev: Any, changes: list[Any]) -> Any:
    """The tree `diff` described with `changes` against `prev`; Refused when they do not fit."""
    it = iter(changes)
    try:
        cur = _apply(prev, it)
    except StopIteration:
        raise Refused("a delta record shorter than its base") from None
    if next(it, _END) is not _END:
        raise Refused("a delta record longer than its base")
    return cur


_END = object()


def _apply(prev: Any, it: Iterator[Any]) -> Any:
    if isinstance(prev, dict):
        return {k: _apply(v, it) for k, v in prev.items()}
    if isinstance(prev, list):
        return [_apply(v, it) for v in prev]
    change = next(it)
    if change is None:
        return prev
    if type(change) is int and type(prev) is int:
        return prev + change
    if isinstance(change, list) and len(change) == 1 and not isinstance(change[0], dict | list):
        return change[0]
    raise Refused("a delta entry that is not a change of its leaf")


class Bases:
    """The last few trees, most recent first; writer and reader update them the same way."""

    def __init__(self) -> None:
        self.trees: list[Any] = []

    def encode(self, tree: Any) -> tuple[int, list[Any]] | None:
        """(base index, changes) against the first base of the same shape, or None (store
        whole); either way `tree` becomes the most recent base."""
        for i, base in enumerate(self.trees):
            out: list[Any] = []
            try:
                diff(base, tree, out)
            except Mismatch:
                continue
            self.use(i, tree)
            return i, out
        self.use(None, tree)
        return None

    def decode(self, index: int, changes: list[Any]) -> Any:
        if not 0 <= index < len(self.trees):
            raise Refused(f"a delta against base {index}, which is not there")
        tree = apply(self.trees[index], changes)
        self.use(index, tree)
        return tree

    def use(self, index: int | None, tree: Any) -> None:
        if index is not None:
            del self.trees[index]
        self.trees.insert(0, tree)
        del self.trees[BASES:]
