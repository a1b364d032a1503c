"""A recording keeps the whole interrupt table at every tick on a host whose table is small
(cadence.RECORD_FULL_CELLS), so replay's all-IRQs view has it at every sample, and every IRQ's
affinity when it changes (issue 34: every state read, when it changes): read whole at each
whole read of /proc/interrupts and, on a bigger host, a few a tick between them, so a change
moved between two whole reads is recorded at the tick it was read, not ten ticks later."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.fixture_big import write_irq_files
from tests.support.fixture_hosts import host_4cpu_series
from tests.support.recorded import sampled
from tuitune.core.record.recorder import Recorder
from tuitune.core.record.replay import open_recording
from tuitune.core.watch.sampler import Sample, Sampler

MOVED_AFTER = 4  # the 4th tick reads the NIC's IRQs only (whole reads: ticks 1-3, every 10th)


def _record(tmp_path: Path, path: Path) -> list[Sample]:
    """The 4-CPU host's 5 ticks recorded, IRQ 36 moved to CPU 0 after the 4th."""
    reader, ifname = host_4cpu_series(tmp_path, samples=5)
    for sample in reader.samples:  # per-IRQ counts: read as a live host is, NIC IRQs alone
        write_irq_files(sample.proc.parent, 4)

    def moved_after(s: Sample) -> None:
        rec.sample(s)
        if s.seq == MOVED_AFTER:  # someone (irqbalance) moves IRQ 36 to CPU 0
            irq = reader.root.proc_path("irq/36")
            for name in ("smp_affinity_list", "effective_affinity_list"):
                (irq / name).write_text("0\n")

    def as_recording(sampler: Sampler) -> None:
        sampler.record_affinity = True  # as every recording's sampler does

    with reader:
        host = reader.host_state()
        rec = Recorder(path, iface=ifname, netns=None, interval=1.0, host=host, started=0.0)
        try:
            taken = sampled(reader, ifname, 5, setup=as_recording, each=moved_after)
        finally:
            rec.close()
    return taken


def test_a_small_hosts_recording_holds_the_whole_table_at_every_tick(tmp_path: Path) -> None:
    path = tmp_path / "small.rec"
    taken = _record(tmp_path, path)
    assert [s.counters.irq_full for s in taken if s.counters] == [True] * 5
    samples, _host, _nic = open_recording(path).scan(0, 1e9)
    rows = {len(c.interrupts.rows) for _at, c in samples}
    assert rows == {len(taken[0].counters.interrupts.rows)} and rows != {5}  # not the NIC's 5
    # ... and so every IRQ's affinity at every tick: the move is recorded where it was made.
    irqs = [r.at for r in open_recording(path).reading.records() if r.kind == "irqs"]
    assert irqs == [0.0, float(MOVED_AFTER)]


def test_an_affinity_moved_between_whole_reads_is_recorded_at_its_tick(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big host's table (here: any) is read whole every 10th tick only; the affinities
    between come in rounds, a few IRQs a tick (all 5 of this host's at once)."""
    from tuitune.core.watch import sampler

    monkeypatch.setattr(sampler, "RECORD_FULL_CELLS", 0)
    path = tmp_path / "moved.rec"
    taken = _record(tmp_path, path)
    assert [s.counters.irq_full for s in taken if s.counters] == [True, True, True, False, False]
    moved_at = taken[MOVED_AFTER].counters
    first = taken[0].counters
    assert moved_at is not None and first is not None
    recording = open_recording(path)
    irqs = [r for r in recording.reading.records() if r.kind == "irqs"]
    # Once at the start, once where it moved: the same map read again is not recorded again.
    assert [r.at for r in irqs] == [0.0, moved_at.time - first.time]
    before, after = (recording._decode(r) for r in irqs)
    assert before["36"].effective == frozenset({1}) and after["36"].effective == frozenset({0})
    assert {k: v for k, v in after.items() if k != "36"} == {
        k: v for k, v in before.items() if k != "36"
    }
