"""Headless `tuitune bench`: an iperf3 run, printed as it goes, recorded in the notebook
(`tuitune runs`, in runs.py, shows it).

Exit status: 0 done, 1 a run failed (or was stopped), 2 a usage error (unknown interface or
run, no peer, a bad option).
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tuitune.cli import _common
from tuitune.cli._common import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_USAGE,
    err,
)
from tuitune.cli.bench_defaults import current_lab, lab_hint, open_notebook
from tuitune.cli.bench_live import LiveRun, delta_lines
from tuitune.core.bench.limits import MAX_DURATION, MAX_REPEATS, MAX_STREAMS
from tuitune.core.lab.state import LabError
from tuitune.core.text import printable

if TYPE_CHECKING:
    from tuitune.core.bench.model import BenchResult, BenchSpec, Run
    from tuitune.core.watch.hostreader import HostReader


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
    _engine_args(bench)
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


def _engine_args(bench: argparse.ArgumentParser) -> None:
    """The engine and the options of issue 35 (docs/bench.md)."""
    from tuitune.core.bench.engines import NAMES

    bench.add_argument(
        "--engine",
        choices=NAMES,
        default="iperf3",
        help="iperf3 (default), nuttcp, or sockperf (a latency run: ping-pong)",
    )
    bench.add_argument(
        "-w", dest="window", type=_checked("window"), metavar="SIZE", help="socket window (4M)"
    )
    bench.add_argument("-Z", dest="zerocopy", action="store_true", help="zero copy (sendfile)")
    bench.add_argument(
        "-u",
        "--udp",
        dest="udp_rate",
        type=_checked("rate"),
        metavar="RATE",
        help="UDP at this rate in bits/s (1G); loss and jitter are kept",
    )
    bench.add_argument("-M", dest="mss", type=_checked("mss"), metavar="MSS", help="TCP MSS")
    bench.add_argument(
        "-C",
        dest="congestion",
        type=_checked("congestion"),
        metavar="NAME",
        help="TCP congestion control for this run (bbr, cubic)",
    )
    how = bench.add_mutually_exclusive_group()
    how.add_argument(
        "--processes",
        action="store_true",
        default=None,
        help="-P N as N client processes on N ports, one stream each, pinned "
        "(the default where iperf3 is older than 3.16)",
    )
    how.add_argument(
        "--threads", dest="processes", action="store_false", help="-P N in one client process"
    )
    bench.add_argument(
        "--cpus",
        type=_checked("cpus"),
        metavar="LIST",
        help="each stream process's CPU (0-3); default: beside the NIC's queues",
    )
    bench.add_argument(
        "--server-cpus", type=_checked("cpus"), metavar="LIST", help="each stream's server CPU"
    )


def _checked(kind: str) -> Any:
    """An argparse type that says a bad value in one line."""
    from tuitune.core.bench import limits
    from tuitune.core.cpulist import CpuListError, parse_cpulist

    def parse(text: str) -> Any:
        try:
            if kind == "window":
                return limits.parse_window(text)
            if kind == "rate":
                return limits.parse_rate(text)
            if kind == "cpus":
                cpus = parse_cpulist(text)
                if not cpus or len(cpus) > MAX_STREAMS:
                    raise argparse.ArgumentTypeError(f"{text[:20]!r}: a CPU list like 0-3 or 0,2")
                return tuple(sorted(cpus))
            if kind == "mss":
                mss = _common.positive(text)
                problem = limits.mss_problem(mss)
                result: Any = mss
            else:
                result = text.strip()
                problem = limits.congestion_problem(result)
            if problem:
                raise argparse.ArgumentTypeError(problem)
            return result
        except (limits.BadLength, CpuListError) as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


# -- tuitune bench ---------------------------------------------------------------------------------
def _spec(args: argparse.Namespace, peer: str, port: int, netns: str | None) -> BenchSpec:
    from tuitune.core.bench.model import BenchSpec, Direction

    direction: Direction = "reverse" if args.reverse else "bidir" if args.bidir else "normal"
    client_cpu, server_cpu = args.pin if args.pin else (None, None)
    return BenchSpec(
        engine=args.engine,
        window=args.window,
        zerocopy=args.zerocopy,
        udp_rate=args.udp_rate,
        mss=args.mss,
        congestion=args.congestion,
        processes=bool(args.processes),
        stream_cpus=args.cpus or (),
        server_cpus=args.server_cpus or (),
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


def _resolve(args: argparse.Namespace) -> tuple[str | None, str | None, int, str | None, Any]:
    """(ifname, netns, port, peer, lab) from the options and the lab, if one is used."""
    from tuitune.core.bench.model import DEFAULT_PORT

    lab = None
    peer, netns, ifname = args.peer, args.netns, args.iface
    if peer is None:
        found = current_lab()
        if found is not None and netns in (None, found.netns):
            lab = found
            peer, netns, ifname = found.peer_addr, found.netns, ifname or found.ifname
    port = args.port or (getattr(lab, "port", DEFAULT_PORT) if lab else DEFAULT_PORT)
    if args.engine != "iperf3" and not args.port:  # the lab's port is its iperf3 daemon's
        from tuitune.core.bench.engines import get

        port = get(args.engine).default_port
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
        spec, problem = _complete_spec(reader, ifname, spec, args)
        if problem is not None:
            err(f"{problem}; nothing was run")
            return EXIT_USAGE
        problem = _pin_problem(reader, spec, lab is not None)
        if problem is not None:
            err(f"{problem}; nothing was run")
            return EXIT_USAGE
        try:  # a notebook that cannot take the run is said before it, not after
            open_notebook(args, ifname, netns).check(write=not args.no_record)
        except OSError as exc:
            err(f"notebook: {exc}")
            return EXIT_USAGE
        hint = lab_hint(lab) if lab is not None else None
        return _bench(args, reader, ifname, spec, hint, lab)


def _complete_spec(
    reader: HostReader, ifname: str, spec: BenchSpec, args: argparse.Namespace
) -> tuple[BenchSpec, str | None]:
    """What the engine cannot do (one line), and the choices left to tuitune: processes or
    threads for -P N (processes where iperf3 is older than 3.16: it runs every stream on one
    thread), and each stream process's CPU beside the NIC's queues unless --cpus names them."""
    from dataclasses import replace

    from tuitune.core import proc
    from tuitune.core.bench.engines import get
    from tuitune.core.bench.engines.base import version_of
    from tuitune.core.bench.engines.iperf3 import threaded
    from tuitune.core.bench.placement import online_cpus, pick_stream_cpus

    engine = get(spec.engine)
    if (why := engine.unsupported(spec)) is not None:
        return spec, why
    if (args.cpus or args.server_cpus) and args.processes is False:
        return spec, "--cpus and --server-cpus pin stream processes: not with --threads"
    processes = spec.processes
    if args.processes is None and spec.streams > 1:
        exe = proc.find(engine.program)
        old = engine.name == "iperf3" and not threaded(version_of(engine, exe) if exe else None)
        processes = old or bool(args.cpus)
    if spec.streams <= 1:
        processes = False
    spec = replace(spec, processes=processes)
    if processes and not spec.stream_cpus and spec.client_cpu is None:
        try:
            nic = reader.nic_state(ifname, with_stats=False)
        except Exception:  # the NIC's queues are a hint for the pick, not a requirement
            nic = None
        spec = replace(spec, stream_cpus=pick_stream_cpus(nic, online_cpus(), spec.streams))
    return spec, None


def _pin_problem(reader: HostReader, spec: BenchSpec, local_peer: bool) -> str | None:
    """-A checked against this host's online CPUs (the lab's server runs here too)."""
    from tuitune.core.bench.limits import pin_problem
    from tuitune.core.cpulist import CpuListError, parse_cpulist

    if spec.client_cpu is None and not spec.stream_cpus and not spec.server_cpus:
        return None
    try:
        online = parse_cpulist(reader.root.read_sys("devices/system/cpu/online"))
    except (OSError, CpuListError):
        return None  # unknown: iperf3 says it then
    far = online if local_peer else None
    for cpu in (*spec.stream_cpus, *spec.server_cpus):
        if (problem := pin_problem(cpu, None, online)) is not None:
            return problem.replace("-A: client", "--cpus:")
    return pin_problem(spec.client_cpu, spec.server_cpu, online, far)


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
    from tuitune.core.session import HostAccess
    from tuitune.core.watch.sampler import Sampler

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
    live = LiveRun(spec, lab, nic)
    rec = None if args.no_record else _recording(args, reader, ifname, spec.netns)

    def deliver(sample: Any) -> None:
        live.on_sample(sample)
        sampler.ack()

    def on_event(event: Any) -> None:
        live.on_event(event)
        if rec is not None:
            rec.event(event)

    sampler = Sampler(reader, ifname, rec.tee(deliver) if rec else deliver, interval=1.0)
    sampler.record_affinity = rec is not None  # every IRQ's affinity into the recording
    if rec is not None:  # the connections each tick, as the live screen reads them in a run
        sampler.want_connections("run", True)
    try:
        with _servers(lab, spec) as servers:
            runner = BenchRunner(spec, on_event, server_hint=hint, server_commands=servers)
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
                if rec is not None:
                    rec.close()
    except LabError as exc:
        err(f"{exc}; nothing was run")
        return EXIT_FAILED
    results = runner.wait()
    return _record(args, ifname, spec, settings, live, results, rec)


class _BenchRecording:
    """A headless run's recording beside its notebook (as the live screen's --record keeps
    one): the sampler's ticks, each repeat's start and end, and each repeat's window in it
    for the notebook entry's tags (`advise --recording FILE --from T1 --to T2` judges it)."""

    def __init__(self, recorder: Any, path: Path) -> None:
        self.recorder, self.path = recorder, path
        self.windows: dict[int, list[float]] = {}

    def tee(self, deliver: Callable[[Any], None]) -> Callable[[Any], None]:
        tee: Callable[[Any], None] = self.recorder.tee(deliver)
        return tee

    def event(self, event: Any) -> None:
        from tuitune.core.bench.runner import Finished, Started
        from tuitune.core.record.recorder import bench_event

        got = bench_event(event)
        if got is None:
            return
        self.recorder.safe_event("bench", got)
        if isinstance(event, Started | Finished):
            # Before the first sample (the run starts with the sampler): the recording's start.
            now = self.recorder.now()
            self.windows.setdefault(event.repeat, []).append(0.0 if now is None else now)

    def tags(self, repeat: int) -> dict[str, str]:
        window = self.windows.get(repeat, [])
        if len(window) < 2 or self.recorder.stopped is not None:
            return {}
        from tuitune.core.record.recorder import window_tags

        return window_tags(str(self.path), window[0], window[-1])

    def close(self) -> None:
        self.recorder.close()


def _recording(
    args: argparse.Namespace, reader: HostReader, ifname: str, netns: str | None
) -> _BenchRecording | None:
    """A new recording beside the notebook, or None after one line (the run goes on)."""
    import time

    from tuitune.cli.record import live_recorder

    notebook = open_notebook(args, ifname, netns).path
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = notebook.with_name(f"{notebook.stem}-{stamp}-{os.getpid()}.rec")
    recorder = live_recorder(path, reader, ifname, netns, 1.0)
    if recorder is None:
        err("the run goes on without a recording")
        return None
    return _BenchRecording(recorder, path)


@contextlib.contextmanager
def _servers(lab: Any, spec: BenchSpec) -> Iterator[tuple[str, ...]]:
    """In the lab, the servers this run needs beyond the lab's iperf3 daemon (one per stream
    process; nuttcp's, sockperf's), stopped when the run ends; their command lines."""
    from tuitune.core.bench.engines import get
    from tuitune.core.lab.servers import serve

    if lab is None:
        yield ()
        return
    with serve(lab, spec, get(spec.engine)) as servers:
        yield tuple(servers.commands)


def _record(
    args: argparse.Namespace,
    ifname: str,
    spec: BenchSpec,
    settings: dict[str, str],
    live: LiveRun,
    results: list[BenchResult],
    rec: _BenchRecording | None = None,
) -> int:
    from tuitune.core.bench.model import CpuLoad, Run
    from tuitune.core.bench.runtable import build_rows

    failed = not results or any(not r.complete for r in results)
    notebook = open_notebook(args, ifname, spec.netns)
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
        tags = rec.tags(i) if rec is not None else {}
        new.append(Run(rid, group, ifname, started, spec, result, load, settings | placed, tags))
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
        if new[0].tags.get("recording"):
            print(f"recording: {printable(new[0].tags['recording'])} (tags recording_from/_to)")
    base = notebook.baseline()  # None (an empty notebook): the first group, this one
    rows = build_rows([*existing, *new] if args.no_record else notebook.runs(), base)
    row = next(r for r in rows if r.group == new[0].group)
    for line in delta_lines(row, rows):
        print(printable(line, 1000))
    return EXIT_FAILED if failed else EXIT_OK
