"""`show --json` made comparable between a live read and a capture's (issue 34's fidelity):
what a tree cannot say is left out, named here once for the kernel and the VM tiers."""

from __future__ import annotations

from typing import Any

# Rates, and the two reads show makes only of a live host (TCP connections, per-queue
# rates: ioctls and inet_diag, not captured yet).
LIVE_ONLY = ("rates", "queue_rates", "connections")


def comparable(doc: dict[str, Any]) -> dict[str, Any]:
    """`doc` (show --json) without what moves between two reads or only a live read has."""
    for key in LIVE_ONLY:
        doc.pop(key)
    # Other processes named irqbalance come and go between the reads (and a live read
    # checks the executable's owner, which a capture cannot).
    doc["host"]["irqbalance"].pop("pids")
    doc["host"]["irqbalance"].pop("running")
    iface = doc["interface"]
    iface["link"].pop("counters")  # counters move; their names are state
    stats = iface["driver_stats"]
    iface["driver_stats"] = sorted(stats) if isinstance(stats, dict) else stats
    return doc
