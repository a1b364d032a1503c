"""A list's repaint after a tick compares only the rows in sight (rowview.changed_lines, issue
38): held equal to every row compared and the lines out of sight dropped (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.tui.panels.rowview import Row, changed_lines


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(
    st.lists(st.tuples(st.sampled_from("ab"), st.sampled_from("ab")), max_size=40),
    st.integers(-2, 45),
    st.integers(0, 30),
)
def test_the_lines_in_sight_that_changed_are_those_of_every_row_compared(
    values: list[tuple[str, str]], top: int, height: int
) -> None:
    before = [Row(f"k{i}", (old,)) for i, (old, _) in enumerate(values)]
    after = [Row(f"k{i}", (new,)) for i, (_, new) in enumerate(values)]
    every = [
        y
        for i, (old, new) in enumerate(zip(before, after, strict=True))
        if old != new and 1 <= (y := i + 1 - top) < height  # line 0 is the title
    ]
    assert changed_lines(before, after, top, height) == every
