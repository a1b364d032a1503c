"""The RSS indirection table as one value the journal can hold, typed like `ethtool -X`
(issue 33), and the ETHTOOL_SRSSH write.

The value, read from the table and the device's rx ring count:

    default                 slot i -> queue i % rings: the kernel's own spread
                            (ethtool_rxfh_indir_default), written back as "reset to default"
    equal N                 slot i -> queue i % N (`ethtool -X IF equal N`), N below rings
    table 0*16 1*16 2 3 ... every slot, in order, runs of one queue as QUEUE*COUNT

Typed: those, or `weight W0 W1 ...` (`ethtool -X IF weight ...`), turned into the table
ethtool's own weight fill gives, so the value read back is the value written.

"default" is written as indir_size 0, which also clears the kernel's "configured by the user"
flag (a configured table stays put when the channel count changes; a default one follows it).
A table equal to the default that a user had set explicitly reads as "default" too, so putting
it back clears that flag: the slots are the same.

A configured table goes stale when the channel count rises: the new queues get no slot
(`RssTable.uncovered`, the advisor's rss-uncovered rule); lowering the count below a queue the
table uses is refused by the kernel while the table is configured.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Sequence

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.rss import DEFAULT, MAX_SLOTS, RXFH, table_value

ETHTOOL_SRSSH = 0x47
ETH_RSS_HASH_NO_CHANGE = 0
MAX_WORDS = 4096  # a table of 2048 slots alternating queues is 2049 words


class RssSpecError(ValueError):
    """Typed text that is no table for this device; the message says why."""


def weight_fill(weights: Sequence[int], size: int) -> list[int]:
    """ethtool's fill for `-X weight` (ethtool.c fill_indir_table): queue j gets a contiguous
    run of slots in proportion to its weight."""
    total = sum(weights)
    out: list[int] = []
    j, partial = -1, 0
    for i in range(size):
        while i >= size * partial // total:
            j += 1
            partial += weights[j]
        out.append(j)
    return out


def _number(word: str, what: str, top: int) -> int:
    if not (word.isascii() and word.isdigit() and len(word) <= 6):
        raise RssSpecError(f"{what} {word[:12]!r} is not a whole number")
    value = int(word)
    if value > top:
        raise RssSpecError(f"{what} {value} is above {top}")
    return value


def indir_of(value: str, size: int, rings: int) -> tuple[int, ...] | None:
    """The table a canonical (or typed) value stands for on a `size`-slot table of a device
    with `rings` rx rings; None for default. RssSpecError when it is none."""
    words = value.split()
    if not words:
        raise RssSpecError("empty: e.g. default, equal 2, weight 1 1 2 2")
    if len(words) > MAX_WORDS:
        raise RssSpecError("too long for an indirection table")
    head, rest = words[0], words[1:]
    top = max(rings - 1, 0)
    if head == DEFAULT and not rest:
        return None
    if head == "equal" and len(rest) == 1:
        n = _number(rest[0], "equal", rings)
        if n < 1:
            raise RssSpecError("equal needs at least 1 queue")
        return tuple(i % n for i in range(size))
    if head == "weight" and rest:
        weights = [_number(w, "weight", 1 << 16) for w in rest]
        if len(weights) > rings:
            raise RssSpecError(f"{len(weights)} weights for {rings} rx queues")
        if sum(weights) == 0:
            raise RssSpecError("the weights are all 0: no queue would get a slot")
        return tuple(weight_fill(weights, size))
    if head == "table" and rest:
        out: list[int] = []
        for w in rest:
            q, star, count = w.partition("*")
            queue = _number(q, "queue", top)
            out += [queue] * (_number(count, "count", size) if star else 1)
        if len(out) != size:
            raise RssSpecError(f"the table has {len(out)} slots; the device has {size}")
        return tuple(out)
    raise RssSpecError(
        f"{value[:40]!r}: expected default, equal N, weight W0 W1 ... or table Q*N ..."
    )


def parse_rss(text: str, size: int, rings: int) -> str:
    """Typed text -> the canonical value (what the table will read back as)."""
    indir = indir_of(text, size, rings)
    return DEFAULT if indir is None else table_value(indir, rings)


def write_indir(io: EthtoolIoctl, indir: Sequence[int] | None) -> None:
    """ETHTOOL_SRSSH on RSS context 0: the table (key and hash function unchanged), or None:
    reset to the kernel's default (indir_size 0). OSError with the driver's errno."""
    n = 0 if indir is None else min(len(indir), MAX_SLOTS)
    buf = ctypes.create_string_buffer(RXFH.size + 4 * n)
    RXFH.pack_into(buf, 0, ETHTOOL_SRSSH, 0, n, 0, ETH_RSS_HASH_NO_CHANGE, 0, 0)
    if indir is not None and n:
        struct.pack_into(f"={n}I", buf, RXFH.size, *indir[:n])
    io.call(buf)
