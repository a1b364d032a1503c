"""Runs iperf3 (a client) on its own thread and reports each interval as it arrives.

`on_event` is called on the runner's thread, in order: Started, IntervalEvent..., Finished,
once per repeat. A UI must hop to its own thread from there. `command=` replaces the argv
(tests replay a recorded output with `cat FILE`: a real process, recorded text).
"""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tuitune.core import proc as programs
from tuitune.core.bench.iperf import (
    CONNECT_TIMEOUT_MS,
    IperfParser,
    command,
    find_iperf3,
    missing_message,
)
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval

# iperf3 has no overall deadline of its own: a peer that stalls mid-test would hang the run.
# Past duration + connect timeout + this grace, the process is stopped.
GRACE_SECONDS = 20.0


@dataclass(frozen=True, slots=True)
class Started:
    spec: BenchSpec
    argv: tuple[str, ...]
    repeat: int  # 0 for the first repeat


@dataclass(frozen=True, slots=True)
class IntervalEvent:
    interval: Interval
    repeat: int


@dataclass(frozen=True, slots=True)
class Finished:
    result: BenchResult  # result.error is set when the repeat failed or was stopped
    repeat: int


BenchEvent = Started | IntervalEvent | Finished


class BenchRunner:
    """`spec.repeats` iperf3 runs one after the other; a failed repeat ends the series (a peer
    that refused once will refuse again)."""

    def __init__(
        self,
        spec: BenchSpec,
        on_event: Callable[[BenchEvent], None],
        *,
        command: Sequence[str] | None = None,
        server_hint: str | None = None,
        iperf3: str | None = None,
    ) -> None:
        self.spec = spec
        self._on_event = on_event
        self._command = list(command) if command is not None else None
        self._server_hint = server_hint  # the exact `iperf3 -s` to suggest (a lab's own)
        self._iperf3 = iperf3
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None
        self._cancelled = False
        self._thread: threading.Thread | None = None
        self.results: list[BenchResult] = []

    # -- control (any thread) --------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tuitune-bench", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        """Stop the run under way (iperf3 gets SIGTERM) and any repeats still to come."""
        with self._lock:
            self._cancelled = True
            proc = self._proc
        if proc is not None and proc.poll() is None:
            proc.terminate()

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

    # -- the runner thread -----------------------------------------------------------------
    def argv(self) -> list[str] | None:
        if self._command is not None:
            return list(self._command)
        exe = self._iperf3 or find_iperf3()
        return None if exe is None else command(self.spec, exe)

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
        parser = IperfParser(self.spec, server_hint=self._server_hint)
        argv = self.argv()
        self._on_event(Started(self.spec, tuple(argv or ()), repeat))
        if argv is None:
            return parser.finish(failure=missing_message())
        try:
            # iperf3 writes its errors to stderr: one stream, in order.
            proc = programs.popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        except (FileNotFoundError, programs.ProgramMissing):
            return parser.finish(failure=_not_found(argv[0]))
        except programs.ProgramRefused as exc:
            return parser.finish(failure=f"not run: {exc}")
        except OSError as exc:
            return parser.finish(failure=f"could not start {argv[0]}: {exc.strerror or exc}")
        with self._lock:
            self._proc = proc
            if self._cancelled:
                proc.terminate()
        limit = self.spec.duration + CONNECT_TIMEOUT_MS / 1000 + GRACE_SECONDS
        timed_out = threading.Event()

        def overdue() -> None:
            if proc.poll() is None:
                timed_out.set()
                proc.terminate()

        timer = threading.Timer(limit, overdue)
        timer.daemon = True
        timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                for interval in parser.feed(line):
                    self._on_event(IntervalEvent(interval, repeat))
            code = proc.wait()
        finally:
            timer.cancel()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            with self._lock:
                self._proc = None
        if timed_out.is_set():
            return parser.finish(code, failure=f"iperf3 did not finish within {limit:.0f} s")
        return parser.finish(code, cancelled=self._cancelled)


def _not_found(program: str) -> str:
    if program.endswith("iperf3"):
        return missing_message()
    return f"{program} not found"
