"""Every IRQ's affinity for the all-IRQs view, read a few IRQs a tick (issue 38).

Each IRQ's placement is four small files under /proc/irq/N (core/host/irqs.py); a 1152-CPU
host has about 1000 IRQs, so reading them all took 55-80 ms, which was the worst tick of the
view at every NIC-state tick. Affinities change rarely (a write from this screen, irqbalance
every 10 s), so a tick reads at most `budget` of them: first the IRQs never read (a new table,
the view just opened), then the others in turn, so each is re-read every len/budget ticks. A
tick that re-reads the state (after a change, on `r`) reads every one at once. The NIC's own
IRQs come with its state (NicState.irq_affinity), which the screen lays over these.

A round re-reads an IRQ it has read before through `read(irqs, known)` with that last read:
only the two affinity lists move (a write, irqbalance), its node, driver hint and managed flag
are set up with the IRQ, so they are kept until the next whole re-read (two files, not four).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from tuitune.core.host.irqs import IrqAffinity

# 32 IRQs at ~30 us each (2 checked opens) is ~1 ms a tick: a 1000-IRQ table in 32 ticks.
BUDGET = 32

# (IRQs, their last reads: only what moves is read again for those) -> affinities
Read = Callable[[Sequence[str], Mapping[str, IrqAffinity]], dict[str, IrqAffinity]]


class AffinityRounds:
    """The affinities read so far for the IRQs of the current table, kept between ticks."""

    __slots__ = ("_got", "_next", "budget")

    def __init__(self, budget: int = BUDGET) -> None:
        self.budget = max(1, budget)
        self._got: dict[str, IrqAffinity] = {}
        self._next = 0  # where the round over the table goes on

    def due(self, irqs: Sequence[str], everything: bool) -> list[str]:
        """The IRQs to read this tick: all of them when `everything`, else at most `budget`,
        the never-read first (in table order), then the next ones of the round."""
        if everything:
            return list(irqs)
        got = self._got
        want = [irq for irq in irqs if irq not in got][: self.budget]
        room = self.budget - len(want)
        n = len(irqs)
        if room > 0 and n:
            taken = set(want)
            start = self._next % n
            for k in range(n):
                irq = irqs[(start + k) % n]
                if irq not in taken:
                    want.append(irq)
                    room -= 1
                    if not room:
                        break
            self._next = start + k + 1
        return want

    def tick(
        self, irqs: Sequence[str], read: Read, everything: bool = False
    ) -> dict[str, IrqAffinity] | None:
        """Read what is due, through `read`; every known affinity of `irqs` (a new dict), or
        None when nothing was read and the table's IRQs are the ones already delivered."""
        old = self._got
        due = self.due(irqs, everything)
        fresh = read(due, {} if everything else {irq: old[irq] for irq in due if irq in old})
        if not fresh and old.keys() == set(irqs):
            return None
        self._got = {
            irq: fresh[irq] if irq in fresh else old[irq]
            for irq in irqs
            if irq in fresh or irq in old
        }
        return dict(self._got)

    def forget(self) -> None:
        """The view closed: nothing kept (it reads afresh when opened again)."""
        self._got = {}
        self._next = 0
