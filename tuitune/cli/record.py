"""`tuitune record IFACE`: the sampler's ticks into a recording (docs/recording.md); and
`show --recording FILE --at T` / `advise --recording FILE [--from T --to T]` reading one back.

Exit status: 0 recorded (or read), 1 recording stopped (a full disk), 2 a usage error (an
unknown interface, a file that exists or is not a recording).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import queue
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_FAILED, EXIT_OK, EXIT_USAGE, err
from tuitune.core.text import printable

if TYPE_CHECKING:
    from tuitune.core.host.conns import Connection
    from tuitune.core.host.queuestats import QueueRates
    from tuitune.core.record.recorder import Recorder
    from tuitune.core.record.replay import Moment, Recording
    from tuitune.core.watch.hostreader import HostReader
    from tuitune.core.watch.rates import Rates

MAX_SECONDS = 7 * 24 * 3600
SECONDS = _common.bounded_float(0.0, 1e9, "seconds")


def register(subparsers: _common.Subparsers) -> None:
    p = _common.command(subparsers, "record", cmd_record)
    _common.iface_arg(p, "interface to record (default: the default route's)")
    p.add_argument("-o", "--output", type=Path, metavar="FILE", help="the new recording")
    _common.count_option(
        p, "--seconds", high=MAX_SECONDS, default=None, help="stop after this long (default: ^C)"
    )
    p.add_argument(
        "--interval",
        type=_common.interval,
        default=1.0,
        metavar="SECONDS",
        help="seconds between samples (default 1)",
    )
    _common.host_args(p)


def recording_args(p: argparse.ArgumentParser, *, window: bool) -> None:
    """show's --recording FILE --at T, advise's --recording FILE --from T --to T."""
    p.add_argument("--recording", type=Path, metavar="FILE", help="read a recording, not the host")
    if window:
        p.add_argument("--from", dest="start", type=SECONDS, metavar="T", help="seconds in")
        p.add_argument("--to", dest="end", type=SECONDS, metavar="T", help="seconds in")
    else:
        p.add_argument("--at", type=SECONDS, metavar="T", help="seconds into the recording")


def cmd_record(args: argparse.Namespace) -> int:
    """record the interface's samples to a file, to read back with show/advise --recording

    Takes the live screen's samples headless (per-CPU times, the NIC's IRQs, softirqs,
    softnet, link, per-queue and driver counters every tick, the whole interrupt table on a
    small host; NIC state, sysctls and IRQ affinities when they change) and writes them
    as they come to a new file, readable only by its owner (it holds process names). A
    recording cut by kill -9 or a full disk reads back to its last whole sample.
    """
    from tuitune.core.record.fileformat import RecordError
    from tuitune.core.record.recorder import Recorder
    from tuitune.core.watch.hostreader import UnknownInterface
    from tuitune.core.watch.sampler import Sample, Sampler

    reader = _common.open_reader(args.root, args.netns, args.interval)
    if reader is None:
        return EXIT_USAGE
    with reader:
        try:
            ifname = _common.pick_interface(reader, args.iface)
            if ifname is None:
                err("no interface named and no default route: name one")
                return EXIT_USAGE
            host = reader.host_state()
        except UnknownInterface as exc:
            err(str(exc))
            return EXIT_USAGE
        path = args.output or Path(f"tuitune-{ifname}-{time.strftime('%Y%m%d-%H%M%S')}.rec")
        # A file-size limit (ulimit -f) must stop the recording with a message, not kill it.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        try:
            recorder = Recorder(
                path,
                iface=ifname,
                netns=args.netns,
                interval=args.interval,
                host=host,
                started=time.time(),
            )
        except OSError as exc:
            err(printable(exc))
            return EXIT_USAGE
        got: queue.Queue[Sample] = queue.Queue()
        limit = None if args.seconds is None else max(1, round(args.seconds / args.interval)) + 1
        sampler = Sampler(reader, ifname, got.put, interval=args.interval, limit=limit)
        sampler.record_affinity = True  # every IRQ's affinity, kept when it changed
        status = EXIT_OK
        try:
            sampler.start()
            while limit is None or recorder.samples < limit:
                sample = got.get()
                recorder.sample(sample)
                sampler.ack()
        except RecordError as exc:
            err(str(exc))
            status = EXIT_FAILED
        except KeyboardInterrupt:
            pass
        finally:
            sampler.stop()
            recorder.close()
    print(f"{printable(path)}: {recorder.samples} samples, {recorder.writer.bytes} bytes")
    return status


def live_recorder(
    path: Path, reader: HostReader, iface: str | None, netns: str | None, interval: float
) -> Recorder | None:
    """The live screen's --record FILE: a new recording, or None after saying why not."""
    from tuitune.core.record.recorder import Recorder

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a size limit stops the recording only
    try:
        host = reader.host_state()
        return Recorder(
            path, iface=iface, netns=netns, interval=interval, host=host, started=time.time()
        )
    except OSError as exc:
        err(printable(exc))
        return None


def open_recording_arg(path: Path) -> Recording | None:
    from tuitune.core.docfile import DocumentError
    from tuitune.core.record.replay import open_recording

    if _is_capture(path):  # `tuitune capture`'s tar.gz: the recording it holds
        tree = _common.host_tree(path)
        if tree is None:
            return None
        if not (tree / "recording.rec").is_file():
            err(f"{printable(path)}: a capture without a recording (captured with --seconds 0)")
            return None
        path = tree / "recording.rec"
    try:
        rec = open_recording(path)
    except (OSError, DocumentError) as exc:
        err(printable(exc))
        return None
    if rec.reading.cut:
        err(f"{printable(rec.name)}: {rec.reading.cut}")
    return rec


def _captured_connections(path: Path, ifname: str) -> tuple[Connection, ...] | None:
    """The TCP connections the capture holding recording `path` took (None: a bare
    recording, or none captured): a recording holds no connections of its own."""
    from tuitune.core.capture.device import CapturedDevice, load_device
    from tuitune.core.record.replay import CAPTURED

    if _is_capture(path):
        tree = _common.host_tree(path)  # unpacked once per command (cached)
    else:
        tree = path.parent if path.name == CAPTURED else None
    if tree is None:
        return None
    dev = load_device(tree, ifname)  # bounded, typed, checked (core/capture/device.py)
    conns = dev.dev.connections if isinstance(dev, CapturedDevice) else None
    return conns if isinstance(conns, tuple) else None


def _is_capture(path: Path) -> bool:
    """A gzip file (a capture), not a recording: its first two bytes."""
    import os
    import stat

    try:  # a regular file only (a FIFO would block the open), two bytes: the bounded,
        if not stat.S_ISREG(os.stat(path).st_mode):  # link-safe read is unpack's
            return False
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            return os.read(fd, 2) == b"\x1f\x8b"
        finally:
            os.close(fd)
    except OSError:
        return False


def capture_rates(root: Path, detail: set[str] | None) -> Rates | None:
    """`show --root CAPTURE` (or the directory it unpacked to): the rates over its recording,
    or None for a plain tree or a capture without one. A recording that cannot be read is
    named in one line and leaves the rates out, as a tree has none."""
    from tuitune.core.docfile import DocumentError
    from tuitune.core.record.replay import captured_recording, window_rates

    tree = _common.host_tree(root)  # unpacked once per command: the same directory
    path = captured_recording(tree)
    rec = open_recording_arg(path) if path is not None else None
    if rec is None:
        return None
    try:
        return window_rates(rec, detail)
    except DocumentError as exc:
        err(printable(exc))
        return None


def show_recording(args: argparse.Namespace) -> int:
    """`show --recording FILE --at T`: the host as the recording held it then."""
    from tuitune.core.docfile import DocumentError
    from tuitune.core.watch.rates import compute_rates
    from tuitune.core.watch.snapshot import Snapshot

    rec = open_recording_arg(args.recording)
    if rec is None:
        return EXIT_USAGE
    try:
        at = args.at if args.at is not None else rec.span()[1]
        m = rec.moment(at)
    except DocumentError as exc:
        err(printable(exc))
        return EXIT_USAGE
    snap = Snapshot(m.host, m.nic, m.counters)
    detail = {q.irq for q in m.nic.irqs} if m.nic is not None else None
    rates = compute_rates(m.before, m.counters, detail) if m.before is not None else None
    queues = _recorded_queues(m, rates)
    if args.json:
        from tuitune.core.jsondoc import show_document

        json.dump(show_document(snap, rates, None, queues=queues), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tuitune.report.show import print_show

        seconds = rates.interval if rates is not None else 0.0
        print(f"{printable(rec.name)} at {m.at:.1f} s (asked {at:g} s)")
        print_show(snap, rates, processes=None, seconds=seconds, queues=queues)
    return EXIT_OK


def _recorded_queues(m: Moment, rates: Rates | None) -> QueueRates | None:
    """The per-queue rates between the sample shown and the one before it, from the driver
    counters the recording holds with each (None: not recorded, or no sample before)."""
    from tuitune.core.host.queuestats import queue_rates

    before, now = m.before, m.counters
    if rates is None or m.nic is None or before is None:
        return None
    if before.queue_stats is None or now.queue_stats is None:
        return None
    source = now.queue_source or "ethtool -S"
    return queue_rates(
        before.queue_stats, now.queue_stats, rates.interval, m.nic.driver_name, source
    )


def advise_recording(args: argparse.Namespace) -> int:
    """`advise --recording FILE [--from T --to T]`: the advisor judges the recorded window."""
    from tuitune.core.advise import Context, advise, infer_context
    from tuitune.core.advise.document import advise_document
    from tuitune.core.docfile import DocumentError
    from tuitune.core.record.judge import recorded_facts

    if args.apply or args.peer:
        err("--recording judges a recorded window: not with --apply or --peer")
        return EXIT_USAGE
    rec = open_recording_arg(args.recording)
    if rec is None:
        return EXIT_USAGE
    context = Context(infer_context(args.context or "any", args.rtt), args.rate, args.rtt)
    try:
        first, last, _n = rec.span()
        start = first if args.start is None else args.start
        end = last if args.end is None else args.end
        facts = recorded_facts(rec, start, end, context)
    except DocumentError as exc:
        err(printable(exc))
        return EXIT_USAGE
    window, nic = facts.window, facts.nic
    assert nic is not None  # recorded_facts refuses a window without one
    conns = _captured_connections(args.recording, nic.link.ifname)
    if conns is not None:  # a capture's: read once, when it was taken
        facts = dataclasses.replace(facts, connections=conns)
    advice = advise(facts)
    ifname = nic.link.ifname
    if args.json:
        doc = advise_document(advice, ifname, context, window.seconds, window.loaded)
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tuitune.report.advise import print_advice

        print(f"{printable(rec.name)}: the window from {start:g} s to {end:g} s")
        print_advice(advice, ifname, context.kind, window.seconds, window.loaded)
    return EXIT_FAILED if advice.bottlenecks else EXIT_OK
