"""Settings that live and die with a device's queues: RPS/XPS/flow counts of each queue and the
affinity of each queue's IRQ. A channel change creates or removes them (and drivers re-create
their IRQs, resetting the affinity), so the journal treats them as dependents of the device's
channel counts:

- A channel write's related settings include them (access.py `related`), so their exact
  originals are on disk before the write that moves them, and what the write left is what
  tuitune expects there afterwards (no false "changed outside tuitune").
- A queue that exists only because tuitune raised the channel count did not exist originally:
  when putting the count back removes it, that is the queue restored, not a setting left over.
"""

from __future__ import annotations

from collections.abc import Iterable

from tuitune.core.session.kinds.table import handler
from tuitune.core.session.outcome import Outcome
from tuitune.core.session.settings import QUEUE_KINDS, Key

GONE_WITH_QUEUE = "gone with its queue: the channel count is back at its original"
NO_WAY_BACK = (
    "its queue no longer exists and tuitune holds no channel change that would bring it "
    "back: nothing to put back"
)


def makes_queues(key: Key) -> bool:
    """Does a change to `key` make or remove its device's queues (a channel count: its
    handler's `makes_queues`)?"""
    return handler(key.kind).makes_queues


def follows_channels(key: Key) -> bool:
    """Does `key` exist only while its queue does (a queue setting, a queue's IRQ)?"""
    if key.kind in QUEUE_KINDS:
        return True
    return key.kind == "irq_affinity" and key.ifname is not None and key.queue is not None


def respread_by_count(key: Key) -> bool:
    """Is `key` the affinity of a queue's IRQ, which a channel change may move although the
    change neither adds nor removes that queue?"""
    return key.kind == "irq_affinity" and key.ifname is not None and key.queue is not None


def removed_by(out: Outcome) -> set[Key]:
    """The queue settings a channel write (`out`) made disappear."""
    if out.status != "changed" or not makes_queues(out.key):
        return set()
    return {e.key for e in out.also if e.after is None and follows_channels(e.key)}


def channels_held(held: Iterable[Key], key: Key) -> bool:
    """Does the journal hold a channel count of `key`'s device (which, put back, may bring
    the queue of `key` back)?"""
    return any(makes_queues(k) and k.ifname == key.ifname for k in held)
