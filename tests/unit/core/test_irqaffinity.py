"""The all-IRQs view's affinities, read a few IRQs a tick (core/watch/irqaffinity.py, issue 38):
held to what reading every IRQ at every tick gives."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host.irqs import IrqAffinity, read_irq_affinity
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.irqaffinity import AffinityRounds


class Host:
    """Affinities that move: IRQ i's effective CPU is the number of moves made so far; its
    node and hint are fixed (set up with the IRQ)."""

    def __init__(self) -> None:
        self.moves = 0
        self.reads: list[list[str]] = []
        self.known: list[Mapping[str, IrqAffinity]] = []

    def value(self, irq: str) -> IrqAffinity:
        return IrqAffinity(
            irq, frozenset({int(irq) % 7}), frozenset({self.moves}), int(irq) % 3, f"{irq}f"
        )

    def read(
        self, irqs: Sequence[str], known: Mapping[str, IrqAffinity] | None = None
    ) -> dict[str, IrqAffinity]:
        """As read_irq_affinity: of a known IRQ only the affinity lists are read again."""
        self.reads.append(list(irqs))
        self.known.append(dict(known or {}))
        got = {}
        for irq in irqs:
            now, was = self.value(irq), (known or {}).get(irq)
            if was is not None:  # what is kept from the last read, the lists read again
                now = replace(was, smp_affinity=now.smp_affinity, effective=now.effective)
            got[irq] = now
        return got


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
        read, known = host.reads[-1], host.known[-1]
        assert len(read) == len(set(read)) and set(read) <= set(irqs)
        # A round hands over the last read of each IRQ it read before; a whole re-read none.
        assert not known if everything else set(known) <= set(read)
        assert all(known[irq] == last[irq] for irq in known if last and irq in last)
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


def test_a_known_irq_reads_only_its_affinity_lists_again(tmp_path: Path) -> None:
    """read_irq_affinity with the IRQ's last read: the lists are the kernel's now, the node
    and hint the last read's (two files opened, not four); without it, all four."""
    irq = tmp_path / "proc/irq/40"
    irq.mkdir(parents=True)
    (tmp_path / "sys").mkdir()
    files = {"node": "1", "affinity_hint": "0", "smp_affinity_list": "0-3"}
    for name, text in {**files, "effective_affinity_list": "2"}.items():
        (irq / name).write_text(text + "\n")
    root = HostRoot.fixture(tmp_path)
    first = read_irq_affinity(root, "40")
    assert (first.node, first.smp_affinity, first.effective) == (1, frozenset(range(4)), {2})
    (irq / "node").write_text("0\n")
    (irq / "smp_affinity_list").write_text("5\n")
    (irq / "effective_affinity_list").write_text("5\n")
    again = read_irq_affinity(root, "40", known=first)
    assert again == replace(first, smp_affinity=frozenset({5}), effective=frozenset({5}))
    assert read_irq_affinity(root, "40").node == 0
