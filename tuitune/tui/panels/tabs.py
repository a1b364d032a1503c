"""A row of labels, the shown one highlighted, that a click picks from: the panels' tab bar
(small terminals) and the export screen's file bar share it."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

Span = tuple[int, int, int, int]  # (line, first column, past the last column, label index)


def tab_text(
    labels: Sequence[str], active: int, width: int | None = None
) -> tuple[Text, list[Span]]:
    """The labels, one space apart, wrapped at `width` (None: one line); each one's place."""
    text, x, y = Text(), 0, 0
    spans: list[Span] = []
    for i, label in enumerate(labels):
        if width is not None and x and x + len(label) > width:
            text.append("\n")
            x, y = 0, y + 1
        text.append(label, style="reverse bold" if i == active else "")
        spans.append((y, x, x + len(label), i))
        x += len(label)
        if width is None or x < width:
            text.append(" ")
            x += 1
    return text, spans


def tab_at(spans: Sequence[Span], x: int, y: int) -> int | None:
    """The index of the label at (x, y), None between labels."""
    return next((i for line, start, end, i in spans if line == y and start <= x < end), None)
