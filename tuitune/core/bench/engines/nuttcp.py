"""nuttcp as an engine, the tool ESnet measured 100G with (Debian 12: nuttcp 6.1.2).

Its `-fparse` output is key=value, one line per `-i 1` interval (the receiver's view) and one
summary, as recorded in tests/fixtures/engines (record.sh):

    megabytes=418.0625 real_sec=1.01 rate_Mbps=3486.7913 retrans=0
    megabytes=16.5361 real_sec=1.00 rate_Mbps=138.5707 drop=8301 pkt=25234 data_loss=32.89609
    megabytes=849.7500 real_seconds=2.02 rate_Mbps=3534.7730 tx_cpu=13 rx_cpu=12 retrans=0 ...
    connect failed: Connection refused

nuttcp 6 has no CPU affinity option (`-xc` came in 7.x): a pinned stream runs under
`taskset -c N`. It has no zero copy, no congestion control choice and no bidirectional test.
A server takes a control port and the client names the data port: stream i of a `--processes`
run uses control port PORT+2i and data port PORT+2i+1 (nuttcp's own 5000 and 5001 for one).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tuitune.core.bench.engines.base import Measure, Parser, pinned, pinned_hint
from tuitune.core.bench.limits import length_bytes, parse_window
from tuitune.core.bench.model import BenchResult, BenchSpec, Interval
from tuitune.core.text import printable

DEFAULT_PORT = 5000
PORT_STEP = 2  # a control port and a data port per server
_PAIR = re.compile(r"(\w+)=(-?\d+(?:\.\d+)?)")
_REFUSED = ("connection refused",)
_UNREACHABLE = ("no route to host", "network is unreachable", "timed out", "host is down")


def _window(text: str) -> str:
    """iperf3's "4M"/"512K"/"65536" as nuttcp's -w (KB by default, m for MB)."""
    norm = parse_window(text)
    if norm.endswith("M"):
        return f"{norm[:-1]}m"
    if norm.endswith("K"):
        return norm[:-1]
    return str(max(1, int(norm) // 1024))


def _rate(text: str) -> str:
    """iperf3's -b rate ("1G", "500M", "100K", bits) as nuttcp's -R (Kbps, or m/g)."""
    t = text.strip()
    unit = t[-1:].upper()
    if unit in ("G", "M"):
        return t[:-1] + unit.lower()
    if unit == "K":
        return t[:-1]
    return str(max(1, int(float(t)) // 1000))


@dataclass
class Nuttcp:
    name: str = "nuttcp"
    program: str = "nuttcp"
    package: str = "nuttcp"
    measure: Measure = "throughput"
    default_port: int = DEFAULT_PORT
    version_args: tuple[str, ...] = ("-V",)

    def unsupported(self, spec: BenchSpec) -> str | None:
        lacks = [
            what
            for what, asked in (
                ("zero copy (-Z)", spec.zerocopy),
                ("congestion control (-C)", spec.congestion),
                ("--bidir", spec.direction == "bidir"),
            )
            if asked
        ]
        return f"nuttcp 6 has no {', no '.join(lacks)}" if lacks else None

    def client_argv(self, spec: BenchSpec, exe: str) -> list[str]:
        argv = [exe, "-fparse", "-i1", f"-T{spec.duration}"]
        argv += [f"-P{spec.port}", f"-p{spec.port + 1}"]
        if spec.streams > 1:
            argv.append(f"-N{spec.streams}")
        if spec.direction == "reverse":
            argv.append("-r")
        if spec.length:
            argv.append(f"-l{length_bytes(spec.length)}")
        if spec.window:
            argv.append(f"-w{_window(spec.window)}")
        if spec.udp_rate:
            argv += ["-u", f"-R{_rate(spec.udp_rate)}"]
        if spec.mss is not None:
            argv.append(f"-M{spec.mss}")
        argv.append(spec.peer)
        return pinned(argv, spec.client_cpu)

    def server_argv(self, exe: str, bind: str, port: int) -> list[str]:
        # 6.1.2 cannot bind an address; the lab's peer namespace has only the one.
        return [exe, "-S", f"-P{port}", "--nofork"]

    def server_hint(self, spec: BenchSpec) -> str:
        return pinned_hint(f"nuttcp -S -P{spec.port}", spec.server_cpu)

    def parser(self, spec: BenchSpec, server_hint: str | None = None) -> Parser:
        return NuttcpParser(spec, server_hint or self.server_hint(spec))


class NuttcpParser:
    def __init__(self, spec: BenchSpec, server_hint: str) -> None:
        self.spec = spec
        self.server_hint = server_hint
        self.intervals: list[Interval] = []
        self.last_line = ""
        self.error: str | None = None
        self._summary: dict[str, float] | None = None
        self._at = 0.0

    def feed(self, line: str) -> list[Interval]:
        line = printable(line.strip())
        if not line:
            return []
        self.last_line = line
        pairs = {k: float(v) for k, v in _PAIR.findall(line)}
        if "rate_Mbps" not in pairs:
            if self.error is None and "=" not in line:
                self.error = line  # nuttcp's errors are plain sentences on their own line
            return []
        if "real_seconds" in pairs:
            self._summary = pairs
            return []
        span = pairs.get("real_sec", 1.0)
        sender = self.spec.direction != "reverse"
        retr = int(pairs["retrans"]) if sender and "retrans" in pairs else None
        iv = Interval(
            self._at,
            self._at + span,
            pairs["rate_Mbps"] * 1e6,
            retr,
            "sender" if sender else "receiver",
        )
        self._at += span
        self.intervals.append(iv)
        return [iv]

    def finish(
        self,
        returncode: int | None = 0,
        *,
        cancelled: bool = False,
        failure: str | None = None,
    ) -> BenchResult:
        s = self._summary if not (cancelled or failure) else None
        complete = s is not None
        error = None
        if cancelled:
            error = f"stopped by you after {self._at:.0f} s"
        elif failure is not None:
            error = failure
        elif not complete:
            error = self.explain(returncode)
        if s is None:
            mean = (
                sum((i.end - i.start) * i.bits_per_second for i in self.intervals) / self._at
                if self._at > 0
                else None
            )
            return BenchResult(mean, None, None, None, None, tuple(self.intervals), error, False)
        bps = s["rate_Mbps"] * 1e6
        sender = self.spec.direction != "reverse"
        local, remote = ("tx_cpu", "rx_cpu") if sender else ("rx_cpu", "tx_cpu")
        lost = int(s["drop"]) if "drop" in s else None
        total = int(s["pkt"]) if "pkt" in s else None
        return BenchResult(
            sent_bps=bps,
            received_bps=bps,  # nuttcp reports what the receiver got
            retransmits=int(s["retrans"]) if "retrans" in s else None,
            local_cpu=s.get(local),
            remote_cpu=s.get(remote),
            intervals=tuple(self.intervals),
            lost_packets=lost,
            total_packets=total,
        )

    def explain(self, returncode: int | None = None) -> str:
        spec, msg = self.spec, self.error or ""
        low = msg.lower()
        where = f"{spec.peer} control port {spec.port}"
        if any(s in low for s in _REFUSED):
            return f"{where} refused the connection: no nuttcp server listens there. " + (
                f"Start one on the peer: {self.server_hint}"
            )
        if any(s in low for s in _UNREACHABLE):
            return (
                f"{spec.peer} cannot be reached ({msg}): check the address and the route "
                f"(ip route get {spec.peer}); the peer must run: {self.server_hint}"
            )
        if msg:
            return f"nuttcp failed: {msg}"
        status = f" with status {returncode}" if returncode not in (None, 0) else ""
        return f"nuttcp ended{status} without a result"


NUTTCP = Nuttcp()
