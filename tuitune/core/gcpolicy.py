"""The garbage collector's settings for a long-running tuitune (the live screen).

Python runs a young-generation collection every 700 container allocations. A tick on a big
host builds many lists of one item per CPU, so on the 1152-CPU test host about one young
collection ran inside every tick and walked the tick's large live lists: about 1 ms of a
15 ms tick (measured by the tick2 work, issue 18). The objects made at start-up (modules,
Textual's classes, the catalog, the NIC state) live as long as the process: frozen, the
older generations' passes do not walk them again.

tuitune makes few reference cycles, so collecting less often holds little memory longer.
`benchmarks/bench_irqfiles.py` applies the same settings, so its figures are the screen's.

glibc's malloc keeps the pages its free chunks span: what start-up and a later burst of
imports (the Advisor's rules from the fifth sample) freed stayed resident, about 1.3 MB of a
small host's 41-42 MB ten seconds after the first frame (issue 38, goal 3). `trim` hands them
back (malloc_trim: 0.07-0.34 ms of CPU a call on this 2-CPU VM); the live screen calls it once
settled and every TRIM_EVERY samples after, since Textual's caches and the kinds' modules
(the first change) come and go later too. One glibc arena a thread (5 threads) measured
about the same as M_ARENA_MAX=1 once trimmed, so the arenas stay as they are.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable

YOUNG = 20_000  # allocations between young collections (Python's default: 700)
TRIM_EVERY = 8  # samples between two trims on the live screen


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, or None (musl and other C libraries: nothing to call)."""
    try:
        found: Callable[[int], int] = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    return found


_TRIM = _malloc_trim()


def settle() -> None:
    """Call once start-up is over (the live screen: after its first frames)."""
    gc.collect()  # once, so that start-up's cyclic garbage is not frozen with the rest
    gc.freeze()
    _, older, oldest = gc.get_threshold()
    gc.set_threshold(YOUNG, older, oldest)
    trim()


def trim() -> bool:
    """Give the C allocator's free pages back to the kernel; False where it cannot."""
    if _TRIM is None:
        return False
    _TRIM(0)
    return True
