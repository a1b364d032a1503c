"""A run's load record holds what each queue carried during the run and the NIC-wide drop
counters' rises (issue 33): summed from the sampler's per-queue rates (ixgbe's
rx_queue_N_packets names, as in the vendored captures), kept through the notebook's JSON,
hostile records refused, older records read without them, and said in the load line."""

from __future__ import annotations

import json

import pytest

from tests.unit.core.bench.test_bench_load import cpu, sample
from tests.unit.core.bench.test_bench_notebook import BASE, result, run
from tuitune.core.bench.load import LoadTracker, load_text, merged_load
from tuitune.core.bench.model import CpuLoad
from tuitune.core.bench.notebook import from_json, to_json
from tuitune.core.host.queuestats import queue_rates
from tuitune.core.untrusted import Refused


def ixgbe(p0: int, p1: int, d1: int, missed: int) -> tuple[tuple[str, int], ...]:
    return (
        ("rx_queue_0_packets", p0), ("rx_queue_0_bytes", p0 * 1000),
        ("rx_queue_1_packets", p1), ("rx_queue_1_bytes", p1 * 1000),
        ("rx_queue_1_drops", d1), ("rx_missed_errors", missed),
    )  # fmt: skip


def with_queues(seq: int, before: tuple[tuple[str, int], ...], after: tuple[tuple[str, int], ...]):  # type: ignore[no-untyped-def]
    s = sample(seq, 0.5, cpu(0, 10.0, 20.0))
    from dataclasses import replace

    return replace(s, queues=queue_rates(before, after, 0.5, "ixgbe"))


def test_the_run_sums_each_queue_and_the_nic_drops() -> None:
    t = LoadTracker()
    a, b, c = ixgbe(0, 0, 0, 0), ixgbe(600, 200, 0, 0), ixgbe(1200, 400, 30, 7)
    t.add(with_queues(2, a, b))
    t.add(with_queues(3, b, c))
    got = t.result()
    assert got.queues["rx-0"]["packets"] == 1200 and got.queues["rx-1"]["packets"] == 400
    assert got.queues["rx-1"]["drops"] == 30
    assert got.nic_drops == {"rx_missed_errors": 7}
    text = load_text(got)
    assert "rx packets by queue: rx-0 75 %, rx-1 25 %" in text
    assert "ring drops: rx-1 30" in text and "NIC drops: rx_missed_errors 7" in text
    both = merged_load([got, got])
    assert both.queues["rx-0"]["packets"] == 2400 and both.nic_drops == {"rx_missed_errors": 14}


def test_the_notebook_keeps_them_and_reads_older_runs_without() -> None:
    load = CpuLoad(
        {0: 10.0}, {0: 20.0}, {}, 2, {"rx-0": {"packets": 5, "drops": 1}}, {"rx_missed_errors": 3}
    )
    r = run("r1", "r1", result(1000, 0, 1.0), BASE, load)
    assert from_json(to_json(r)) == r
    doc = json.loads(to_json(r))
    del doc["load"]["queues"], doc["load"]["nic_drops"]
    assert from_json(json.dumps(doc)).load.queues == {}


@pytest.mark.parametrize(
    "queues",
    [
        {"eth0": {"packets": 1}},  # not a queue name
        {"rx-0": {"packets": "many"}},
        {"rx-0": {"\x1b[2J": 1}},  # a name that is not a counter's
        {"rx-0": dict.fromkeys([f"m{i}" for i in range(20)], 1)},
        [1, 2],
    ],
)
def test_a_hostile_load_record_is_refused(queues: object) -> None:
    doc = json.loads(to_json(run("r1", "r1", result(1000, 0, 1.0), BASE)))
    doc["load"]["queues"] = queues
    with pytest.raises(Refused):
        from_json(json.dumps(doc))
