"""The all-IRQs view's affinities, read a few IRQs a tick (core/watch/irqaffinity.py, issue 38):
held to what reading every IRQ at every tick gives."""

from __future__ import annotations

import math
from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.watch.irqaffinity import AffinityRounds


class Host:
    """Affinities that move: IRQ i's node is the number of moves made so far."""

    def __init__(self) -> None:
        self.moves = 0
        self.reads: list[list[str]] = []

    def value(self, irq: str) -> IrqAffinity:
        return IrqAffinity(irq, frozenset({int(irq) % 7}), frozenset(), self.moves, None)

    def read(self, irqs: Sequence[str]) -> dict[str, IrqAffinity]:
        self.reads.append(list(irqs))
        return {irq: self.value(irq) for irq in irqs}


POOL = [str(n) for n in range(30)]
TICK = st.tuples(
    st.lists(st.sampled_from(POOL), unique=True, max_size=20),  # the table's numbered IRQs
    st.booleans(),  # the state re-read this tick (everything)
    st.booleans(),  # an affinity moved before it
)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 8), st.lists(TICK, min_size=1, max_size=25))
def test_each_tick_delivers_the_latest_read_of_the_tables_irqs(
    budget: int, ticks: list[tuple[list[str], bool, bool]]
) -> None:
    host, rounds = Host(), AffinityRounds(budget)
    last: dict[str, IrqAffinity] | None = None
    latest: dict[str, IrqAffinity] = {}
    for irqs, everything, moved in ticks:
        host.moves += moved
        got = rounds.tick(irqs, host.read, everything)
        read = host.reads[-1]
        assert len(read) == len(set(read)) and set(read) <= set(irqs)
        assert len(read) == len(irqs) if everything else len(read) <= budget
        latest.update({irq: host.value(irq) for irq in read})
        if got is None:  # nothing read and nothing gone: what was delivered still holds
            got = last if last is not None else {}  # the screen starts with none
            assert not read and got.keys() == set(irqs)
        assert set(got) <= set(irqs)
        assert all(got[irq] == latest[irq] for irq in got)
        if everything:  # what reading every IRQ gives
            assert got == {irq: host.value(irq) for irq in irqs}
        last = got


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.lists(st.sampled_from(POOL), unique=True, min_size=1))
def test_a_still_table_is_read_whole_within_its_rounds(budget: int, irqs: list[str]) -> None:
    """After ceil(n / budget) ticks every IRQ is known, equal to a read of all of them, and
    every later window of that many ticks reads each one again."""
    host, rounds = Host(), AffinityRounds(budget)
    window = math.ceil(len(irqs) / budget)
    got = None
    for _ in range(window):
        got = rounds.tick(irqs, host.read) or got
    assert got == {irq: host.value(irq) for irq in irqs}
    for _ in range(3):
        host.reads.clear()
        for _ in range(window):
            rounds.tick(irqs, host.read)
        assert {irq for r in host.reads for irq in r} == set(irqs)


def test_forget_starts_afresh() -> None:
    host, rounds = Host(), AffinityRounds(2)
    rounds.tick(["1", "2", "3"], host.read)
    rounds.forget()
    got = rounds.tick(["1", "2", "3"], host.read)
    assert got is not None and set(got) == {"1", "2"}
