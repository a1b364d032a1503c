"""The refresh loop: one sample at a time, waits for the screen, pauses, baselines, limits."""

from __future__ import annotations

import queue
import time
from pathlib import Path

from tests.support.fixture_hosts import host_4cpu_series
from tuitune.core.watch.sampler import Sample, Sampler


def _sampler(tmp_path: Path, **kw: object) -> tuple[Sampler, queue.Queue[Sample]]:
    reader, ifname = host_4cpu_series(tmp_path)
    got: queue.Queue[Sample] = queue.Queue()
    return Sampler(reader, ifname, got.put, interval=0.01, **kw), got  # type: ignore[arg-type]


def test_waits_for_ack_then_rates_follow(tmp_path: Path) -> None:
    s, got = _sampler(tmp_path, limit=3)
    s.start()
    try:
        first = got.get(timeout=10)
        assert first.seq == 1 and first.rates is None and first.nic is not None
        # Not acknowledged: no second sample, though 30 intervals pass.
        time.sleep(0.3)
        assert got.empty()
        s.ack()
        second = got.get(timeout=10)
        assert second.seq == 2 and second.rates is not None
        assert second.rates.interval == 1.0  # the replay's clock, not the wall clock
        assert second.nic is None  # NIC state is re-read every 5 ticks, not every tick
        s.ack()
        assert got.get(timeout=10).seq == 3
        s.ack()
        assert s._thread is not None
        s._thread.join(timeout=10)
        assert not s._thread.is_alive() and got.empty()  # stopped at the limit
    finally:
        s.stop()
        s.reader.close()


def test_pause_holds_and_baseline_deltas(tmp_path: Path) -> None:
    s, got = _sampler(tmp_path, limit=4)
    s.start()
    try:
        got.get(timeout=10)
        s.pause(True)
        s.ack()
        try:
            extra = got.get(timeout=0.3)
        except queue.Empty:
            extra = None
        assert extra is None  # paused: nothing new
        s.set_baseline(True)
        s.pause(False)
        base = got.get(timeout=10)
        assert base.baseline is not None and base.since_baseline is None
        s.ack()
        after = got.get(timeout=10)
        assert after.since_baseline is not None and after.since_baseline.interval == 1.0
        assert after.baseline is base.baseline
        s.set_baseline(False)
        s.ack()
        cleared = got.get(timeout=10)
        assert cleared.baseline is None and cleared.since_baseline is None
    finally:
        s.stop()
        s.reader.close()


def test_a_change_while_paused_re_reads_the_state_and_keeps_the_numbers(tmp_path: Path) -> None:
    s, got = _sampler(tmp_path, limit=10)
    s.start()
    try:
        got.get(timeout=10)
        s.ack()
        second = got.get(timeout=10)
        assert second.rates is not None
        s.pause(True)
        s.ack()
        s.refresh_state()  # what the editor asks for after a write
        fresh = got.get(timeout=10)
        # The settings are read again; the rates are the frozen ones, not a new tick's.
        assert fresh.nic is not None and fresh.host is not None
        assert fresh.seq == second.seq and fresh.rates is second.rates
        assert fresh.counters is second.counters
        s.ack()
        try:
            extra = got.get(timeout=0.3)
        except queue.Empty:
            extra = None
        assert extra is None  # still paused
    finally:
        s.stop()
        s.reader.close()


def test_a_vanished_interface_is_a_state_not_a_failed_tick(tmp_path: Path) -> None:
    s, got = _sampler(tmp_path, limit=2)
    s.ifname = "gone0"  # an interface that vanished
    s.start()
    try:
        bad = got.get(timeout=10)
        # The tick is not lost: the CPU numbers still come, and the sample says it is gone.
        assert bad.counters is not None and bad.gone and bad.error is None
    finally:
        s.stop()
        s.reader.close()


def test_the_second_sample_comes_after_the_first_gap_not_an_interval(tmp_path: Path) -> None:
    # Live numbers within a second of the start (issue 18, goal 2): with a 60 s interval, the
    # second sample can only come from the short first gap; the third waits its interval.
    reader, ifname = host_4cpu_series(tmp_path)
    got: queue.Queue[Sample] = queue.Queue()
    s = Sampler(reader, ifname, got.put, interval=60.0, first_gap=0.01)
    s.start()
    try:
        assert got.get(timeout=10).seq == 1
        s.ack()
        second = got.get(timeout=10)
        assert second.seq == 2 and second.rates is not None
        s.ack()
        assert got.empty()
    finally:
        s.stop()
        reader.close()


def test_since_boot_gives_numbers_first_then_the_state(tmp_path: Path) -> None:
    # Issue 18, goal 2: a first frame with numbers, as mpstat's averages since boot, before the
    # slow state read; the state follows in a second delivery of the same sample.
    s, got = _sampler(tmp_path, limit=2, since_boot=True)
    s.reader.start = 86400.0  # type: ignore[attr-defined]  # a day since boot (its clock)
    s.start()
    try:
        first = got.get(timeout=10)
        assert first.seq == 1 and first.rates is None and first.nic is None and first.host is None
        boot = first.boot_rates
        assert boot is not None and first.counters is not None
        assert boot.interval == first.counters.time  # the clock counts from boot
        t = first.counters.stat.cpus[0]
        total = t.user + t.nice + t.system + t.idle + t.iowait + t.irq + t.softirq + t.steal
        assert abs(boot.cpus[0].idle - 100.0 * t.idle / total) < 1e-9
        assert boot.link == {}  # the link's counters do not start at boot
        assert got.empty()  # the state waits for the screen
        s.ack()
        state = got.get(timeout=10)
        assert state.seq == 1 and state.nic is not None and state.host is not None
        assert state.counters is first.counters and state.boot_rates is not None
        nic_irqs = {q.irq for q in state.nic.irqs}
        # The NIC's IRQs now come with their per-CPU breakdown.
        assert any(state.boot_rates.irqs[i].per_cpu for i in nic_irqs)
        s.ack()
        second = got.get(timeout=10)
        assert second.seq == 2 and second.rates is not None and second.boot_rates is None
    finally:
        s.stop()
        s.reader.close()


def test_connections_are_read_only_while_wanted_and_while_paused_too(tmp_path: Path) -> None:
    """The connections (an inet_diag dump) ride on a tick only while someone wants them (the
    view, a run); wanting them takes a tick now, and while paused gives the last sample again
    with them, the numbers frozen."""
    from tuitune.core.host.conns import Connection

    s, got = _sampler(tmp_path, limit=20)
    conn = Connection("10.0.0.1", 1, "10.0.0.2", 2, None, None, None, None, None, None, None,
                      True, True, None)  # fmt: skip
    reads: list[str] = []

    def read(ifname: str) -> tuple[Connection, ...]:
        reads.append(ifname)
        return (conn,)

    s.reader.connections = read  # type: ignore[method-assign]
    s.start()
    try:
        assert got.get(timeout=10).connections is None and reads == []
        s.ack()
        second = got.get(timeout=10)
        assert second.connections is None and reads == []
        s.pause(True)
        s.want_connections("view", True)
        s.ack()
        paused = got.get(timeout=10)
        assert paused.connections == (conn,) and paused.counters is second.counters
        s.pause(False)
        s.ack()
        assert got.get(timeout=10).connections == (conn,)  # each tick while wanted
        s.want_connections("run", True)
        s.want_connections("view", False)
        s.ack()
        assert got.get(timeout=10).connections == (conn,)  # still wanted by the run
        s.want_connections("run", False)
        s.ack()
        n = len(reads)
        assert got.get(timeout=10).connections is None and len(reads) == n
    finally:
        s.stop()
        s.reader.close()
