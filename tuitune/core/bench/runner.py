"""Runs a benchmark engine's client (iperf3, nuttcp, sockperf) on its own thread and reports
each interval as it arrives.

`on_event` is called on the runner's thread, in order: Started, IntervalEvent..., Finished,
once per repeat. A UI must hop to its own thread from there. `command=` replaces the argv
(tests replay a recorded output with `cat FILE`: a real process, recorded text); `commands=`
does so for each process of a `--processes` run.

A `--processes` run (spec.processes, -P N) starts N clients at once, one stream each, on ports
PORT.. (one server each), each pinned to its CPU; their intervals are summed as each second
arrives from all of them, and the run keeps every stream's own numbers.
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from tuitune.core import proc as programs
from tuitune.core.bench.engines import get as get_engine
from tuitune.core.bench.engines.base import Engine, Parser, in_netns, joined, version_of
from tuitune.core.bench.iperf import CONNECT_TIMEOUT_MS
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval
from tuitune.core.bench.multi import StreamSum, combine, stream_specs

# An engine has no overall deadline of its own: a peer that stalls mid-test would hang the
# run. Past duration + connect timeout + this grace, the process is stopped.
GRACE_SECONDS = 20.0


@dataclass(frozen=True, slots=True)
class Started:
    spec: BenchSpec
    argv: tuple[str, ...]  # the first process's (every one's is in the result)
    repeat: int  # 0 for the first repeat


@dataclass(frozen=True, slots=True)
class IntervalEvent:
    interval: Interval
    repeat: int
    # Each stream's bits/s in this interval (a --processes run): the live strip's slowest.
    streams: tuple[float, ...] = ()


@dataclass(frozen=True, slots=True)
class Finished:
    result: BenchResult  # result.error is set when the repeat failed or was stopped
    repeat: int


BenchEvent = Started | IntervalEvent | Finished


def find_program(name: str) -> str | None:
    """The engine's executable in the trusted directories (tuitune.core.proc), or None."""
    return programs.find(name)


def missing_message(engine: Engine) -> str:
    return f"{engine.program} is not installed: install it with `apt install {engine.package}`"


class BenchRunner:
    """`spec.repeats` runs one after the other; a failed repeat ends the series (a peer that
    refused once will refuse again)."""

    def __init__(
        self,
        spec: BenchSpec,
        on_event: Callable[[BenchEvent], None],
        *,
        command: Sequence[str] | None = None,
        commands: Sequence[Sequence[str]] | None = None,
        server_hint: str | None = None,
        iperf3: str | None = None,
        server_commands: Sequence[str] = (),
    ) -> None:
        self.spec = spec
        self.engine = get_engine(spec.engine)
        self._on_event = on_event
        self._commands = [list(c) for c in commands] if commands is not None else None
        if command is not None:
            self._commands = [list(command)]
        self._server_hint = server_hint  # the exact server command to suggest (a lab's own)
        self._exe_override = iperf3 if self.engine.name == "iperf3" else None
        # The far end's command lines, as started (the lab) or as they must be (a peer).
        self._server_commands = tuple(server_commands)
        self._lock = threading.Lock()
        self._procs: list[subprocess.Popen[str]] = []
        self._cancelled = False
        self._thread: threading.Thread | None = None
        self.results: list[BenchResult] = []

    # -- control (any thread) --------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tuitune-bench", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        """Stop the run under way (the clients get SIGTERM) and any repeats still to come."""
        with self._lock:
            self._cancelled = True
            procs = list(self._procs)
        for p in procs:
            if p.poll() is None:
                p.terminate()

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def wait(self, timeout: float | None = None) -> list[BenchResult]:
        """The results so far, one per repeat run (all of them once the runner is done)."""
        if self._thread is not None:
            self._thread.join(timeout)
        return list(self.results)

    def set_server_commands(self, commands: Sequence[str]) -> None:
        """The far end's command lines, once the lab has started its servers (before start)."""
        self._server_commands = tuple(commands)

    def fail(self, why: str) -> None:
        """A run that could not start (its servers did not): one failed result, as events."""
        parser = self.engine.parser(self.spec, self._server_hint)
        self._on_event(Started(self.spec, (), 0))
        result = parser.finish(failure=why)
        self.results.append(result)
        self._on_event(Finished(result, 0))

    # -- the runner thread -----------------------------------------------------------------
    def _exe(self) -> str | None:
        return self._exe_override or find_program(self.engine.program)

    def argvs(self) -> list[list[str]] | None:
        """One argv per client process; None when the engine is not installed."""
        specs = stream_specs(self.spec, self.engine)
        if self._commands is not None:
            return [self._commands[i % len(self._commands)] for i in range(len(specs))]
        exe = self._exe()
        if exe is None:
            return None
        return [in_netns(self.engine.client_argv(s, exe), s.netns) for s in specs]

    def argv(self) -> list[str] | None:
        argvs = self.argvs()
        return argvs[0] if argvs else None

    def _run(self) -> None:
        for repeat in range(max(1, self.spec.repeats)):
            if self._cancelled:
                return
            result = self._one(repeat)
            self.results.append(result)
            self._on_event(Finished(result, repeat))
            if result.error is not None:
                return

    def _one(self, repeat: int) -> BenchResult:
        specs = stream_specs(self.spec, self.engine)
        parsers = [self.engine.parser(s, self._server_hint) for s in specs]
        argvs = self.argvs()
        self._on_event(Started(self.spec, tuple(argvs[0] if argvs else ()), repeat))
        if argvs is None:
            return parsers[0].finish(failure=missing_message(self.engine))
        exe = self._exe()
        version = version_of(self.engine, exe) if exe and self._commands is None else None
        hints = self._server_commands or tuple(self.engine.server_hint(s) for s in specs)
        what = {
            "engine_version": version,
            "client_commands": tuple(joined(a) for a in argvs),
            "server_commands": hints,
        }
        summed = StreamSum(len(specs))

        def emit(index: int, interval: Interval) -> None:
            if len(specs) == 1:
                self._on_event(IntervalEvent(interval, repeat))
                return
            done = summed.add(index, interval)
            if done is not None:
                total, each = done
                self._on_event(IntervalEvent(total, repeat, each))

        results: list[BenchResult | None] = [None] * len(specs)
        workers = []
        for i, (argv, parser) in enumerate(zip(argvs, parsers, strict=True)):
            t = threading.Thread(
                target=self._process,
                args=(i, argv, parser, emit, results),
                name=f"tuitune-bench-{i}",
                daemon=True,
            )
            workers.append(t)
            t.start()
        for t in workers:
            t.join()
        done = [r if r is not None else parsers[0].finish(failure="no result") for r in results]
        if len(specs) == 1:
            return replace(done[0], **what)  # type: ignore[arg-type]
        return replace(combine(specs, done, summed.intervals()), **what)  # type: ignore[arg-type]

    def _process(
        self,
        index: int,
        argv: list[str],
        parser: Parser,
        emit: Callable[[int, Interval], None],
        results: list[BenchResult | None],
    ) -> None:
        results[index] = self._client(index, argv, parser, emit)

    def _client(
        self,
        index: int,
        argv: list[str],
        parser: Parser,
        emit: Callable[[int, Interval], None],
    ) -> BenchResult:
        program = self.engine.program
        try:
            # The engines write their errors to stderr: one stream, in order.
            p = programs.popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except (FileNotFoundError, programs.ProgramMissing):
            return parser.finish(failure=_not_found(argv[0], self.engine))
        except programs.ProgramRefused as exc:
            return parser.finish(failure=f"not run: {exc}")
        except OSError as exc:
            return parser.finish(failure=f"could not start {argv[0]}: {exc.strerror or exc}")
        with self._lock:
            self._procs.append(p)
            if self._cancelled:
                p.terminate()
        limit = self.spec.duration + CONNECT_TIMEOUT_MS / 1000 + GRACE_SECONDS
        timed_out = threading.Event()

        def overdue() -> None:
            if p.poll() is None:
                timed_out.set()
                p.terminate()

        timer = threading.Timer(limit, overdue)
        timer.daemon = True
        timer.start()
        try:
            assert p.stdout is not None
            for line in p.stdout:
                for interval in parser.feed(line):
                    emit(index, interval)
            code = p.wait()
        finally:
            timer.cancel()
            if p.poll() is None:
                p.kill()
                p.wait()
            with self._lock:
                self._procs.remove(p)
        if timed_out.is_set():
            return parser.finish(code, failure=f"{program} did not finish within {limit:.0f} s")
        return parser.finish(code, cancelled=self._cancelled)


def _not_found(program: str, engine: Engine) -> str:
    if program.endswith(engine.program):
        return missing_message(engine)
    return f"{program} not found"
