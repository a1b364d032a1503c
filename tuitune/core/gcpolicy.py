"""The garbage collector's settings for a long-running tuitune (the live screen).

Python runs a young-generation collection every 700 container allocations. A tick on a big
host builds many lists of one item per CPU, so on the 1152-CPU test host about one young
collection ran inside every tick and walked the tick's large live lists: about 1 ms of a
15 ms tick (measured by the tick2 work, issue 18). The objects made at start-up (modules,
Textual's classes, the catalog, the NIC state) live as long as the process: frozen, the
older generations' passes do not walk them again.

tuitune makes few reference cycles, so collecting less often holds little memory longer.
`benchmarks/bench_irqfiles.py` applies the same settings, so its figures are the screen's.
"""

from __future__ import annotations

import gc

YOUNG = 20_000  # allocations between young collections (Python's default: 700)


def settle() -> None:
    """Call once start-up is over (the live screen: after its first frames)."""
    gc.collect()  # once, so that start-up's cyclic garbage is not frozen with the rest
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG, older, oldest)
