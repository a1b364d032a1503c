"""Where a tick's CPU goes: timers around the parts of HostReader.counters() and the rates,
put on one reader by the benchmark (tuitune is unchanged). Each part's CPU is the thread time
of the thread that ran it (reads on the kernel-I/O thread, rates on the sampler's)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from typing import Any
from unittest import mock

from tuitune.core.host.procfs import SoftnetParser, StatParser
from tuitune.core.host.tickreads import SoftirqsReader, StatReader
from tuitune.core.watch import hostreader, sampler
from tuitune.core.watch.hostreader import HostReader

# part name -> what it times
PARTS = (
    "/proc/stat: read",
    "/proc/stat: parse (changed cells only)",
    "/proc/softirqs: NET rows' span",
    "/proc/net/softnet_stat: parse",
    "NIC IRQ files: read and parse",
    "interface counters",
    "rates (compute_rates)",
)


class TickParts:
    """ticks[k-1]: part -> CPU seconds of the k-th counters() call and the rates after it."""

    def __init__(self) -> None:
        self.ticks: list[dict[str, float]] = []
        self._lock = threading.Lock()

    def _add(self, part: str, seconds: float) -> None:
        with self._lock:
            if self.ticks:
                tick = self.ticks[-1]
                tick[part] = tick.get(part, 0.0) + seconds

    def _timed(self, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any, **kw: Any) -> Any:
            t0 = time.thread_time()
            try:
                return fn(*args, **kw)
            finally:
                self._add(part, time.thread_time() - t0)

        return run

    @contextmanager
    def watching(self, reader: HostReader) -> Iterator[TickParts]:
        real_counters = reader.counters

        def counters(*args: Any, **kw: Any) -> Any:
            with self._lock:
                self.ticks.append({})
            return real_counters(*args, **kw)

        with ExitStack() as stack:
            stack.enter_context(mock.patch.object(reader, "counters", counters))
            # Patched on their classes (they have __slots__): one reader runs at a time here.
            for cls, name, part in (
                (StatReader, "read", PARTS[0]),
                (StatParser, "parse", PARTS[1]),
                (SoftirqsReader, "read", PARTS[2]),
                (SoftnetParser, "parse", PARTS[3]),
            ):
                real = getattr(cls, name)
                stack.enter_context(mock.patch.object(cls, name, self._timed(part, real)))
            for module, name, part in (
                (hostreader, "read_irq_rows", PARTS[4]),
                (hostreader, "read_counters", PARTS[5]),
                (sampler, "compute_rates", PARTS[6]),
            ):
                real = getattr(module, name)
                stack.enter_context(mock.patch.object(module, name, self._timed(part, real)))
            yield self
