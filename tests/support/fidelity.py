"""`show --json` made comparable between a live read and a capture's (issue 34's fidelity):
what a tree cannot say is left out, named here once for the kernel and the VM tiers."""

from __future__ import annotations

from typing import Any

# Rates, and per-queue rates (a capture holds the counters at its recording's two ends,
# not the ones a live show reads over its own interval).
LIVE_ONLY = ("rates", "queue_rates")
# What a connection holds that moves between two reads (the sender's state); the rest (its
# ends, congestion control, MSS and options) is state.
CONN_MOVES = ("cwnd", "rtt_ms", "retrans", "pacing_bps", "delivery_bps")


def comparable(doc: dict[str, Any], connections: bool = False) -> dict[str, Any]:
    """`doc` (show --json) without what moves between two reads or only a live read has.
    `connections`: compare the TCP connections' state (where no connection comes or goes
    between the two reads: a lab namespace, not a guest reached by ssh)."""
    for key in LIVE_ONLY:
        doc.pop(key)
    conns = doc.pop("connections")
    if connections and isinstance(conns, list):
        kept = [{k: v for k, v in c.items() if k not in CONN_MOVES} for c in conns]
        doc["connections"] = sorted(kept, key=lambda c: (c["local"], c["lport"], c["rport"]))
    elif connections:
        doc["connections"] = conns
    # Other processes named irqbalance come and go between the reads (and a live read
    # checks the executable's owner, which a capture cannot).
    doc["host"]["irqbalance"].pop("pids")
    doc["host"]["irqbalance"].pop("running")
    for proc in doc["processes"] or ():  # where it runs and how much: rates, not state
        for key in ("cpu_percent", "ran_on", "threads"):
            proc.pop(key)
    iface = doc["interface"]
    iface["link"].pop("counters")  # counters move; their names are state
    stats = iface["driver_stats"]
    iface["driver_stats"] = sorted(stats) if isinstance(stats, dict) else stats
    return doc
