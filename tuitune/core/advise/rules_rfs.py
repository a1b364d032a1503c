"""Receive flow steering set half: the host's flow table without the queues' (or the reverse)
steers nothing. The fix is the pair the kernel documentation prescribes, as one step
(core/rfs.py). Not from the seed reports: Documentation/networking/scaling.rst."""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise.facts import Facts, Outcome
from tuitune.core.advise.model import Change, Finding, SourceRef
from tuitune.core.rfs import ENTRIES_KEY, rfs_of
from tuitune.core.session.settings import Key

_RFS_DOC = SourceRef(
    "kernel-doc",
    "Documentation/networking/scaling.rst, RFS: both rps_sock_flow_entries (32768 suggested) "
    "and each rx queue's rps_flow_cnt (the entries / the rx queues) must be set; aRFS adds "
    "the NIC's ntuple filters (not from the seeds)",
)


def rfs_half_set(f: Facts) -> Iterator[Outcome]:
    rule = "rfs-half-set"
    if f.nic is None:
        return
    ints = f.sysctl_ints(ENTRIES_KEY)
    rfs = rfs_of(ints[0] if ints else None, f.nic.queues, f.nic.features)
    if rfs.state != "half":
        return  # off (the default), on, or not read
    entries, per_queue = rfs.pair()
    change: list[Change] = []
    if entries != rfs.entries:
        change.append(Change(Key.sysctl(ENTRIES_KEY), str(entries)))
    change += [Change(Key.rps_flow_cnt(f.ifname, q), str(n)) for q, n in per_queue.items()]
    unset = rfs.unset
    what = (
        f"{len(unset)} of {len(rfs.counts)} rx queues of {f.ifname} have no flow table"
        if rfs.entries
        else f"{ENTRIES_KEY} is 0, so the rx queues' flow tables steer nothing"
    )
    yield Finding(
        id=rule,
        severity="hint",
        title=f"RFS is set half: {what}",
        evidence=(
            rfs.line(),
            f"the pair: {ENTRIES_KEY} {entries}, rps_flow_cnt {entries} / {len(rfs.counts)} "
            "rx queues on each queue without one (a power of two: the kernel rounds up)",
        ),
        change=tuple(change),
        sources=(_RFS_DOC,),
        context="any",
    )
