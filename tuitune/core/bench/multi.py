"""A `--processes` run: N client processes of one stream each, summed. The sum of each second
is made once every stream has reported it; the result keeps each stream's own numbers (its
rate, retransmits and the CPU of both its ends)."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from tuitune.core.bench.engines.base import per_stream
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval, StreamResult

if TYPE_CHECKING:
    from tuitune.core.bench.engines.base import Engine


def stream_specs(spec: BenchSpec, engine: Engine) -> list[BenchSpec]:
    step = 2 if engine.name == "nuttcp" else 1  # nuttcp: a control and a data port each
    return per_stream(spec, step)


class StreamSum:
    """Each stream's k-th interval, summed when all N have it (any thread)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self._lock = threading.Lock()
        self._each: list[list[Interval]] = [[] for _ in range(n)]
        self._sums: list[Interval] = []

    def add(self, index: int, interval: Interval) -> tuple[Interval, tuple[float, ...]] | None:
        with self._lock:
            self._each[index].append(interval)
            k = len(self._sums)
            if any(len(e) <= k for e in self._each):
                return None
            row = [e[k] for e in self._each]
            known = [i.retransmits for i in row if i.retransmits is not None]
            total = Interval(
                min(i.start for i in row),
                max(i.end for i in row),
                sum(i.bits_per_second for i in row),
                sum(known) if known else None,
                row[0].role,
            )
            self._sums.append(total)
            return total, tuple(i.bits_per_second for i in row)

    def intervals(self) -> tuple[Interval, ...]:
        with self._lock:
            return tuple(self._sums)


def _total(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def combine(
    specs: Sequence[BenchSpec], results: Sequence[BenchResult], intervals: tuple[Interval, ...]
) -> BenchResult:
    """One result of N: the sums (CPU: the processes' % added, as of one CPU), every stream's
    own line, and the first failure, named by its port."""
    streams = tuple(
        StreamResult(
            port=s.port,
            client_cpu=s.client_cpu,
            server_cpu=s.server_cpu,
            sent_bps=r.sent_bps,
            received_bps=r.received_bps,
            retransmits=r.retransmits,
            local_cpu=r.local_cpu,
            remote_cpu=r.remote_cpu,
            complete=r.complete,
        )
        for s, r in zip(specs, results, strict=True)
    )
    failed = next(((s, r) for s, r in zip(specs, results, strict=True) if r.error), None)
    error = None if failed is None else f"stream on port {failed[0].port}: {failed[1].error}"
    if error is not None and any(not r.complete and r.intervals == () for r in results):
        low, high = specs[0].port, specs[-1].port
        error += (
            f" (one process per stream needs a server on each port {low}..{high} of the "
            "peer; --threads runs the streams in one process)"
        )
    retr = [r.retransmits for r in results]
    udp = [r for r in results if r.total_packets is not None]
    first = results[0]
    return replace(
        first,
        sent_bps=_total([r.sent_bps for r in results]),
        received_bps=_total([r.received_bps for r in results]),
        retransmits=int(t)
        if (t := _total([float(x) if x is not None else None for x in retr])) is not None
        else None,
        local_cpu=_total([r.local_cpu for r in results]),
        remote_cpu=_total([r.remote_cpu for r in results]),
        intervals=intervals,
        error=error,
        complete=all(r.complete for r in results),
        streams=streams,
        lost_packets=sum(r.lost_packets or 0 for r in udp) if udp else None,
        total_packets=sum(r.total_packets or 0 for r in udp) if udp else None,
        jitter_ms=max((r.jitter_ms for r in udp if r.jitter_ms is not None), default=None),
    )
