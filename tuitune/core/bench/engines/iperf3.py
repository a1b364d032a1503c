"""iperf3 as an engine: the command line and parser of tuitune.core.bench.iperf."""

from __future__ import annotations

from dataclasses import dataclass, replace

from tuitune.core.bench import iperf
from tuitune.core.bench.engines.base import Measure, Parser
from tuitune.core.bench.model import DEFAULT_PORT, BenchSpec

# iperf3 runs all its streams on one thread before 3.16 (esnet/iperf #289, #1870); from 3.16
# each stream has its own thread, and `-P N` in one process can fill the link.
THREADED_FROM = (3, 16)


@dataclass
class Iperf3:
    name: str = "iperf3"
    program: str = "iperf3"
    package: str = "iperf3"
    measure: Measure = "throughput"
    default_port: int = DEFAULT_PORT
    version_args: tuple[str, ...] = ("--version",)

    def unsupported(self, spec: BenchSpec) -> str | None:
        if spec.udp_rate and (spec.zerocopy or spec.mss is not None or spec.congestion):
            return "iperf3: -Z, MSS and congestion control are TCP options, not for a UDP run"
        return None

    def client_argv(self, spec: BenchSpec, exe: str) -> list[str]:
        return iperf.command(replace(spec, netns=None), exe)

    def server_argv(self, exe: str, bind: str, port: int) -> list[str]:
        return [exe, "-s", "-B", bind, "-p", str(port)]

    def server_hint(self, spec: BenchSpec) -> str:
        return iperf.server_command(spec)

    def parser(self, spec: BenchSpec, server_hint: str | None = None) -> Parser:
        return iperf.IperfParser(spec, server_hint=server_hint)


def threaded(version: str | None) -> bool:
    """Whether this iperf3 runs each of -P N streams on its own thread (3.16 and later)."""
    if not version:
        return False
    parts = []
    for piece in version.split("-")[0].split(".")[:2]:
        if not piece.isdigit():
            return False
        parts.append(int(piece))
    return tuple(parts) >= THREADED_FROM


IPERF3 = Iperf3()
