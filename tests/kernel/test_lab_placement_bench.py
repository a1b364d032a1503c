"""The lab benchmark of issue 21: the lab's iperf3 server pinned away from, then beside, the
CPU that receives the lab's packets (NET_RX), both runs in the notebook, and the runs table
naming where the server sat ("iperf3 server on cpu 0 with its NET_RX").

A veth has no IRQ: its packets are received in the NET_RX softirq of the CPU that sent them.
The client is pinned to cpu 0 (-A 0), so NET_RX lands there; the server goes to cpu 1 (away),
then cpu 0 (beside, NASA Table 4's "application on the IRQ's CPU"). The numbers are printed,
not judged: on this 2-CPU machine the difference is whatever it is.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tuitune.core import lab as labmod
from tuitune.core.bench.load import LoadTracker
from tuitune.core.bench.model import BenchResult, BenchSpec, CpuLoad, Run
from tuitune.core.bench.notebook import Notebook
from tuitune.core.bench.placement import lab_placement
from tuitune.core.bench.runformat import table_cells, to_text
from tuitune.core.bench.runner import BenchEvent, BenchRunner, Finished, Started
from tuitune.core.host.root import HostRoot
from tuitune.core.lab import Lab
from tuitune.core.procs.discover import read_ident
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sample, Sampler

pytestmark = pytest.mark.kernel


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[Lab]:
    if os.geteuid() != 0:
        pytest.skip("the lab needs root")
    if shutil.which("iperf3") is None:
        pytest.skip("iperf3 missing (apt install iperf3)")
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("away from and beside NET_RX needs two CPUs")
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    built = labmod.build(state)
    try:
        yield built
    finally:
        labmod.down(built, state)


def measure(
    lab: Lab, reader: HostReader, spec: BenchSpec
) -> tuple[BenchResult, CpuLoad, dict[str, str]]:
    """One run as `tuitune bench` makes it in the lab: the load sampled while it goes and the
    server's placement read as it ends."""
    tracker: list[LoadTracker] = []
    got: list[tuple[CpuLoad, dict[str, str]]] = []

    def on_event(event: BenchEvent) -> None:
        if isinstance(event, Started):
            tracker[:] = [LoadTracker()]
        elif isinstance(event, Finished):
            load = tracker[0].result()
            tracker.clear()
            got.append((load, lab_placement(lab, None, spec)))

    def deliver(sample: Sample) -> None:
        for t in list(tracker):
            t.add(sample)
        sampler.ack()

    sampler = Sampler(reader, lab.ifname, deliver, interval=0.5)
    sampler.start()
    runner = BenchRunner(spec, on_event)
    try:
        runner.start()
        (result,) = runner.wait(spec.duration + 60)
    finally:
        runner.cancel()
        sampler.stop()
    assert result.complete, result.error
    ((load, placed),) = got
    return result, load, placed


def test_server_away_from_then_beside_net_rx_named_in_the_notebook(
    lab: Lab, tmp_path: Path
) -> None:
    assert lab.server_pid is not None
    before = os.sched_getaffinity(lab.server_pid)
    ident = read_ident(HostRoot(), lab.server_pid)
    assert ident is not None
    key = Key.proc_affinity(ident.pid, ident.start_ticks, comm=ident.comm)
    spec = BenchSpec(lab.peer_addr, port=lab.port, duration=4, client_cpu=0, netns=lab.netns)
    nb = Notebook(tmp_path / "runs.jsonl")
    root = HostRoot(netns=lab.netns)
    with HostReader(root) as reader, Journal.open(HostAccess(root), tmp_path / "j") as journal:
        # Moved as the processes view moves it: one journaled step each, then reverted.
        for n, cpu in enumerate((1, 0), start=1):
            assert journal.apply(key, str(cpu)).status == "changed"
            assert os.sched_getaffinity(lab.server_pid) == {cpu}
            result, load, placed = measure(lab, reader, spec)
            when = "2026-01-01T00:00:00+00:00"
            nb.add(Run(f"r{n}", f"r{n}", lab.ifname, when, spec, result, load, placed))
        assert all(o.ok for o in journal.revert_all())
    assert os.sched_getaffinity(lab.server_pid) == before

    away, beside = nb.table()
    print("\n" + to_text([away, beside]))
    assert away.baseline and away.complete == 1 and beside.complete == 1
    runs = nb.runs()
    assert runs[0].settings == {"iperf3 server": "on cpu 1, away from its NET_RX (cpu 0)"}
    assert beside.changes == "iperf3 server on cpu 0 with its NET_RX"
    # The table's setting and value columns, as `tuitune runs` and the runs screen show them.
    assert table_cells(beside)[1:3] == ["iperf3 server", "on cpu 0 with its NET_RX"]
    assert away.throughput.median and beside.throughput.median
