"""The slow reads keep their cadence in seconds at a short interval (issue 18, goal 4): at
--interval 0.25 the counters come four times a second, the NIC state still every 5 s, the host
state every 30 s, the whole /proc/interrupts every 10 s, the advisor's count every 3 s."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixture_hosts import host_32cpu
from tuitune.core.watch.cadence import Cadence, ticks_for
from tuitune.core.watch.sampler import Sample, Sampler


@pytest.mark.parametrize(
    ("interval", "want"),
    [
        (1.0, Cadence(5, 30, 10, 3)),
        (2.0, Cadence(5, 30, 10, 3)),  # slower ticks: never fewer reads per tick than at 1 s
        (60.0, Cadence(5, 30, 10, 3)),
        (0.5, Cadence(10, 60, 20, 6)),
        (0.25, Cadence(20, 120, 40, 12)),
        (0.1, Cadence(50, 300, 100, 30)),
        (0.3, Cadence(17, 100, 33, 10)),
    ],
)
def test_the_live_cadence_in_seconds(interval: float, want: Cadence) -> None:
    assert Cadence.in_time(interval) == want


def test_the_defaults_are_the_sampler_defaults() -> None:
    assert Cadence() == Cadence.in_time(1.0)
    assert ticks_for(5, 0.0) == 5  # an interval of 0 (tests, benchmarks): tick counts


def test_a_sampler_at_a_quarter_second_reads_the_slow_state_by_time(tmp_path: Path) -> None:
    reader, ifname = host_32cpu(tmp_path, samples=5)
    cadence = Cadence.in_time(0.25)
    got: queue.Queue[Sample] = queue.Queue()
    sampler = Sampler(reader, ifname, got.put, interval=0.0, cadence=cadence)
    nic_at: list[int] = []
    full_at: list[int] = []
    nic_state, counters = reader.nic_state, reader.counters

    def counting_nic(*args: Any, **kwargs: Any) -> Any:
        nic_at.append(sampler.seq)
        return nic_state(*args, **kwargs)

    def counting_counters(ifname: str | None, irqs: Any = None, **kw: Any) -> Any:
        if irqs is None:
            full_at.append(sampler.seq)
        return counters(ifname, irqs, **kw)

    reader.nic_state = counting_nic  # type: ignore[method-assign]
    reader.counters = counting_counters  # type: ignore[method-assign]
    sampler.start()
    try:
        for k in range(1, 45):
            assert got.get(timeout=30).seq == k
            sampler.ack()
    finally:
        sampler.stop()
        reader.close()
    # 44 ticks of 0.25 s: 11 seconds. The NIC state at ticks 1, 21 and 41 (every 5 s); the
    # whole interrupt table on the first three and then every 10 s (tick 41).
    assert nic_at == [1, 21, 41]
    assert full_at == [1, 2, 3, 41]
