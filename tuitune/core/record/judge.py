"""The advisor on a recorded window: one function for `advise --recording FILE --from T --to
T` and replay's `A` (the window around the cursor), so that both judge the same samples with
the same state and say the same."""

from __future__ import annotations

import math

from tuitune.core.advise import Context, Facts, window_of
from tuitune.core.record.replay import Recording
from tuitune.core.session.settings import Key
from tuitune.core.untrusted import Refused

# Replay's `A`: this many seconds either side of the sample on screen, the live screen's
# advisor window (tui/controllers/advisor.py WINDOW, 10 samples at 1 s) centred on it.
HALF_WINDOW = 5.0


def around(at: float, first: float, last: float, half: float = HALF_WINDOW) -> tuple[float, float]:
    """The window `half` seconds either side of `at`, inside the recording's span, widened to
    tenths of a second: times short enough to type again (`advise --from T1 --to T2`) that
    name the very same samples."""
    start, end = max(first, at - half), min(last, at + half)
    return math.floor(start * 10) / 10, math.ceil(end * 10) / 10


def recorded_facts(
    rec: Recording, start: float, end: float, context: Context, held: frozenset[Key] = frozenset()
) -> Facts:
    """What the rules judge for the samples from `start` to `end` seconds (with the one
    before when the window holds fewer than two), and the NIC and host state recorded by
    `end` (Refused: none recorded, or a record refused)."""
    samples, host_r, nic_r = rec.scan(start, end)
    host, nic = rec.state(host_r, nic_r)
    if nic is None:
        raise Refused(f"{rec.name}: no NIC state recorded by {end:g} s")
    # The per-queue and driver counters at the window's two ends, as the live advisor takes
    # them from its first and last sample (tui/controllers/advisor.py): the queue rules and
    # the NIC's named drop counters judge their rise (None where a sample has none).
    counters = [c for _at, c in samples]
    first, last = (counters[0].queue_stats, counters[-1].queue_stats) if counters else (None, None)
    window = window_of(counters, {q.irq for q in nic.irqs}, first, last)
    # The connections read in the window (a benchmark ran, or the connections view was open),
    # each at its last reading, as the live advisor judges a run's.
    conns = rec.connections(start, end)
    return Facts(host, nic, window, context, held=held, connections=conns)
