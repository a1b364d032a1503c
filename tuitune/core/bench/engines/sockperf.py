"""sockperf as the latency engine: a TCP ping-pong (request/response), Debian's `sockperf`.

Why sockperf: Debian packages it (netperf, whose TCP_RR Red Hat measured, is in non-free), it
reports the percentiles itself, and its server is one foreground process the lab can start and
stop. `--full-rtt` makes it report the round trip, as netperf's transactions are.

Its output at the end of a run (colour codes stripped), as recorded in tests/fixtures/engines:

    sockperf: [Valid Duration] RunTime=1.547 sec; SentMessages=10618; ReceivedMessages=10618
    sockperf: ---> percentile 99.900 = 17098.913
    sockperf: ---> percentile 50.000 =    8.345
    sockperf: ERROR: Can`t connect socket (errno=111 Connection refused)

It prints nothing while it runs: a latency run has no live intervals.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tuitune.core.bench.engines.base import Measure, Parser, pinned, pinned_hint
from tuitune.core.bench.limits import length_bytes
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval
from tuitune.core.text import printable

DEFAULT_PORT = 11111  # sockperf's own
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_VALID = re.compile(r"\[Valid Duration\] RunTime=([\d.]+) sec; .*ReceivedMessages=(\d+)")
_PCT = re.compile(r"---> percentile ([\d.]+) =\s*([\d.]+)")
_ERROR = re.compile(r"sockperf: ERROR: (.*)$")


@dataclass
class Sockperf:
    name: str = "sockperf"
    program: str = "sockperf"
    package: str = "sockperf"
    measure: Measure = "latency"
    default_port: int = DEFAULT_PORT
    version_args: tuple[str, ...] = ("--version",)

    def unsupported(self, spec: BenchSpec) -> str | None:
        lacks = [
            what
            for what, asked in (
                ("parallel streams", spec.streams > 1),
                ("--reverse or --bidir", spec.direction != "normal"),
                ("window", spec.window),
                ("zero copy", spec.zerocopy),
                ("UDP rate", spec.udp_rate),
                ("MSS", spec.mss is not None),
                ("congestion control", spec.congestion),
            )
            if asked
        ]
        return f"a latency run (sockperf) takes no {', no '.join(lacks)}" if lacks else None

    def client_argv(self, spec: BenchSpec, exe: str) -> list[str]:
        argv = [exe, "ping-pong", "--tcp", "--full-rtt", "-i", spec.peer, "-p", str(spec.port)]
        argv += ["-t", str(spec.duration)]
        if spec.length:
            argv += ["-m", str(length_bytes(spec.length))]
        return pinned(argv, spec.client_cpu)

    def server_argv(self, exe: str, bind: str, port: int) -> list[str]:
        return [exe, "server", "--tcp", "-i", bind, "-p", str(port)]

    def server_hint(self, spec: BenchSpec) -> str:
        return pinned_hint(f"sockperf server --tcp -p {spec.port}", spec.server_cpu)

    def parser(self, spec: BenchSpec, server_hint: str | None = None) -> Parser:
        return SockperfParser(spec, server_hint or self.server_hint(spec))


class SockperfParser:
    def __init__(self, spec: BenchSpec, server_hint: str) -> None:
        self.spec = spec
        self.server_hint = server_hint
        self.last_line = ""
        self.error: str | None = None
        self.percentiles: dict[float, float] = {}
        self.tps: float | None = None

    def feed(self, line: str) -> list[Interval]:
        line = printable(_ANSI.sub("", line).strip())
        if not line:
            return []
        self.last_line = line
        if (m := _PCT.search(line)) is not None:
            self.percentiles[float(m.group(1))] = float(m.group(2))
        elif (v := _VALID.search(line)) is not None and float(v.group(1)) > 0:
            self.tps = int(v.group(2)) / float(v.group(1))
        elif (e := _ERROR.search(line)) is not None and self.error is None:
            self.error = e.group(1).strip()
        return []

    def finish(
        self,
        returncode: int | None = 0,
        *,
        cancelled: bool = False,
        failure: str | None = None,
    ) -> BenchResult:
        median = self.percentiles.get(50.0)
        complete = median is not None and not cancelled and failure is None
        error = None
        if cancelled:
            error = "stopped by you: sockperf reports only at the end, nothing was measured"
        elif failure is not None:
            error = failure
        elif not complete:
            error = self.explain(returncode)
        if not complete:
            return BenchResult(None, None, None, None, None, error=error, complete=False)
        return BenchResult(
            sent_bps=None,
            received_bps=None,
            retransmits=None,
            local_cpu=None,
            remote_cpu=None,
            latency_median_us=median,
            latency_p99_us=self.percentiles.get(99.0),
            latency_p999_us=self.percentiles.get(99.9),
            transactions_per_s=self.tps,
        )

    def explain(self, returncode: int | None = None) -> str:
        msg = self.error or ""
        if "refused" in msg.lower():
            return (
                f"{self.spec.peer} port {self.spec.port} refused the connection: no sockperf "
                f"server listens there. Start one on the peer: {self.server_hint}"
            )
        if msg:
            return f"sockperf failed: {msg}"
        status = f" with status {returncode}" if returncode not in (None, 0) else ""
        last = f": {self.last_line}" if self.last_line else ""
        return f"sockperf ended{status} without a result{last}"


SOCKPERF = Sockperf()
