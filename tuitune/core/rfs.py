"""Receive flow steering (RFS) and its accelerated form (aRFS): whether they are on, and the
pair of values that turns RFS on, as the kernel documentation prescribes.

RFS needs two settings at once (Documentation/networking/scaling.rst): the host-wide table
`net.core.rps_sock_flow_entries` (the CPU each socket was last read on) and each rx queue's
`rps_flow_cnt` (that queue's flow table); with either at 0 nothing is steered. The document
suggests 32768 entries for a moderately loaded server and, per queue, the entries divided by
the number of rx queues. aRFS is RFS done by the NIC: the same two tables, with the device's
ntuple filters on (`rx-ntuple-filter`) and a driver that implements ndo_rx_flow_steer, which
tuitune cannot see: it says "if the driver has it". Not from the seed reports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tuitune.core.host.ethtool_types import Feature
from tuitune.core.host.netdev import QueueMasks
from tuitune.core.values import Unavailable

ENTRIES_KEY = "net.core.rps_sock_flow_entries"
SUGGESTED_ENTRIES = 32768  # scaling.rst, "a moderately loaded server"
NTUPLE = "rx-ntuple-filter"


@dataclass(frozen=True, slots=True)
class Rfs:
    entries: int | None  # None: not read (the file is in the host's namespace only)
    counts: dict[str, int]  # rx queue -> rps_flow_cnt, the queues that could be read
    ntuple: bool | None  # the ntuple filters feature; None: not read or not there

    @property
    def unset(self) -> list[str]:
        """The rx queues without a flow table."""
        return [q for q, n in self.counts.items() if n == 0]

    @property
    def state(self) -> str:
        """ "on", "off" or "half" (one of the two set without the other, or some queues only)."""
        if self.entries is None or not self.counts:
            return "unknown"
        some = any(self.counts.values())
        if not self.entries and not some:
            return "off"
        return "on" if self.entries and not self.unset else "half"

    def line(self) -> str:
        """One line for `show` and the NIC panel's note."""
        n = len(self.counts)
        set_ = n - len(self.unset)
        entries = "not read" if self.entries is None else str(self.entries)
        head = (
            f"RFS {self.state}: {ENTRIES_KEY} {entries} (host), "
            f"rps_flow_cnt set on {set_} of {n} rx queues"
        )
        return f"{head}; aRFS: {self.arfs()}"

    def arfs(self) -> str:
        if self.ntuple is None:
            return "no ntuple filters on this device"
        if not self.ntuple:
            return "off (ntuple filters off: ethtool -K IF ntuple on)"
        if self.state != "on":
            return "off until RFS is on (ntuple filters are on)"
        return "on if the driver steers flows itself (ntuple filters on, RFS on)"

    def pair(self, target: int | None = None) -> tuple[int, dict[str, int]]:
        """The kernel documentation's pair: the entries (kept when set, else 32768, at least a
        power of two as large as any queue's table) and, for each queue without a table, the
        entries divided by the rx queues, down to a power of two (the kernel rounds up)."""
        entries = target or self.entries or SUGGESTED_ENTRIES
        entries = _pow2_at_least(max(entries, *self.counts.values(), 1))
        per = _pow2_at_most(max(1, entries // max(1, len(self.counts))))
        return entries, {q: per for q in self.unset}


def _pow2_at_least(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _pow2_at_most(n: int) -> int:
    return 1 << (n.bit_length() - 1)


def rfs_of(
    entries: int | None,
    queues: Sequence[QueueMasks],
    features: Sequence[Feature] | Unavailable,
) -> Rfs:
    counts = {
        q.name: q.rps_flow_cnt
        for q in queues
        if q.name.startswith("rx-") and isinstance(q.rps_flow_cnt, int)
    }
    ntuple = None
    if not isinstance(features, Unavailable):
        f = next((f for f in features if f.name == NTUPLE), None)
        if f is not None and not f.fixed:
            ntuple = f.active
        elif f is not None and f.active:
            ntuple = True
    return Rfs(entries, counts, ntuple)
