"""Recordings made by the real sampler from the 4-CPU replayed host (tests/support)."""

from __future__ import annotations

import queue
from pathlib import Path

from tests.support.fixture_hosts import host_4cpu_series
from tuitune.core.record.recorder import Recorder
from tuitune.core.watch.sampler import Sample, Sampler


def record(tmp: Path, path: Path, samples: int = 5) -> list[Sample]:
    """Record `samples` ticks of the sampler on the replayed host to `path`; the samples."""
    reader, ifname = host_4cpu_series(tmp, samples=5)
    taken: list[Sample] = []
    with reader:
        host = reader.host_state()
        rec = Recorder(path, iface=ifname, netns=None, interval=1.0, host=host, started=0.0)
        got: queue.Queue[Sample] = queue.Queue()
        # Every tick re-reads the state (slow_every=1): the "only when it changed" rule is
        # what keeps it out of the file.
        sampler = Sampler(reader, ifname, got.put, interval=0.01, limit=samples, slow_every=1)
        sampler.start()
        try:
            while len(taken) < samples:
                s = got.get(timeout=30)
                rec.sample(s)
                taken.append(s)
                sampler.ack()
        finally:
            sampler.stop()
            rec.close()
    return taken
