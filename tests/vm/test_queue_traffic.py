"""Per-queue counters move under traffic on a real driver (issue 33): Ethernet frames sent out
of the guest's 4-queue virtio NIC through a packet socket (no address, nothing configured:
the frames leave by the tap, an experimental EtherType nobody answers) while `tuitune show
--json` measures; its `queue_rates` (from virtio_net's `ethtool -S` names on the 6.1 kernel,
which has no netdev qstats) count them on the tx queues, beside each queue's IRQs."""

from __future__ import annotations

import socket
import threading
import time
from typing import Any

import pytest

from .conftest import Nics, show_json

pytestmark = pytest.mark.vm

ETHERTYPE = 0x88B5  # IEEE 802 local experimental: no stack in the guest or the host takes it


def _send(dev: str, stop: threading.Event, sent: list[int]) -> None:
    with socket.socket(socket.AF_PACKET, socket.SOCK_RAW) as s:
        s.bind((dev, 0))
        mac = s.getsockname()[4]
        frame = b"\xff" * 6 + mac + ETHERTYPE.to_bytes(2, "big") + bytes(46)
        while not stop.is_set():
            s.send(frame)
            sent[0] += 1
            time.sleep(0.001)


def test_tx_queue_counters_move_under_traffic(nics: Nics) -> None:
    stop, sent = threading.Event(), [0]
    sender = threading.Thread(target=_send, args=(nics.virtio, stop, sent), daemon=True)
    sender.start()
    try:
        doc: dict[str, Any] = show_json(nics.virtio)
    finally:
        stop.set()
        sender.join(timeout=10)
    assert sent[0] > 0
    rates = doc["queue_rates"]
    assert rates is not None and "ethtool -S" in rates["source"], rates
    tx = {q["queue"]: q.get("tx", {}).get("packets", 0.0) for q in rates["queues"]}
    assert len(tx) == 4, rates  # every queue of the 4, each its own row
    assert sum(tx.values()) > 0, rates  # the frames, counted on the queue(s) that sent them
    assert all(q["irqs"] for q in rates["queues"]), rates  # beside the queue's own IRQs
