"""`tuitune show` (the state and one interval of rates, printed) and the live screen
(`tuitune [IFACE]`, and `tuitune lab` on the lab's end): the two that watch a host; and
`tuitune replay`, the live screen on a recording (its file handling is cli/record.py's).

The only module that starts the TUI (import-linter's "app-on-top" contract)."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.cli import _common
from tuitune.cli._common import EXIT_USAGE, err, pick_interface

if TYPE_CHECKING:
    from tuitune.core.host.queuestats import QueueRates
    from tuitune.core.lab import Lab
    from tuitune.core.procs.discover import Reading
    from tuitune.core.procs.model import NicProcess
    from tuitune.core.record.player import RecordingReader
    from tuitune.core.values import Unavailable
    from tuitune.core.watch.hostreader import HostReader
    from tuitune.core.watch.rates import Rates
    from tuitune.core.watch.snapshot import Snapshot

NETNS_HELP = "read the interface inside network namespace NAME (see `ip netns list`)"


def register(subparsers: _common.Subparsers) -> None:
    show = _common.command(subparsers, "show", cmd_show)
    _common.report_args(show)
    show.add_argument(
        "--interval",
        type=_common.interval,
        default=1.0,
        metavar="SECONDS",
        help="seconds between the two samples the rates come from (default 1)",
    )
    _common.host_args(show, netns_help=NETNS_HELP)
    from tuitune.cli.record import recording_args

    recording_args(show, window=False)


def tui_args(parser: argparse.ArgumentParser) -> None:
    """The live screen's options (`tuitune [IFACE] [options]`)."""
    _common.iface_arg(parser, "interface to watch (default: pick from a list)")
    _common.screen_args(parser)
    _common.trial_arg(parser)
    _common.host_args(parser, netns_help=NETNS_HELP)
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="also record every sample to a new FILE (docs/recording.md)",
    )
    parser.set_defaults(func=cmd_tui)


def cmd_show(args: argparse.Namespace) -> int:
    """print the whole state and one second of rates"""
    from tuitune.core.watch.hostreader import UnknownInterface
    from tuitune.core.watch.rates import compute_rates

    if args.recording is not None:
        from tuitune.cli.record import show_recording

        return show_recording(args)
    reader = _common.open_reader(args.root, args.netns, args.interval)
    if reader is None:
        return EXIT_USAGE
    root = reader.root
    with reader:
        try:
            ifname = pick_interface(reader, args.iface)
        except UnknownInterface as exc:
            err(str(exc))
            return EXIT_USAGE
        first = reader.counters(ifname)
        # ethtool -S at both ends too: per-queue rates (core/host/queuestats.py).
        stats_then = reader.queue_stats(ifname) if root.live and ifname else None
        procs_then = nic_procs_reading(reader, ifname)
        if root.live:
            time.sleep(args.interval)
        try:
            snap = reader.snapshot(ifname)
            stats_now = reader.queue_stats(ifname) if stats_then is not None and ifname else None
            # A capture holds the qdiscs, the RSS state and the TCP connections too (read
            # when it was taken).
            held = ifname is not None and (root.live or reader.captured(ifname))
            rss = reader.rss(ifname) if held and ifname else None
            kept = reader.captured_queues(ifname) if held and ifname and not root.live else None
            qdiscs = reader.qdiscs(ifname) if held and ifname else None
            conns = reader.connections(ifname) if held and ifname else None
        except UnknownInterface as exc:  # deleted during the interval
            err(str(exc))
            return EXIT_USAGE
        procs = _nic_processes(reader, snap, procs_then)
        from tuitune.core.host.platform import read_platform
        from tuitune.core.session.kinds.table import PLATFORM_READS

        platform = read_platform(root, ifname, reader.call, PLATFORM_READS)
    # A file that could not be read is shown as missing numbers, and named here.
    for problem in snap.counters.problems:
        err(str(problem))
    # Per-CPU detail only for the interface's IRQs: that is all show prints.
    detail = {q.irq for q in snap.nic.irqs} if snap.nic is not None else None
    rates = compute_rates(first, snap.counters, detail) if root.live else None
    if rates is None and args.root is not None:
        from tuitune.cli.record import capture_rates

        rates = capture_rates(args.root, detail)
    queues = _queue_rates(stats_then, stats_now, snap, rates)
    if queues is None and kept is not None and snap.nic is not None and kept.seconds > 0:
        from tuitune.core.host.queuestats import queue_rates

        # A capture's: its counters at its recording's start and end.
        driver = snap.nic.driver_name
        queues = queue_rates(kept.before, kept.after, kept.seconds, driver, kept.source)
    if args.json:
        from tuitune.core.jsondoc import show_document

        doc = show_document(snap, rates, procs, platform, queues, rss, qdiscs, conns)
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        from tuitune.report.show import print_show

        seconds = args.interval if root.live else 0.0  # the processes' CPU window
        if rates is not None and not root.live:
            print(f"rates: over the capture's recording, {rates.interval:.1f} s")
        print_show(
            snap,
            rates,
            processes=procs,
            seconds=seconds,
            platform=platform,
            queues=queues,
            rss=rss,
            qdiscs=qdiscs,
            connections=conns,
            live=root.live,
        )
    return 0


def _queue_rates(
    then: tuple[tuple[tuple[str, int], ...], str] | Unavailable | None,
    now: tuple[tuple[tuple[str, int], ...], str] | Unavailable | None,
    snap: Snapshot,
    rates: Rates | None,
) -> QueueRates | None:
    """Per-queue rates between the two reads; None when either is missing."""
    from tuitune.core.host.queuestats import queue_rates
    from tuitune.core.values import Unavailable

    if rates is None or snap.nic is None or then is None or now is None:
        return None
    if isinstance(then, Unavailable) or isinstance(now, Unavailable):
        return None
    return queue_rates(then[0], now[0], rates.interval, snap.nic.driver_name, now[1])


def nic_procs_reading(reader: HostReader, ifname: str | None) -> Reading | None:
    """The NIC's processes now (on the reader's kernel thread: a namespace's sockets)."""
    from tuitune.core.procs.discover import read_nic_processes

    if ifname is None:
        return None
    got: Reading = reader.call(lambda: read_nic_processes(reader.root, ifname))
    return got


def _nic_processes(
    reader: HostReader, snap: Snapshot, then: Reading | None
) -> tuple[NicProcess, ...] | None:
    """Who uses the NIC over the show's interval (CPU per CPU from the two readings)."""
    from tuitune.core.procs.discover import FD_BUDGET, window

    if snap.nic is None or then is None:
        return None
    now = nic_procs_reading(reader, snap.nic.link.ifname)
    if now is None:
        return None
    skipped, fds = now.unsearched
    if skipped:  # the scan's bound (procs.sockets.FD_BUDGET): say who may be missing
        err(
            f"processes: {skipped} process(es) holding {fds} descriptors not searched for "
            "the NIC's sockets (a scan reads at most "
            f"{FD_BUDGET} descriptors, fewest-held first)"
        )
    topo, node = snap.host.topology, snap.nic.placement.numa_node
    local = topo.nodes.get(node) if node is not None else snap.nic.placement.local_cpus
    return window(then if reader.root.live else None, now, local_cpus=local)


def cmd_tui(args: argparse.Namespace) -> int:
    return run_tui(
        tree=args.root,
        netns=args.netns,
        iface=args.iface,
        interval=args.interval,
        theme=args.theme,
        record=args.record,
        trial_seconds=args.trial_seconds,
    )


def register_replay(subparsers: _common.Subparsers) -> None:
    from tuitune.cli import record

    p = _common.command(subparsers, "replay", cmd_replay)
    p.add_argument(
        "recording",
        type=Path,
        metavar="FILE",
        help="a recording (tuitune record), or a capture (tuitune capture) holding one",
    )
    p.add_argument(
        "--from", dest="start", type=record.SECONDS, default=0.0, metavar="T", help="start T s in"
    )
    p.add_argument(
        "--speed",
        type=_common.bounded_float(0.1, 100, "times"),
        default=1.0,
        metavar="X",
        help="play X times as fast as recorded (default 1)",
    )
    _common.screen_args(p)


def cmd_replay(args: argparse.Namespace) -> int:
    """the live screen driven by a recording, read-only

    The recorded samples tick through the same screen at the recorded pace (--speed X
    faster), from --from T seconds in; p pauses. Nothing is read from or written to this
    machine's interfaces; at the end the last sample stays on screen.
    """
    from tuitune.cli.record import open_recording_arg
    from tuitune.core.record.player import RecordingReader
    from tuitune.core.text import printable

    rec = open_recording_arg(args.recording)
    if rec is None:
        return EXIT_USAGE
    interval = max(0.1, rec.header.interval / args.speed)
    with RecordingReader(rec, start=args.start) as reader:
        code = run_replay(reader, rec.header.iface, interval, args.theme)
        if reader.error:
            err(reader.error)
        err(f"{printable(rec.name)}: replayed to {reader.at:.1f} s")
    return code


def run_replay(
    reader: RecordingReader, iface: str | None, interval: float, theme: str | None
) -> int:
    """The live screen on a recording (`tuitune replay`): read-only, paused at its end."""
    from tuitune.core.watch.cadence import Cadence
    from tuitune.tui.app import TuituneApp

    try:
        app = TuituneApp(
            reader,
            iface,
            interval=interval,
            theme=theme,
            editable=False,
            cadence=Cadence.in_time(interval),
        )
    except ValueError as exc:  # an unknown --theme: say which exist
        err(str(exc))
        return EXIT_USAGE
    reader.on_end = lambda: app.sampler.pause(True)
    app.run()
    return app.return_code or 0


def _say_settings_dir() -> None:
    """As root with a user's HOME or XDG_CONFIG_HOME (sudo -E): which settings directory is
    used, and that its themes are not loaded (they are style code the screen runs)."""
    from tuitune.core import paths, untrusted

    where = paths.config_dir()
    note = untrusted.owner_note(where)
    if note is not None:
        err(
            f"settings from {where} (read as untrusted: bounded, no links of others); its "
            f"themes are not loaded: {note}"
        )


def run_tui(
    *,
    tree: Path | None,
    netns: str | None,
    iface: str | None,
    interval: float,
    theme: str | None,
    lab: Lab | None = None,
    record: Path | None = None,
    trial_seconds: float = _common.TRIAL_DEFAULT,
) -> int:
    """The live screen on a host tree, a namespace or this machine; with `lab`, leaving it
    offers to remove the lab (`tuitune lab`); with `record`, every sample into that file."""
    from tuitune.core.watch.hostreader import UnknownInterface

    reader = _common.open_reader(tree, netns, interval)
    if reader is None:
        return EXIT_USAGE
    with reader:
        if iface:
            try:
                reader.check_interface(iface)
            except UnknownInterface as exc:
                err(str(exc))
                return EXIT_USAGE
        from tuitune.core.watch.cadence import Cadence
        from tuitune.tui.app import TuituneApp

        _say_settings_dir()
        recorder = None
        if record is not None:
            from tuitune.cli.record import live_recorder

            recorder = live_recorder(record, reader, iface, netns, interval)
            if recorder is None:
                return EXIT_USAGE
        try:
            app = TuituneApp(
                reader,
                iface,
                interval=interval,
                theme=theme,
                lab=lab,
                cadence=Cadence.in_time(interval),
                trial_seconds=trial_seconds,
            )
        except ValueError as exc:  # an unknown --theme: say which exist
            err(str(exc))
            if recorder is not None:
                recorder.close()
            return EXIT_USAGE
        app.settle_gc = True
        if recorder is not None:
            app.rec.adopt(recorder)  # each sample into the file, then drawn (w stops it)
            app.sampler.record_affinity = True  # every IRQ's affinity, when it changed
        try:
            app.run()
        finally:
            line = app.rec.stop()  # the one still running: --record's, or the w key's
            if line is not None:
                err(line)
    for line in app.farewell_lines:  # the screen is gone: the terminal keeps what was left
        print(line)
    return app.return_code or 0
