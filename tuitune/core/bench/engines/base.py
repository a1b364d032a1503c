"""What a benchmark engine is to tuitune: a program it finds, the command lines it runs at both
ends, and a parser that turns its output into intervals and a result as the lines arrive. One
module per engine (iperf3.py, nuttcp.py, sockperf.py); a third one is one module more, named in
__init__.py's table."""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import replace
from typing import Literal, Protocol

from tuitune.core import proc
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval

Measure = Literal["throughput", "latency"]
VERSION_TIMEOUT = 5.0
# A version is digits and dots with a tag ("3.12", "6.1.2", "3.7-no.git"): nothing else of the
# program's output is kept, so no control character or long text reaches a screen or a file.
_VERSION = re.compile(r"(\d+(?:\.\d+)+(?:[-+~][0-9A-Za-z.]{1,20})?)")


class Parser(Protocol):
    """Fed the engine's output line by line; `finish` builds the result."""

    last_line: str

    def feed(self, line: str) -> list[Interval]: ...

    def finish(
        self,
        returncode: int | None = 0,
        *,
        cancelled: bool = False,
        failure: str | None = None,
    ) -> BenchResult: ...


class Engine(Protocol):
    name: str  # as --engine names it, and as the notebook records it
    program: str  # the executable, found in the trusted directories only
    package: str  # the Debian package that brings it
    measure: Measure
    default_port: int  # where its server listens unless told otherwise
    version_args: tuple[str, ...]

    def unsupported(self, spec: BenchSpec) -> str | None:
        """Why this engine cannot run `spec` (an option it lacks), in one line, or None."""

    def client_argv(self, spec: BenchSpec, exe: str) -> list[str]:
        """One client process for `spec` (already split per stream), without `ip netns exec`."""

    def server_argv(self, exe: str, bind: str, port: int) -> list[str]:
        """A server on `bind`:`port` that stays in the foreground (the lab starts and stops it)."""

    def server_hint(self, spec: BenchSpec) -> str:
        """What to run on a remote peer so that `spec` finds a server there."""

    def parser(self, spec: BenchSpec, server_hint: str | None = None) -> Parser: ...


def parse_version(text: str) -> str | None:
    m = _VERSION.search(text)
    return m.group(1) if m else None


_versions: dict[str, str | None] = {}


def version_of(engine: Engine, exe: str) -> str | None:
    """The installed version ("3.12"), asked once per program; None when it says none."""
    if exe in _versions:
        return _versions[exe]
    try:
        done = proc.run([exe, *engine.version_args], timeout=VERSION_TIMEOUT)
        found = parse_version((done.stdout or "") + (done.stderr or ""))
    except (OSError, proc.ProgramRefused, ValueError):
        found = None
    except Exception:  # a hung program (TimeoutExpired): the run does not need the version
        found = None
    _versions[exe] = found
    return found


def in_netns(argv: Sequence[str], netns: str | None) -> list[str]:
    return ["ip", "netns", "exec", netns, *argv] if netns else list(argv)


def pinned(argv: Sequence[str], cpu: int | None) -> list[str]:
    """`taskset -c CPU ARGV...` for an engine that cannot pin itself (nuttcp 6, sockperf's
    server); argv[0] must already be the checked absolute path, taskset does not look it up."""
    if cpu is None:
        return list(argv)
    taskset = proc.find("taskset") or "taskset"
    return [taskset, "-c", str(cpu), *argv]


def pinned_hint(command: str, cpu: int | None) -> str:
    """A server command for the user to run on the peer, under `taskset -c CPU` when pinned."""
    return f"taskset -c {cpu} {command}" if cpu is not None else command


def per_stream(spec: BenchSpec, port_step: int = 1) -> list[BenchSpec]:
    """A `--processes` run as one single-stream spec per process: ports port, port+step, ...;
    stream i pinned to stream_cpus[i] (cycled) and its server to server_cpus[i]."""
    if not spec.processes or spec.streams <= 1:
        return [spec]
    out = []
    for i in range(spec.streams):
        cpu = spec.stream_cpus[i % len(spec.stream_cpus)] if spec.stream_cpus else spec.client_cpu
        srv = spec.server_cpus[i % len(spec.server_cpus)] if spec.server_cpus else spec.server_cpu
        out.append(
            replace(
                spec,
                streams=1,
                port=spec.port + i * port_step,
                client_cpu=cpu,
                server_cpu=srv if cpu is not None else None,
                processes=False,
            )
        )
    return out


def joined(argv: Sequence[str]) -> str:
    return shlex.join(argv)
