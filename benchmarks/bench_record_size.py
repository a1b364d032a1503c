"""The size of a recording per hour at 1 Hz (docs/recording.md), printed, not asserted.

    python -m benchmarks.bench_record_size FILE.rec   a real recording (tuitune record ...):
        its bytes, samples and chunks, and the hour extrapolated from its own rate
    python -m benchmarks.bench_record_size --big N [--full] [--rows R]    the recorded 1152-CPU host
        (tests/support/fixture_big.py, with its per-IRQ files): N synthetic ticks through the
        real Sampler (its cadence: a whole /proc/interrupts every 10th tick, the NIC's IRQs
        in between, every IRQ's affinity at those whole reads) into a recording, timed; the
        hour extrapolated from the chunks written. The tree holds no `ethtool -S` of its igb:
        each tick's per-queue and driver counters are made (`moving_stats`: a real igb
        paste's NIC-wide names and igb's per-queue names for its 8 queues, moving as a busy
        igb's would), so that they cost what they would on a real host. `--full`: the whole
        table and every IRQ's affinity at every tick (a recording's cadence since issue 34's
        last step); `--rows R`: the table widened to R rows (a real host of that size has
        about 1000 IRQs).

An hour is extrapolated: a chunk (60 s) stands alone, so an hour is 60 chunks like these.
"""

from __future__ import annotations

import queue
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from tuitune.core.record import fileformat
from tuitune.core.record.replay import open_recording


def describe(path: Path) -> tuple[int, int, float]:
    rec = open_recording(path)
    first, last, n = rec.span()
    size = path.stat().st_size
    return size, n, last - first


def hour(size: int, n: int) -> float:
    """MB an hour at 1 Hz, from `size` bytes for `n` samples."""
    return size / max(1, n) * 3600 / 1e6


# A real igb's `ethtool -S` (NIC-wide counters; SOURCES in that directory).
IGB_S = (
    Path(__file__).resolve().parent.parent
    / "tests/fixtures/captures/ethtool_S/igb_eth0_-S_PARTIAL_netdata988.txt"
)


def moving_stats(
    stats: tuple[tuple[str, int], ...], tick: int, queues: int = 8
) -> tuple[tuple[str, int], ...]:
    """The igb capture's NIC-wide counters and igb's per-queue ones for `queues` queues
    (igb_ethtool.c's names), every one that counts traffic rising by a different,
    irregular amount each tick (a seeded generator: the same figures at every run)."""
    import random

    per_queue = [
        f"{d}_queue_{q}_{what}"
        for q in range(queues)
        for d, names in (
            ("rx", ("packets", "bytes", "drops", "csum_err", "alloc_failed")),
            ("tx", ("packets", "bytes", "restart")),
        )
        for what in names
    ]
    out = []
    for i, (name, value) in enumerate((*stats, *((n, 0) for n in per_queue))):
        rng = random.Random(i * 7919 + tick)
        moves = name.endswith(("packets", "bytes")) or "missed" in name or "drops" in name
        step = rng.randrange(1, 1_500_000 if "bytes" in name else 1_000) if moves else 0
        out.append((name, value + step * tick))
    return tuple(out)


def big(ticks: int, full: bool = False, rows: int | None = None) -> None:
    """`full`: the whole /proc/interrupts and every IRQ's affinity at every tick (what a
    recording takes while the all-IRQs view is open); `rows`: the table widened to that many
    rows (a real 1152-CPU host has about 1000 IRQs; the capture's 180 otherwise)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.support.fixture_big import host_1152cpu
    from tuitune.core.host.queuestats import parse_ethtool_s
    from tuitune.core.record.recorder import Recorder
    from tuitune.core.watch.sampler import Sample, Sampler

    with tempfile.TemporaryDirectory(dir="/root") as tmp:
        t = time.perf_counter()
        reader, ifname = host_1152cpu(Path(tmp), samples=ticks, irq_files=True, rows=rows)
        print(f"built {ticks} samples of the 1152-CPU tree in {time.perf_counter() - t:.0f} s")
        path = Path(tmp) / "big.rec"
        base = parse_ethtool_s(IGB_S.read_text())
        with reader:
            host = reader.host_state()
            rec = Recorder(path, iface=ifname, netns=None, interval=1.0, host=host, started=0)
            got: queue.Queue[Sample] = queue.Queue()
            sampler = Sampler(
                reader, ifname, got.put, interval=0.01, limit=ticks, full_every=1 if full else 10
            )
            sampler.record_affinity = True  # as every recording's sampler does
            sampler.start()
            spent = cost = 0.0
            rows_seen = 0
            try:
                for _ in range(ticks):
                    s = got.get(timeout=600)
                    cost += s.cost
                    if s.counters is not None:
                        rows_seen = max(rows_seen, len(s.counters.interrupts.rows))
                    if s.counters is not None:
                        made = moving_stats(base, s.seq)
                        s = replace(s, driver_stats=made, stats_source="ethtool -S")
                    t = time.perf_counter()
                    rec.sample(s)
                    spent += time.perf_counter() - t
                    sampler.ack()
            finally:
                sampler.stop()
                rec.close()
        size, n, span = describe(path)
        kinds = [r.kind for r in open_recording(path).reading.records()]
        print(f"records: {', '.join(f'{k} {kinds.count(k)}' for k in sorted(set(kinds)))}")
        t = time.perf_counter()
        m = open_recording(path).moment(span)
        back = time.perf_counter() - t
        stats = m.counters.queue_stats
        print(f"per-queue and driver counters a sample: {len(stats) if stats else 'none'}")
        print(
            f"1152-CPU host, {rows_seen} IRQ rows, {'whole table' if full else 'cadence'}: "
            f"{size} bytes for {n} samples over {span:.0f} s "
            f"(chunks of {fileformat.CHUNK_SECONDS:.0f} s); {hour(size, n):.1f} MB an hour at "
            f"1 Hz; reading {cost / n * 1000:.0f} ms a sample (the sampler's), encoding and "
            f"writing {spent / n * 1000:.0f} ms; show --at its end {back:.1f} s"
        )


def main(argv: list[str]) -> int:
    import argparse

    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_record_size")
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--big", type=int, metavar="N", help="N ticks of the 1152-CPU host")
    ap.add_argument("--full", action="store_true", help="the whole table at every tick")
    ap.add_argument("--rows", type=int, help="the big host's table widened to ROWS rows")
    args = ap.parse_args(argv)
    if args.big is not None:
        big(args.big, args.full, args.rows)
    for name in args.files:
        size, n, span = describe(name)
        print(f"{name}: {size} bytes, {n} samples over {span:.0f} s: {hour(size, n):.2f} MB/h")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
