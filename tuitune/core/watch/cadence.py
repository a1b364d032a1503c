"""How often the live screen reads and judges what need not be read at every tick.

The counters are read at every tick; the NIC state, the host state, the whole
/proc/interrupts and the advisor's judgement for the header's count come every few ticks
(core/watch/sampler.py, tui/controllers/advisor.py). The counts are tuned for the default 1 s
interval; the live command keeps them in seconds at a shorter one (`Cadence.in_time`), so that
`--interval 0.25` reads the counters four times as often, and the rest no more often than at
1 s. Tests give their own counts, in ticks.
"""

from __future__ import annotations

from dataclasses import dataclass

SLOW_EVERY = 5  # ticks between NIC state reads (netlink, ethtool)
HOST_EVERY = 30  # ticks between host state reads (sysctls, topology, irqbalance)
FULL_EVERY = 10  # ticks between whole reads of /proc/interrupts
COUNT_EVERY = 3  # samples between two judgements of the advisor's window (the header's count)
# A recording reads the whole /proc/interrupts at every tick when the table has at most this
# many counts (IRQ rows x CPUs: 64 CPUs and 256 IRQs), so that replay's all-IRQs view has it
# at every sample; a bigger table keeps FULL_EVERY. Measured (docs/recording.md): the 1152-CPU
# host's 1000 x 1152 table at every tick is 29 MB an hour but ~0.9 s a tick to encode and
# ~85 s for `show --recording --at` to rebuild a minute of it.
RECORD_FULL_CELLS = 16_384


def ticks_for(ticks_at_1s: int, interval: float) -> int:
    """Ticks between two reads that need not come more often in time than every
    `ticks_at_1s` seconds: the same count at the default 1 s interval or a longer one, more
    ticks at a shorter one (issue 18, goal 4: at --interval 0.25 the NIC state every 5 s,
    not every 1.25 s). The counters themselves are read at every tick."""
    if interval <= 0 or interval >= 1:
        return ticks_at_1s
    return max(ticks_at_1s, round(ticks_at_1s / interval))


@dataclass(frozen=True, slots=True)
class Cadence:
    """How many ticks between the reads that are not the counters (Sampler's arguments)."""

    slow_every: int = SLOW_EVERY
    host_every: int = HOST_EVERY
    full_every: int = FULL_EVERY
    count_every: int = COUNT_EVERY

    @classmethod
    def in_time(cls, interval: float) -> Cadence:
        """The default cadence kept in seconds whatever the interval (the live command)."""
        every = (SLOW_EVERY, HOST_EVERY, FULL_EVERY, COUNT_EVERY)
        return cls(*(ticks_for(n, interval) for n in every))
