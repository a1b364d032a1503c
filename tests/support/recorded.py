"""Recordings made by the real sampler from the 4-CPU replayed host (tests/support), and their
replay: the tests' one way to take a sampler's samples, record them, record them again with
fields of the test's own, and read them back through replay's sampler."""

from __future__ import annotations

import queue
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.fixture_hosts import host_4cpu_series
from tuitune.core.advise import Context, Facts, advise, window_of
from tuitune.core.host.conns import Connection
from tuitune.core.record.player import RecordingReader
from tuitune.core.record.recorder import Recorder
from tuitune.core.record.replay import open_recording
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sample, Sampler


def sampled(
    reader: HostReader,
    ifname: str | None,
    samples: int,
    *,
    setup: Callable[[Sampler], None] | None = None,
    each: Callable[[Sample], None] | None = None,
    timeout: float = 30.0,
    **sampler_args: Any,
) -> list[Sample]:
    """The first `samples` samples of a Sampler on `reader` (interval 0.01 s unless given);
    `setup` readies the sampler before it starts (the views it reads for), `each` sees every
    sample before the next is asked for. `timeout` only ends a hung sampler."""
    got: queue.Queue[Sample] = queue.Queue()
    sampler_args.setdefault("interval", 0.01)
    sampler = Sampler(reader, ifname, got.put, limit=samples, **sampler_args)
    if setup is not None:
        setup(sampler)
    taken: list[Sample] = []
    sampler.start()
    try:
        while len(taken) < samples:
            s = got.get(timeout=timeout)
            if each is not None:
                each(s)
            taken.append(s)
            sampler.ack()
    finally:
        sampler.stop()
    return taken


def record(tmp: Path, path: Path, samples: int = 5) -> list[Sample]:
    """Record `samples` ticks of the sampler on the replayed host to `path`; the samples."""
    reader, ifname = host_4cpu_series(tmp, samples=5)
    with reader:
        host = reader.host_state()
        rec = Recorder(path, iface=ifname, netns=None, interval=1.0, host=host, started=0.0)
        try:
            # Every tick re-reads the state (slow_every=1): the "only when it changed" rule is
            # what keeps it out of the file.
            return sampled(reader, ifname, samples, each=rec.sample, slow_every=1)
        finally:
            rec.close()


def rerecorded(
    tmp: Path, name: str, change: Callable[[int, Sample], Sample], samples: int = 5
) -> tuple[Path, list[Sample]]:
    """`record`'s samples recorded again to tmp/name, each as `change(tick, sample)` makes it
    (fields the replayed host does not have: connections, driver counters, affinities); the
    recording's path and the samples it holds."""
    taken = record(tmp, tmp / "plain.rec", samples=samples)
    path = tmp / name
    host = next(s.host for s in taken if s.host is not None)
    rec = Recorder(path, iface="eth4", netns=None, interval=1.0, host=host, started=0.0)
    out = [change(i, s) for i, s in enumerate(taken)]
    for s in out:
        rec.sample(s)
    rec.close()
    return path, out


def all_irqs_open(sampler: Sampler) -> None:
    """A `setup`: the IRQ panel's all-IRQs view is open from the first tick (every IRQ's
    affinity read, or replayed, with each sample)."""
    sampler.all_irqs = True


def replayed(
    path: Path, samples: int, setup: Callable[[Sampler], None] | None = None
) -> tuple[list[Sample], list[float]]:
    """The first `samples` samples replay's sampler shows from the recording at `path`, and
    the recorded times of its samples."""
    with RecordingReader(open_recording(path)) as reader:
        times = reader.times()
        return sampled(reader, reader.ifname, samples, setup=setup), times


def live_findings(
    taken: list[Sample], first: int, last: int, connections: tuple[Connection, ...] | None = None
) -> list[str]:
    """The finding ids the live advisor gives over samples first..last of `taken` (its window
    of their counters, the first's and last's driver counters), as `advise --recording
    --from --to` must give them."""
    host = next(s.host for s in taken if s.host is not None)
    nic = next(s.nic for s in reversed(taken) if s.nic is not None)
    window = window_of(
        [s.counters for s in taken[first : last + 1] if s.counters is not None],
        {q.irq for q in nic.irqs},
        taken[first].driver_stats,
        taken[last].driver_stats,
    )
    facts = Facts(host, nic, window, Context("any"), connections=connections)
    return [f.id for f in advise(facts).findings]
