"""The IRQ panel's "where it lands" strip: one character per CPU in its heat style, with
neighbours of one style joined into one span (a mostly idle IRQ on a big host is a few
segments to draw, not one per CPU). The cells are those of one span per CPU."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st
from rich.style import Style

from tuitune.core.watch.rates import IrqRate
from tuitune.tui.look.glyphs import ASCII, UNICODE
from tuitune.tui.look.palette import DEFAULT_PALETTE as P
from tuitune.tui.panels.cpugrid import heat_level
from tuitune.tui.panels.irqpanel import land_strip


def _per_cpu(r: IrqRate, cpus: list[int], heat: str) -> list[tuple[str, Style | None]]:
    """The strip cell by cell, worked out on its own: a dot for a CPU that took none."""
    out: list[tuple[str, Style | None]] = []
    for cpu in cpus:
        share = r.per_cpu.get(cpu, 0.0) / r.total if r.total > 0 else 0.0
        if share <= 0:
            out.append((".", P.heat[0]))
        else:
            i = max(1, min(len(heat) - 1, round(share * (len(heat) - 1))))
            out.append((heat[i], P.heat[heat_level(share * 100)]))
    return out


rates = st.dictionaries(st.integers(0, 63), st.floats(0.5, 1e6), max_size=64)


@given(rates, st.integers(1, 64), st.booleans())
def test_the_joined_strip_is_the_strip_cell_by_cell(
    per_cpu: dict[int, float], ncpus: int, ascii_only: bool
) -> None:
    glyphs = ASCII if ascii_only else UNICODE
    cpus = list(range(ncpus))
    shown = {c: v for c, v in per_cpu.items() if c < ncpus}
    r = IrqRate("30", sum(shown.values()), shown)
    spans = land_strip(r, cpus, glyphs, P)
    cells = [(ch, style) for text, style in spans for ch in text]
    if r.total > 0:
        assert cells == _per_cpu(r, cpus, glyphs.heat)
    else:
        assert cells == [(".", P.heat[0])] * ncpus
    # Joined: no two neighbouring spans share a style.
    assert all(a[1] != b[1] for a, b in itertools.pairwise(spans))


def test_an_idle_host_of_1152_cpus_with_one_busy_cpu_is_three_spans() -> None:
    cpus = list(range(1152))
    spans = land_strip(IrqRate("30", 5000.0, {700: 5000.0}), cpus, UNICODE, P)
    assert [len(t) for t, _ in spans] == [700, 1, 451]
