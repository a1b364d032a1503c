"""What iperf3 itself accepts (src/iperf.h of iperf 3.x), checked before a run is started, so
the CLI and the form refuse a bad value with one line instead of handing it to iperf3 (which
reads "-l x" as its default and "-l 1T" as an overflowed int)."""

from __future__ import annotations

import re
from collections.abc import Collection

from tuitune.core.cpulist import format_cpulist

MAX_STREAMS = 128  # MAX_STREAMS
MAX_DURATION = 86400  # MAX_TIME, seconds
MAX_REPEATS = 100  # tuitune's own: a notebook group of runs
MAX_LENGTH = 1024 * 1024  # MAX_BLOCKSIZE: -l above 1 MiB is "block size too large"
MAX_CPU = 65535  # -A takes a CPU number; no host has more

# A whole number of bytes with an optional K or M (1024-based, either case), ASCII only: \d
# would take "١٢٨", which iperf3 does not.
_LENGTH = re.compile(r"([0-9]{1,8})([KkMm]?)")
_SCALE = {"": 1, "K": 1024, "M": 1024**2}


class BadLength(ValueError):
    """An iperf3 -l value tuitune will not pass on; the message says why (one line)."""


def parse_length(text: str) -> str:
    """iperf3's -l as tuitune passes it ("128K"), or BadLength."""
    s = text.strip()
    m = _LENGTH.fullmatch(s)
    if m is None:
        shown = s if len(s) <= 20 else s[:20] + "..."
        raise BadLength(f"{shown!r}: a size like 128K, 1M or 1460 (bytes)")
    unit = m.group(2).upper()
    size = int(m.group(1)) * _SCALE[unit]
    if not 1 <= size <= MAX_LENGTH:
        raise BadLength(f"{s} is out of range (1 byte..1M, iperf3's largest block)")
    return f"{int(m.group(1))}{unit}"


def length_bytes(text: str) -> int:
    """iperf3's -l ("128K") as bytes, for an engine that takes no K or M (nuttcp, sockperf);
    BadLength as parse_length."""
    norm = parse_length(text)
    unit = norm[-1:] if norm[-1:] in _SCALE else ""
    return int(norm.removesuffix(unit)) * _SCALE[unit]


def pin_problem(
    client: int | None,
    server: int | None,
    online: Collection[int],
    server_online: Collection[int] | None = None,
) -> str | None:
    """Why `-A client[,server]` cannot run here, or None. iperf3 pins with
    sched_setaffinity and fails on a CPU that is not online, after the run is set up; the
    client runs here, the server where `server_online` says (None: a remote peer, not known)."""
    for who, cpu, cpus in (("client", client, online), ("server", server, server_online)):
        if cpu is None or not cpus or cpu in cpus:
            continue
        return f"-A: {who} CPU {cpu} is not online here (online: {format_cpulist(cpus)})"
    return None


MAX_WINDOW = 512 * 1024**2  # MAX_TCP_BUFFER: iperf3 refuses a larger -w
MAX_MSS = 9 * 1024  # MAX_MSS
MIN_MSS = 88  # the kernel's TCP_MIN_MSS
_RATE = re.compile(r"([0-9]{1,9})([KkMmGg]?)")
_CONGESTION = re.compile(r"[a-z][a-z0-9_]{0,14}")  # TCP_CA_NAME_MAX is 16 with the NUL


def parse_window(text: str) -> str:
    """-w as tuitune passes it ("4M"), 1K..512M, or BadLength."""
    s = text.strip()
    m = _LENGTH.fullmatch(s)
    if m is None:
        raise BadLength(f"{s[:20]!r}: a size like 512K, 4M or 65536 (bytes)")
    unit = m.group(2).upper()
    size = int(m.group(1)) * _SCALE[unit]
    if not 1024 <= size <= MAX_WINDOW:
        raise BadLength(f"{s} is out of range (1K..512M, iperf3's largest window)")
    return f"{int(m.group(1))}{unit}"


def parse_rate(text: str) -> str:
    """A UDP target rate in bits/s ("1G", "500M", "100K"), or BadLength."""
    s = text.strip()
    m = _RATE.fullmatch(s)
    if m is None or int(m.group(1)) == 0:
        raise BadLength(f"{s[:20]!r}: a rate in bits/s like 1G, 500M or 100K")
    return f"{int(m.group(1))}{m.group(2).upper()}"


def mss_problem(mss: int) -> str | None:
    if not MIN_MSS <= mss <= MAX_MSS:
        return f"MSS {mss} is out of range ({MIN_MSS}..{MAX_MSS})"
    return None


def congestion_problem(name: str) -> str | None:
    if _CONGESTION.fullmatch(name) is None:
        return f"{name[:20]!r}: a congestion control name like cubic, bbr or reno"
    return None
