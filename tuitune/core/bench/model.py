"""What a benchmark run is: the request, what the engine (iperf3, nuttcp, sockperf) reported,
the per-CPU load tuitune saw, and the settings it ran with. Immutable, JSON-friendly, shared by
the runner, the notebook, the headless `tuitune bench` and the TUI. Every field added after the
first notebook has a default, so runs recorded before it load as they were measured."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Direction = Literal["normal", "reverse", "bidir"]
DIRECTIONS: tuple[Direction, ...] = ("normal", "reverse", "bidir")
# iperf3's own default port: a server started by hand (`iperf3 -s`) listens there.
DEFAULT_PORT = 5201
DEFAULT_ENGINE = "iperf3"  # what every run recorded before engines were named ran


@dataclass(frozen=True, slots=True)
class BenchSpec:
    """One iperf3 client invocation (repeated `repeats` times)."""

    peer: str  # address or name of the iperf3 server
    port: int = DEFAULT_PORT
    duration: int = 10  # seconds (-t)
    streams: int = 1  # parallel streams (-P)
    direction: Direction = "normal"  # normal: we send; reverse (-R): peer sends; bidir
    length: str | None = None  # buffer/message length (-l), "128K"; None = iperf3's default
    client_cpu: int | None = None  # -A n: pin the client (the seeds' key lever)
    server_cpu: int | None = None  # -A n,m: pin the server too (needs client_cpu)
    repeats: int = 1
    netns: str | None = None  # run the client inside this network namespace (the lab)
    engine: str = DEFAULT_ENGINE  # "iperf3", "nuttcp" (throughput) or "sockperf" (latency)
    window: str | None = None  # socket buffer/window (-w), "4M"; None = the kernel's autotuning
    zerocopy: bool = False  # -Z: sendfile(2) instead of write(2)
    udp_rate: str | None = None  # UDP at this target rate ("1G"); None = TCP
    mss: int | None = None  # -M: TCP maximum segment size
    congestion: str | None = None  # -C: TCP congestion control for this run ("bbr")
    # -P N as N client processes, one stream each, on ports port..port+N-1 (iperf3 < 3.16 runs
    # every stream on one thread: esnet/iperf #289, #1870): each pinned to stream_cpus[i].
    processes: bool = False
    stream_cpus: tuple[int, ...] = ()  # the client CPU of each process (cycled)
    server_cpus: tuple[int, ...] = ()  # the server CPU of each process, where it can be set


@dataclass(frozen=True, slots=True)
class Interval:
    """One `-i 1` report line (the [SUM] line when there are several streams)."""

    start: float  # seconds since the run began
    end: float
    bits_per_second: float
    retransmits: int | None  # None where iperf3 prints none (receiver side, reverse)
    role: Literal["sender", "receiver"] = "sender"  # bidir runs report both


@dataclass(frozen=True, slots=True)
class StreamResult:
    """One process of a `--processes` run (one stream): its own numbers at both ends."""

    port: int
    client_cpu: int | None  # where it was pinned (None: not pinned)
    server_cpu: int | None
    sent_bps: float | None
    received_bps: float | None
    retransmits: int | None
    local_cpu: float | None  # the engine's CPU % of this process, this side
    remote_cpu: float | None  # the far end's process, when the engine reported it
    complete: bool = True

    @property
    def throughput_bps(self) -> float | None:
        return self.received_bps if self.received_bps is not None else self.sent_bps


@dataclass(frozen=True, slots=True)
class BenchResult:
    """What iperf3 said at the end (or up to where it failed)."""

    sent_bps: float | None  # sender summary, bits/s
    received_bps: float | None  # receiver summary, bits/s
    retransmits: int | None
    local_cpu: float | None  # iperf3's CPU utilization %, this side (host total)
    remote_cpu: float | None  # the peer's, when iperf3 reported it
    intervals: tuple[Interval, ...] = ()
    error: str | None = None  # plain words; the numbers above are what was measured up to then
    complete: bool = True
    # --bidir: the other direction (the peer sends, this side receives); None otherwise.
    return_sent_bps: float | None = None
    return_received_bps: float | None = None
    return_retransmits: int | None = None
    # What ran: the engine's version ("3.12") and the exact command lines at both ends (one per
    # process; the far end's as it was started, or as it must be started on a remote peer).
    engine_version: str | None = None
    client_commands: tuple[str, ...] = ()
    server_commands: tuple[str, ...] = ()
    streams: tuple[StreamResult, ...] = ()  # per process (--processes); () otherwise
    # UDP: the receiver's jitter and lost/total datagrams.
    jitter_ms: float | None = None
    lost_packets: int | None = None
    total_packets: int | None = None
    # Latency (sockperf ping-pong): round trip in microseconds, and transactions per second.
    latency_median_us: float | None = None
    latency_p99_us: float | None = None
    latency_p999_us: float | None = None
    transactions_per_s: float | None = None

    @property
    def loss_pct(self) -> float | None:
        if self.lost_packets is None or not self.total_packets:
            return None
        return self.lost_packets / self.total_packets * 100.0

    @property
    def slowest_stream(self) -> StreamResult | None:
        known = [s for s in self.streams if s.throughput_bps is not None]
        return min(known, key=lambda s: s.throughput_bps or 0.0, default=None)

    @property
    def throughput_bps(self) -> float | None:
        """The one number a table shows: what arrived, both directions added for bidir; what
        was sent where the receiver's number is missing (a run that failed midway)."""
        there = self.received_bps if self.received_bps is not None else self.sent_bps
        back = self.return_received_bps
        if back is None:
            back = self.return_sent_bps
        if there is None and back is None:
            return None
        return (there or 0.0) + (back or 0.0)

    @property
    def total_retransmits(self) -> int | None:
        """Retransmits of both directions (bidir) or of the one that sent."""
        known = [r for r in (self.retransmits, self.return_retransmits) if r is not None]
        return sum(known) if known else None


@dataclass(frozen=True, slots=True)
class CpuLoad:
    """tuitune's own view of the run: per-CPU peaks over the run's samples."""

    peak_sys: dict[int, float] = field(default_factory=dict)  # % of one CPU
    peak_soft: dict[int, float] = field(default_factory=dict)
    drops: dict[int, int] = field(default_factory=dict)  # softnet backlog drops during the run
    samples: int = 0
    # What each queue carried during the run ("rx-0" -> packets, bytes, drops, errors: the
    # measures its driver counts; core/host/queuestats.py) and the NIC-wide drop counters'
    # rises (rx_missed_errors, rx_out_of_buffer, ...): which queue the run hashed onto, and
    # which ring dropped. Empty: no per-queue counters read (a driver without them).
    queues: dict[str, dict[str, int]] = field(default_factory=dict)
    nic_drops: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Run:
    """One recorded run in the notebook. Repeats of one request share `group`."""

    id: str  # "r1", "r2" ... unique within a notebook
    group: str  # the id of the first run of the same request (its repeats point to it)
    ifname: str
    started: str  # ISO 8601, local time with offset
    spec: BenchSpec
    result: BenchResult
    load: CpuLoad
    settings: dict[str, str]  # setting name ("tso", "mtu", "net.core.rmem_max") -> value
    # What produced it, when not a plain bench: {"sweep": "nasa-1a2b3c4d-1", "cell": "3", ...}
    tags: dict[str, str] = field(default_factory=dict)
