"""iperf3 as a client: the command line, and its text output turned into numbers as it arrives.

iperf3 3.12 (Debian 12) has no JSON stream (`--json-stream` came in 3.17) and `-J` prints
everything at the end, so the live numbers come from the text output of
`-i 1 --forceflush -f m -V`, one line per interval. The formats below were checked against
real runs; the recordings are in tests/fixtures/iperf3 (record.sh makes them again):

    [  5]   0.00-1.00   sec  1.94 GBytes  16673 Mbits/sec  7561    498 KBytes    one stream
    [SUM]   0.00-1.00   sec  2.14 GBytes  18323 Mbits/sec  2069                 -P > 1
    [  5][TX-C]   0.00-1.00   sec  1.34 GBytes  11473 Mbits/sec  21315  382 KBytes  --bidir
    [  5]   0.00-3.00   sec  6.03 GBytes  17261 Mbits/sec  14895   sender      the summary
    CPU Utilization: local/sender 88.3% (0.3%u/88.0%s), remote/receiver 38.2% (1.9%u/36.4%s)
    iperf3: error - unable to connect to server: Connection refused

UDP runs (-u -b RATE) print the datagrams sent where TCP has Retr, and their summary lines add
the jitter and the lost/total datagrams (tests/fixtures/engines, recorded by its record.sh):

    [  5]   0.00-2.01   sec   123 MBytes   514 Mbits/sec  0.722 ms  55037/143969 (38%)  receiver

Reverse runs (-R) print no Retr column in the intervals (the peer sends) and, in 3.12, no
CPU Utilization line at all. A run that dies midway prints its last interval twice, then the
error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal

from tuitune.core import proc
from tuitune.core.bench.model import DEFAULT_PORT, BenchResult, BenchSpec, Interval

# A peer that does not answer at all would make connect() wait for the kernel's SYN retries
# (over two minutes here); iperf3 then says "Connection timed out" after this many ms.
CONNECT_TIMEOUT_MS = 5000
INSTALL_HINT = "apt install iperf3"

Role = Literal["sender", "receiver"]
_UNITS = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
# [  5] or [SUM], then [TX-C]/[RX-C] in bidir runs, then "a-b sec", the transfer, the rate,
# the retransmits when this side sends, and "sender"/"receiver" on summary lines.
_LINE = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\](?:\[(?P<tag>[TR]X-[CS])\])?\s+"
    r"(?P<start>\d+(?:\.\d+)?)-(?P<end>\d+(?:\.\d+)?)\s+sec\s+"
    r"\S+\s+\S*Bytes\s+"
    r"(?P<rate>\d+(?:\.\d+)?)\s+(?P<unit>[KMGT]?)bits/sec"
    r"(?P<rest>.*)$"
)
_RETR = re.compile(r"^\s+(\d+)(?:\s|$)")
_ROLE = re.compile(r"\s(sender|receiver)\s*$")
_CPU = re.compile(
    r"^CPU Utilization: local/(?:sender|receiver) (?P<local>[\d.]+)%.*?"
    r"remote/(?:sender|receiver) (?P<remote>[\d.]+)%"
)
_STREAMS = re.compile(r"^Starting Test: protocol: (\w+), (\d+) streams?,")
_UDP = re.compile(r"^\s+(?P<jitter>\d+(?:\.\d+)?) ms\s+(?P<lost>-?\d+)/(?P<total>\d+)\s")
_ERROR = re.compile(r"^iperf3: (?:error|interrupt) - (?P<msg>.*)$")


def find_iperf3() -> str | None:
    """The iperf3 executable in the trusted system directories (tuitune.core.proc), or None."""
    return proc.find("iperf3")


def command(spec: BenchSpec, iperf3: str = "iperf3") -> list[str]:
    """The client argv for one repeat of `spec`; inside spec.netns through `ip netns exec`."""
    argv = [iperf3, "-c", spec.peer, "-p", str(spec.port), "-t", str(spec.duration)]
    argv += ["-P", str(spec.streams), "-i", "1", "--forceflush", "-f", "m", "-V"]
    argv += ["--connect-timeout", str(CONNECT_TIMEOUT_MS)]
    if spec.direction == "reverse":
        argv.append("-R")
    elif spec.direction == "bidir":
        argv.append("--bidir")
    if spec.length:
        argv += ["-l", spec.length]
    if spec.client_cpu is not None:
        pin = str(spec.client_cpu)
        if spec.server_cpu is not None:
            pin += f",{spec.server_cpu}"
        argv += ["-A", pin]
    argv += options(spec)
    if spec.netns:
        argv = ["ip", "netns", "exec", spec.netns, *argv]
    return argv


def options(spec: BenchSpec) -> list[str]:
    """The options of issue 35 (window, zero copy, UDP rate, MSS, congestion control)."""
    out: list[str] = []
    if spec.window:
        out += ["-w", spec.window]
    if spec.zerocopy:
        out.append("-Z")
    if spec.udp_rate:
        out += ["-u", "-b", spec.udp_rate]
    if spec.mss is not None:
        out += ["-M", str(spec.mss)]
    if spec.congestion:
        out += ["-C", spec.congestion]
    return out


def server_command(spec: BenchSpec) -> str:
    """What to run on the peer so that `spec` finds a server there."""
    port = f" -p {spec.port}" if spec.port != DEFAULT_PORT else ""
    return f"iperf3 -s{port}"


@dataclass(frozen=True, slots=True)
class _Summary:
    bps: float
    retransmits: int | None
    udp: tuple[float, int, int] | None = None  # jitter ms, lost, total datagrams


def _bps(m: re.Match[str]) -> float:
    return float(m["rate"]) * _UNITS[m["unit"]]


class IperfParser:
    """Feed it iperf3's output line by line; `feed` returns the intervals each line completes
    (the [SUM] line when there are several streams, both directions in a bidir run), and
    `finish` builds the result from the summary, or from the intervals when there is none."""

    def __init__(self, spec: BenchSpec, *, server_hint: str | None = None) -> None:
        self.spec = spec
        self.server_hint = server_hint or server_command(spec)
        self.streams = spec.streams
        self.intervals: list[Interval] = []
        self.error: str | None = None  # iperf3's own words, from its error line
        self.last_line = ""
        self.last_error_line = ""  # "iperf3: error - ..." or "iperf3: interrupt - ..."
        self._in_summary = False
        self._summary: dict[tuple[str, str], _Summary] = {}  # (direction tag, role) -> numbers
        self._cpu: tuple[float, float] | None = None
        self.udp = spec.udp_rate is not None

    # -- lines ---------------------------------------------------------------------------------
    def feed(self, line: str) -> list[Interval]:
        line = line.rstrip()
        if not line:
            return []
        self.last_line = line
        m = _LINE.match(line)
        if m is not None:
            return self._report(m)
        if line.startswith("Test Complete") or line.startswith("iperf Done"):
            self._in_summary = True
        elif line.startswith("CPU Utilization") and self._cpu is None:
            c = _CPU.match(line)
            if c is not None:
                self._cpu = (float(c["local"]), float(c["remote"]))
        elif (s := _STREAMS.match(line)) is not None:
            self.udp = s.group(1) == "UDP"
            self.streams = int(s.group(2))
        elif (e := _ERROR.match(line)) is not None and self.error is None:
            self.error = e["msg"].strip()
            self.last_error_line = line
        return []

    def feed_all(self, lines: Iterable[str]) -> list[Interval]:
        out: list[Interval] = []
        for line in lines:
            out += self.feed(line)
        return out

    def _report(self, m: re.Match[str]) -> list[Interval]:
        tag = m["tag"] or ""
        rest = m["rest"]
        role_m = _ROLE.search(rest)
        retr_m = None if self.udp else _RETR.match(rest)  # UDP: datagrams, not retransmits
        retr = int(retr_m.group(1)) if retr_m else None
        if role_m is not None:  # a summary line: only the total counts
            if self._wanted(m["id"]):
                u = _UDP.match(rest) if self.udp else None
                udp = (float(u["jitter"]), int(u["lost"]), int(u["total"])) if u else None
                self._summary[(tag, role_m.group(1))] = _Summary(_bps(m), retr, udp)
            return []
        if self._in_summary or not self._wanted(m["id"]):
            return []
        start, end = float(m["start"]), float(m["end"])
        if end - start < 0.05:  # iperf3 may end on an empty sliver of an interval
            return []
        role = self._role(tag)
        iv = Interval(start, end, _bps(m), retr if role == "sender" else None, role)
        # A run that fails midway prints its last interval a second time.
        if any(o.role == role and o.start == start and o.end == end for o in self.intervals[-2:]):
            return []
        self.intervals.append(iv)
        return [iv]

    def _wanted(self, stream: str) -> bool:
        return (stream == "SUM") == (self.streams > 1)

    def _role(self, tag: str) -> Role:
        """Whose numbers an interval line holds: "sender" when this side sends."""
        if tag:
            return "sender" if tag.startswith("TX") else "receiver"
        return "receiver" if self.spec.direction == "reverse" else "sender"

    # -- the end -------------------------------------------------------------------------------
    def finish(
        self,
        returncode: int | None = 0,
        *,
        cancelled: bool = False,
        failure: str | None = None,
    ) -> BenchResult:
        """The result. `failure`: a reason found outside the output (a timeout, a missing
        program); `cancelled`: the user stopped the run. Without a summary, the numbers are
        the means of the intervals that arrived."""
        bidir = self.spec.direction == "bidir"
        failed = self.error is not None or returncode not in (0, None)
        # A stopped iperf3 still prints a summary, with a receiver of 0 bytes: only the
        # intervals of a run that did not finish are worth keeping.
        trusted = not (cancelled or failed or failure is not None)
        sent, received = self._pick("TX-C" if bidir else "") if trusted else (None, None)
        complete = sent is not None
        error: str | None = None
        if cancelled:
            error = f"stopped by you after {self._measured():.0f} s" + self._kept()
        elif failure is not None:
            error = failure + (self._kept() if self.intervals else "")
        elif not complete:
            error = self.explain(returncode)
        own_received = None if bidir else self._mean("receiver")
        result = BenchResult(
            sent_bps=sent.bps if sent else self._mean("sender"),
            received_bps=received.bps if received else own_received,
            retransmits=sent.retransmits if sent else self._retr_sum("sender"),
            local_cpu=self._cpu[0] if self._cpu and trusted else None,
            remote_cpu=self._cpu[1] if self._cpu and trusted else None,
            intervals=tuple(self.intervals),
            error=error,
            complete=complete,
        )
        if received is not None and received.udp is not None:  # the receiver's view counts
            jitter, lost, total = received.udp
            result = replace(result, jitter_ms=jitter, lost_packets=lost, total_packets=total)
        if not bidir:
            return result
        back_sent, back_received = self._pick("RX-C") if trusted else (None, None)
        return replace(
            result,
            return_sent_bps=back_sent.bps if back_sent else None,
            return_received_bps=back_received.bps if back_received else self._mean("receiver"),
            return_retransmits=back_sent.retransmits if back_sent else None,
        )

    def _pick(self, tag: str) -> tuple[_Summary | None, _Summary | None]:
        return self._summary.get((tag, "sender")), self._summary.get((tag, "receiver"))

    def _measured(self) -> float:
        return max((iv.end for iv in self.intervals), default=0.0)

    def _kept(self) -> str:
        if not self.intervals:
            return ": nothing was measured"
        return f": the numbers are what was measured in the first {self._measured():.0f} s"

    def _mean(self, role: Role) -> float | None:
        """Bits per second over the intervals that arrived (the last one may be short)."""
        spans = [(i.end - i.start, i.bits_per_second) for i in self.intervals if i.role == role]
        seconds = sum(d for d, _ in spans)
        return sum(d * bps for d, bps in spans) / seconds if seconds > 0 else None

    def _retr_sum(self, role: Role) -> int | None:
        values = [iv.retransmits for iv in self.intervals if iv.role == role]
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    def explain(self, returncode: int | None = None) -> str:
        """What went wrong, in plain words, with what to do about it."""
        spec, msg = self.spec, self.error or ""
        where = f"{spec.peer} port {spec.port}"
        low = msg.lower()
        if "connection refused" in low:
            return (
                f"{where} refused the connection: no iperf3 server listens there. "
                f"Start one on the peer: {self.server_hint}"
            )
        if any(
            s in low
            for s in ("no route to host", "network is unreachable", "timed out", "host is down")
        ):
            reason = msg.rsplit(": ", 1)[-1]
            return (
                f"{spec.peer} cannot be reached ({reason}): check the address and the route "
                f"(ip route get {spec.peer}) and that nothing blocks TCP port {spec.port}; "
                f"the peer must run: {self.server_hint}"
            )
        if "not known" in low or "resolve" in low or "name or service" in low:
            return f"{spec.peer}: no such host name ({msg})"
        if "busy" in low:
            return f"the iperf3 server at {where} is busy with another test: try again later"
        if self.last_error_line.startswith("iperf3: interrupt"):
            return f"iperf3 was interrupted after {self._measured():.0f} s" + self._kept()
        if self.intervals:
            why = msg or "iperf3 stopped"
            return f"the run failed after {self._measured():.0f} s ({why})" + self._kept()
        if msg:
            return f"iperf3 failed: {msg}"
        if "exec of" in self.last_line and "iperf3" in self.last_line:
            return missing_message()
        if "network namespace" in self.last_line.lower():
            return self.last_line
        status = f" with status {returncode}" if returncode not in (None, 0) else ""
        last = f": {self.last_line}" if self.last_line else ""
        return f"iperf3 ended{status} without a result{last}"


def missing_message() -> str:
    return f"iperf3 is not installed: install it with `{INSTALL_HINT}`"


def parse_output(spec: BenchSpec, text: str, returncode: int | None = 0) -> BenchResult:
    """The result of a whole recorded output (tests, `--root`-style replays)."""
    parser = IperfParser(spec)
    parser.feed_all(text.splitlines())
    return parser.finish(returncode)
