"""Headless `tuitune bench`: an iperf3 run, printed as it goes, recorded in the notebook
(`tuitune runs`, in runs.py, shows it).

Exit status: 0 done, 1 a run failed (or was stopped), 2 a usage error (unknown interface or
run, no peer, a bad option).
"""

from __future__ import annotations

import argparse
import threading
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuitune.cli import _common
from tuitune.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    err,
)
from tuitune.core.bench.limits import MAX_DURATION, MAX_REPEATS, MAX_STREAMS
from tuitune.core.text import printable, printable_lines

if TYPE_CHECKING:
    from tuitune.core.bench.load import LoadTracker
    from tuitune.core.bench.model import BenchResult, BenchSpec, Interval, Run
    from tuitune.core.bench.notebook import Notebook
    from tuitune.core.bench.runner import BenchEvent
    from tuitune.core.bench.runtable import RunRow
    from tuitune.core.hostreader import HostReader


def register(subparsers: _common.Subparsers) -> None:
    bench = _common.command(subparsers, "bench", cmd_bench)
    _common.iface_arg(bench, "the interface the run goes through")
    bench.add_argument("--peer", metavar="ADDR", help="a host where `iperf3 -s` runs")
    bench.add_argument(
        "--port", "-p", type=_common.port, metavar="N", help="the server's port (default 5201)"
    )
    count = _common.count_option
    count(
        bench,
        "-t",
        dest="duration",
        high=MAX_DURATION,
        default=10,
        metavar="SEC",
        help="seconds (10)",
    )
    count(bench, "-P", dest="streams", high=MAX_STREAMS, default=1, help="parallel streams")
    way = bench.add_mutually_exclusive_group()
    way.add_argument("--reverse", "-R", action="store_true", help="the peer sends")
    way.add_argument("--bidir", action="store_true", help="both send at once")
    bench.add_argument(
        "-l", dest="length", type=_common.length, metavar="LEN", help="buffer length (128K, 1M)"
    )
    bench.add_argument(
        "-A",
        dest="pin",
        type=_common.pinning,
        metavar="N[,M]",
        help="pin the client (and server) CPU",
    )
    count(bench, "--repeats", high=MAX_REPEATS, default=1, help="runs; the table shows the median")
    bench.add_argument(
        "--netns", type=_common.netns, metavar="NS", help="run inside network namespace NS"
    )
    _common.peer_end_args(
        bench,
        "the far end is namespace NS on this machine: record its settings with the run "
        "(with --peer-iface; the lab's peer by default)",
    )
    bench.add_argument("--notebook", type=Path, metavar="FILE", help="the notebook file")
    bench.add_argument("--no-record", action="store_true", help="do not record the run")
    from tuitune.cli import runs

    runs.register(subparsers)


# -- where: interface, namespace, peer ------------------------------------------------------------
def _lab() -> Any | None:
    """The lab of `tuitune lab`, if there is one (and the lab module exists)."""
    try:
        from tuitune.core import lab
    except ImportError:
        return None
    try:
        return lab.current_lab()
    except Exception:  # an unreadable state file: as if there were no lab
        return None


def _lab_hint(lab: Any) -> str:
    return (
        f"`tuitune lab` (it restarts the lab's server), or: ip netns exec {lab.peer_netns} "
        f"iperf3 -s -B {lab.peer_addr} -D"
    )


def _notebook(args: argparse.Namespace, ifname: str | None, netns: str | None) -> Notebook:
    from tuitune.core.bench.notebook import Notebook

    if args.notebook is not None:
        return Notebook(args.notebook)
    assert ifname is not None
    return Notebook(Notebook.default_path(ifname, netns=netns))


# -- tuitune bench ---------------------------------------------------------------------------------
def _spec(args: argparse.Namespace, peer: str, port: int, netns: str | None) -> BenchSpec:
    from tuitune.core.bench.model import BenchSpec, Direction

    direction: Direction = "reverse" if args.reverse else "bidir" if args.bidir else "normal"
    client_cpu, server_cpu = args.pin if args.pin else (None, None)
    return BenchSpec(
        peer=peer,
        port=port,
        duration=args.duration,
        streams=args.streams,
        direction=direction,
        length=args.length,
        client_cpu=client_cpu,
        server_cpu=server_cpu,
        repeats=args.repeats,
        netns=netns,
    )


def _mb(bps: float | None) -> str:
    return "-" if bps is None else f"{bps / 1e6:.0f} Mb/s"


def _interval_line(iv: Interval, bidir: bool) -> str:
    retr = f"  {iv.retransmits} retr" if iv.retransmits is not None else ""
    who = f"{'send' if iv.role == 'sender' else 'recv'} " if bidir else ""
    return f"  {iv.start:5.1f}-{iv.end:<5.1f} s  {who}{iv.bits_per_second / 1e6:8.0f} Mb/s{retr}"


def _result_lines(result: BenchResult, load: Any, bidir: bool) -> list[str]:
    from tuitune.core.bench.runformat import mbps

    lines = []
    if result.sent_bps is not None or result.received_bps is not None:
        what = "this side -> peer" if bidir else "sent/received"
        retr = "-" if result.retransmits is None else str(result.retransmits)
        lines.append(
            f"  {what}: {mbps(result.sent_bps)} / {mbps(result.received_bps)} Mb/s, "
            f"{retr} retransmits"
        )
    if bidir and (result.return_sent_bps is not None or result.return_received_bps is not None):
        retr = "-" if result.return_retransmits is None else str(result.return_retransmits)
        lines.append(
            f"  peer -> this side: {mbps(result.return_sent_bps)} / "
            f"{mbps(result.return_received_bps)} Mb/s, {retr} retransmits"
        )
    if result.local_cpu is not None:
        lines.append(
            f"  iperf3 CPU: local {result.local_cpu:.1f}%, remote {result.remote_cpu or 0:.1f}%"
        )
    if load is not None and load.samples:
        sys_cpu = max(load.peak_sys.items(), key=lambda kv: kv[1], default=None)
        soft_cpu = max(load.peak_soft.items(), key=lambda kv: kv[1], default=None)
        parts = []
        if sys_cpu is not None:
            parts.append(f"peak sys cpu{sys_cpu[0]} {sys_cpu[1]:.0f}%")
        if soft_cpu is not None:
            parts.append(f"peak soft cpu{soft_cpu[0]} {soft_cpu[1]:.0f}%")
        parts.append(f"{sum(load.drops.values())} softnet drops")
        lines.append("  tuitune: " + ", ".join(parts))
    return lines


class _Live:
    """The run as it goes: prints each event, and keeps one LoadTracker per repeat."""

    def __init__(self, spec: BenchSpec, lab: Any = None, nic: Any = None) -> None:
        self.spec = spec
        self.lab = lab  # its server's placement is read as each repeat ends
        self.nic = nic  # NicState before the run: where its IRQs deliver (None: unknown)
        self.tracker: LoadTracker | None = None
        self.loads: list[Any] = []
        self.placements: list[dict[str, str]] = []
        self.started: list[str] = []
        self.lock = threading.Lock()

    def on_event(self, event: BenchEvent) -> None:  # runner thread
        from tuitune.core.bench.load import LoadTracker
        from tuitune.core.bench.placement import placement_line
        from tuitune.core.bench.runner import Finished, IntervalEvent, Started

        bidir = self.spec.direction == "bidir"
        if isinstance(event, Started):
            self.started.append(datetime.now().astimezone().isoformat(timespec="seconds"))
            self.tracker = LoadTracker()
            n = self.spec.repeats
            label = f"repeat {event.repeat + 1}/{n}: " if n > 1 else ""
            print(printable(f"{label}{' '.join(event.argv)}", 1000), flush=True)
        elif isinstance(event, IntervalEvent):
            print(_interval_line(event.interval, bidir), flush=True)
        elif isinstance(event, Finished):
            tracker, self.tracker = self.tracker, None
            load = tracker.result() if tracker is not None else None
            self.loads.append(load)
            placed = self._placement()
            self.placements.append(placed)
            for line in _result_lines(event.result, load, bidir):
                print(line, flush=True)
            print(f"  placement: {placement_line(placed)}", flush=True)
            if event.result.error:  # iperf3's words (and the peer's): escaped
                print(printable_lines(f"  {event.result.error}"), flush=True)

    def _placement(self) -> dict[str, str]:
        from tuitune.core.bench.placement import run_placement

        return run_placement(self.lab, self.nic, self.spec)

    def on_sample(self, sample: Any) -> None:  # sampler thread
        tracker = self.tracker
        if tracker is not None:
            tracker.add(sample)


def _resolve(args: argparse.Namespace) -> tuple[str | None, str | None, int, str | None, Any]:
    """(ifname, netns, port, peer, lab) from the options and the lab, if one is used."""
    from tuitune.core.bench.model import DEFAULT_PORT

    lab = None
    peer, netns, ifname = args.peer, args.netns, args.iface
    if peer is None:
        found = _lab()
        if found is not None and netns in (None, found.netns):
            lab = found
            peer, netns, ifname = found.peer_addr, found.netns, ifname or found.ifname
    port = args.port or (getattr(lab, "port", DEFAULT_PORT) if lab else DEFAULT_PORT)
    return ifname, netns, port, peer, lab


def cmd_bench(args: argparse.Namespace) -> int:
    """run iperf3 against a peer, show it live, record it in the notebook

    Run iperf3 (the client) against PEER, print throughput and retransmits each second, then
    the result beside the baseline run, with the settings that differ. Without --peer, the lab
    built by `tuitune lab` is used. Each run is recorded with every setting it ran with (see
    `tuitune runs`).
    """

    ifname, netns, port, peer, lab = _resolve(args)
    if peer is None:
        err(
            "no peer: give --peer ADDR (a host running `iperf3 -s`), or build the lab first "
            "with `tuitune lab`"
        )
        return EXIT_USAGE
    if (problem := _common.peer_end_problem(args)) is not None:
        err(problem)
        return EXIT_USAGE
    if args.peer_netns is None and lab is not None:
        args.peer_netns, args.peer_iface = lab.peer_netns, lab.peer_ifname
    opened = _common.reader_on(netns, ifname, "the run goes through (tuitune bench IFACE)")
    if opened is None:
        return EXIT_USAGE
    reader, ifname = opened
    with reader:
        spec = _spec(args, peer, port, netns)
        problem = _pin_problem(reader, spec, lab is not None)
        if problem is not None:
            err(f"{problem}; nothing was run")
            return EXIT_USAGE
        try:  # a notebook that cannot take the run is said before it, not after
            _notebook(args, ifname, netns).check(write=not args.no_record)
        except OSError as exc:
            err(f"notebook: {exc}")
            return EXIT_USAGE
        hint = _lab_hint(lab) if lab is not None else None
        return _bench(args, reader, ifname, spec, hint, lab)


def _pin_problem(reader: HostReader, spec: BenchSpec, local_peer: bool) -> str | None:
    """-A checked against this host's online CPUs (the lab's server runs here too)."""
    from tuitune.core.bench.limits import pin_problem
    from tuitune.core.cpulist import CpuListError, parse_cpulist

    if spec.client_cpu is None:
        return None
    try:
        online = parse_cpulist(reader.root.read_sys("devices/system/cpu/online"))
    except (OSError, CpuListError):
        return None  # unknown: iperf3 says it then
    return pin_problem(spec.client_cpu, spec.server_cpu, online, online if local_peer else None)


def _bench(
    args: argparse.Namespace,
    reader: HostReader,
    ifname: str,
    spec: BenchSpec,
    hint: str | None,
    lab: Any = None,
) -> int:
    from tuitune.core.bench.runner import BenchRunner
    from tuitune.core.bench.settings import capture, capture_peer
    from tuitune.core.sampler import Sampler
    from tuitune.core.session import HostAccess

    access = HostAccess(reader.root, call=reader.call, handles=reader.handles)
    try:
        settings = capture(access, ifname)
    except Exception as exc:  # a settings read must not stop the measurement
        err(f"settings not read ({exc}); the run is recorded without them")
        settings = {}
    finally:
        access.close()
    if args.peer_netns is not None:
        try:
            settings.update(capture_peer(args.peer_netns, args.peer_iface))
        except Exception as exc:  # the far end's settings are context, not the measurement
            err(f"the peer's settings not read ({exc}); the run is recorded without them")
    try:  # where the NIC's IRQs deliver, for the placement: context, not the measurement
        nic = reader.nic_state(ifname, with_stats=False)
    except Exception:
        nic = None
    live = _Live(spec, lab, nic)

    def deliver(sample: Any) -> None:
        live.on_sample(sample)
        sampler.ack()

    sampler = Sampler(reader, ifname, deliver, interval=1.0)
    runner = BenchRunner(spec, live.on_event, server_hint=hint)
    sampler.start()
    runner.start()
    try:
        while runner.running:
            runner.wait(0.5)
    except KeyboardInterrupt:
        runner.cancel()
        runner.wait()
    finally:
        sampler.stop()
    results = runner.wait()
    return _record(args, ifname, spec, settings, live, results)


def _record(
    args: argparse.Namespace,
    ifname: str,
    spec: BenchSpec,
    settings: dict[str, str],
    live: _Live,
    results: list[BenchResult],
) -> int:
    from tuitune.core.bench.model import CpuLoad, Run
    from tuitune.core.bench.runtable import build_rows

    failed = not results or any(not r.complete for r in results)
    notebook = _notebook(args, ifname, spec.netns)
    try:
        existing = notebook.runs()
    except OSError as exc:
        err(f"not recorded: {exc}")
        return EXIT_FAILED
    numbers = [int(r.id[1:]) for r in existing if r.id[1:].isdigit()]
    next_number = max(numbers, default=0) + 1
    new: list[Run] = []
    for i, result in enumerate(results):
        if not result.complete:
            continue  # a half run would skew the medians: shown above, not recorded
        rid = f"r{next_number + len(new)}"
        group = new[0].id if new else rid
        load = live.loads[i] if i < len(live.loads) and live.loads[i] else CpuLoad()
        started = live.started[i] if i < len(live.started) else ""
        placed = live.placements[i] if i < len(live.placements) else {}
        new.append(Run(rid, group, ifname, started, spec, result, load, settings | placed))
    if not new:
        print("not recorded: no repeat finished")
        return EXIT_FAILED
    if not args.no_record:
        try:
            for run in new:
                notebook.add(run)
        except (OSError, ValueError) as exc:
            err(f"not recorded: {exc}")
            return EXIT_FAILED
        ids = new[0].id + (f"..{new[-1].id}" if len(new) > 1 else "")
        print(f"recorded as {ids} in {notebook.path}")
    base = notebook.baseline()  # None (an empty notebook): the first group, this one
    rows = build_rows([*existing, *new] if args.no_record else notebook.runs(), base)
    row = next(r for r in rows if r.group == new[0].group)
    for line in _delta_lines(row, rows):
        print(printable(line, 1000))
    return EXIT_FAILED if failed else EXIT_OK


def _delta_lines(row: RunRow, rows: list[RunRow]) -> list[str]:
    from tuitune.core.bench.runformat import mbps

    tp = row.throughput
    spread = f" ({mbps(tp.low)}..{mbps(tp.high)})" if tp.low != tp.high else ""
    head = f"{row.group}: {mbps(tp.median)} Mb/s{spread}"
    if row.repeats > 1:
        head += f", median of {row.complete}"
    if row.baseline:
        return [head + ": this is the baseline (tuitune runs --baseline ID picks another)"]
    base = next(r for r in rows if r.baseline)
    if row.test_differs:  # another test: its numbers say nothing about the settings
        return [
            head,
            f"not compared with baseline {base.group}: the test differs ({row.test_differs})",
        ]

    def signed(value: float | None, suffix: str = "", digits: int = 1) -> str:
        return "-" if value is None else f"{value:+.{digits}f}{suffix}"

    lines = [
        head,
        f"against baseline {base.group} ({mbps(base.throughput.median)} Mb/s): throughput "
        f"{signed(row.d_throughput, '%')}, retransmits {signed(row.d_retransmits, digits=0)}, "
        f"CPU {signed(row.d_cpu, '%')}",
        f"changed: {row.changes or 'nothing (same settings)'}",
    ]
    return lines
