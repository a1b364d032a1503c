"""How the wide layout shares the screen's height between its two rows of panels.

Top: CPUs | IRQs; bottom: NIC | sysctls. Each row gets what its taller panel needs when that
fits in half the height, and the other row the rest: a 2-CPU host with a veth (no IRQs) gives
its rows to the NIC panel instead of leaving them empty. When both need more than half, they
share it evenly, as before. `z` zooms the focused panel over the whole body instead.
"""

from __future__ import annotations

CHROME = 5  # a panel's border (2), its column titles (1) and help strip (2)
MIN_ROW = 8  # the smallest a panel row gets: a few lines of its list still show


def wanted(lines: int) -> int:
    """The height a panel needs to show `lines` lines of content (at least one)."""
    return max(1, lines) + CHROME


def split_rows(height: int, top: int, bottom: int) -> int:
    """The top row's height out of `height`, given what each row wants."""
    if height <= 2 * MIN_ROW:
        return height // 2
    half = height // 2
    if top <= half:
        return max(MIN_ROW, top)
    if bottom <= half:
        return height - max(MIN_ROW, bottom)
    return half
