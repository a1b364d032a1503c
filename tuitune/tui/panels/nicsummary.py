"""The NIC panel's offloads at a glance: every changeable offload with its state, packed into
columns at the panel's width, then the fixed ones in one or two lines, near the top of the
panel (as `tuitune show` prints them). The per-feature rows further down stay the place to
toggle one (space) or its ethtool -K group (g)."""

from __future__ import annotations

from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import NicState
from tuitune.tui.look.palette import Palette
from tuitune.tui.panels.rowview import Row, RowsBuilder, Span

HEADING = "offloads at a glance"


def _wrap(words: list[str], width: int, first: str) -> list[str]:
    lines, line = [], first
    for n, word in enumerate(words):
        piece = word + ("," if n < len(words) - 1 else "")
        if len(line) + 1 + len(piece) > width and line.strip() and line != first:
            lines.append(line)
            line = "  " + piece
        else:
            line = f"{line} {piece}" if line else piece
    lines.append(line)
    return lines


def offload_summary(nic: NicState, width: int, p: Palette) -> list[Row]:
    feats = nic.features
    if isinstance(feats, Unavailable) or not feats:
        return []
    width = max(20, width)
    changeable = [f for f in feats if not f.fixed]
    fixed_on = [f.name for f in feats if f.fixed and f.active]
    fixed_off = sum(1 for f in feats if f.fixed and not f.active)
    asked = [f for f in changeable if f.requested != f.active]
    b = RowsBuilder()
    b.section(
        "offsum",
        f"{HEADING}: {len(changeable)} changeable, {len(fixed_on) + fixed_off} fixed "
        + ("(* asked otherwise, the kernel kept it; " if asked else "(")
        + "toggle them under offloads)",
    )
    if changeable:
        # "name off*", a space after: the width of a column never depends on the states, so
        # the grid keeps its columns when a feature is asked one way and kept the other.
        col = max(len(f.name) for f in changeable) + 5
        per_line = max(1, (width + 1) // (col + 1))
        for start in range(0, len(changeable), per_line):
            spans: list[Span] = []
            for n, f in enumerate(changeable[start : start + per_line]):
                if n:
                    spans.append((" ", None))
                state = "on" if f.active else "off"
                mark = "*" if f.requested != f.active else ""  # ethtool's "[requested on]"
                spans.append((f.name + " ", None))
                spans.append((state, p.on if f.active else p.off))
                spans.append((mark, p.warn))
                spans.append((" " * (col - len(f.name) - 1 - len(state) - len(mark)), None))
            text = " ".join(f"{f.name} {'on' if f.active else 'off'}" for f in changeable)
            b.add(f"offsum:{start}", tuple(spans), wide=True, search=f"offloads {text}", inert=True)
    if fixed_on:
        for n, line in enumerate(_wrap(fixed_on, width, "fixed on:")):
            b.add(f"offsum:fixed-on:{n}", ((line, p.muted),), wide=True, search=line, inert=True)
    if fixed_off:
        line = f"fixed off: {fixed_off} more (under fixed offloads)"
        b.add("offsum:fixed-off", ((line, p.muted),), wide=True, search=line, inert=True)
    return b.rows
