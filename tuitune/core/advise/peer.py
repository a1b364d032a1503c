"""`--peer HOST`: the round-trip time to the far end and a don't-fragment probe of the path.

The RTT feeds the bandwidth-delay product (buffers-below-bdp) and the inferred context; the
probe tells mtu-small whether the path carries the interface's MTU unfragmented. Both come from
iputils `ping`, run through core/proc.py (a root-owned binary, a clean environment), inside the
watched namespace when there is one.

The peer is typed by a user and reaches an argv: it must be an IP address or a DNS host name
(letters, digits, hyphens, dots), is never allowed to start with "-", and comes after "--", so
it can never be read as an option. ping's output is parsed defensively: a line that does not
match, a number that is not finite or a count that does not add up gives "not measured", never
a guess.
"""

from __future__ import annotations

import ipaddress
import math
import re
import subprocess
from dataclasses import dataclass

from tuitune.core import proc

HOST_MAX = 253  # RFC 1035: a name's text form
LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
COUNT = 5  # echo requests for the RTT
INTERVAL = "0.2"  # seconds between them: the smallest ping allows without root
WAIT_S = 2  # seconds ping waits for the last reply
TIMEOUT_S = 20.0  # the whole ping, whatever it does
IPV4_OVERHEAD, IPV6_OVERHEAD = 28, 48  # IP + ICMP headers: payload = MTU - overhead
_SUMMARY = re.compile(r"^(\d+) packets transmitted, (\d+) (?:packets )?received", re.M)
_RTT = re.compile(r"^(?:rtt|round-trip) min/avg/max/(?:mdev|stddev) = ([^ ]+) ms$", re.M)


class BadPeer(ValueError):
    """Not an address or host name tuitune will pass to ping; the message is one line."""


def peer_problem(text: str) -> str | None:
    """Why `text` cannot be a peer (None: it can)."""
    if not text:
        return "empty peer"
    if len(text) > HOST_MAX or not text.isascii() or not text.isprintable():
        return f"peer {text[:40]!r}: not a host name or IP address"
    try:
        ipaddress.ip_address(text)
        return None
    except ValueError:
        pass
    labels = text.removesuffix(".").split(".")
    if text.startswith("-") or not all(LABEL.fullmatch(x) for x in labels):
        return f"peer {text[:40]!r}: not a host name or IP address"
    if labels[-1].isdigit():  # 1.2.3.999 is a bad address, not a name
        return f"peer {text!r}: not a valid IP address"
    return None


@dataclass(frozen=True, slots=True)
class Rtt:
    sent: int
    received: int
    min_ms: float
    avg_ms: float
    max_ms: float


@dataclass(frozen=True, slots=True)
class PeerProbe:
    host: str
    rtt: Rtt | None  # None: no reply, or not measured (see `problem`)
    mtu: int | None = None  # the MTU probed with don't-fragment
    df_ok: bool | None = None  # the probe came back (None: not probed)
    problem: str = ""  # why something was not measured, one line

    @property
    def rtt_ms(self) -> float | None:
        return self.rtt.avg_ms if self.rtt is not None else None

    def evidence(self) -> str:
        """One line for a finding's evidence: what was measured to the peer, and how."""
        if self.rtt is None:
            return f"no RTT to {self.host}: {self.problem or 'no reply'}"
        r = self.rtt
        return (
            f"RTT to {self.host}: {r.avg_ms:g} ms average ({r.min_ms:g}-{r.max_ms:g}, "
            f"{r.received} of {r.sent} replies; ping)"
        )

    def df_evidence(self) -> str | None:
        if self.df_ok is None or self.mtu is None:
            return None
        what = "reach" if self.df_ok else "get no reply from"
        return f"{self.mtu}-byte packets with don't-fragment {what} {self.host} (ping -M do)"


def parse_rtt(text: str) -> Rtt | None:
    """ping's summary lines as numbers; None when they are missing, malformed or make no sense
    (more received than sent, a non-finite or negative time, min > avg > max)."""
    m = _SUMMARY.search(text)
    if m is None:
        return None
    sent, received = int(m.group(1)), int(m.group(2))
    if sent <= 0 or received <= 0 or received > sent:
        return None
    r = _RTT.search(text)
    if r is None:
        return None
    parts = r.group(1).split("/")
    if len(parts) != 4:
        return None
    try:
        lo, avg, hi, _ = (float(x) for x in parts)
    except ValueError:
        return None
    if not all(math.isfinite(x) and 0 <= x < 1e6 for x in (lo, avg, hi)) or not lo <= avg <= hi:
        return None
    return Rtt(sent, received, lo, avg, hi)


def _ping(netns: str | None, args: list[str], host: str) -> tuple[str, str]:
    """ping's stdout and the first line of its stderr; BadPeer when it could not run."""
    argv = ["ping", "-n", "-q", *args, "--", host]
    if netns:
        argv = ["ip", "netns", "exec", netns, *argv]
    try:
        done = proc.run(argv, timeout=TIMEOUT_S)
    except proc.ProgramRefused as exc:
        raise BadPeer(f"ping: {exc.why} (install iputils-ping)") from None
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BadPeer(f"ping did not finish: {exc}") from None
    said = done.stderr.strip().split("\n", 1)[0][:120]
    return done.stdout, "".join(c for c in said if c.isprintable())


def probe_peer(host: str, netns: str | None, mtu: int | None) -> PeerProbe:
    """RTT to `host` over COUNT echoes, then one don't-fragment echo the size of `mtu`."""
    problem = peer_problem(host)
    if problem is not None:
        raise BadPeer(problem)
    out, said = _ping(netns, ["-c", str(COUNT), "-i", INTERVAL, "-W", str(WAIT_S)], host)
    rtt = parse_rtt(out)
    if rtt is None:
        why = "no reply to ping" if _SUMMARY.search(out) else said or "ping said nothing usable"
        return PeerProbe(host, None, problem=why)
    if mtu is None or mtu < 576:
        return PeerProbe(host, rtt)
    v6 = ":" in host or _is_v6(out)
    size = mtu - (IPV6_OVERHEAD if v6 else IPV4_OVERHEAD)
    df, _ = _ping(netns, ["-c", "1", "-W", str(WAIT_S), "-M", "do", "-s", str(size)], host)
    got = parse_rtt(df)
    return PeerProbe(host, rtt, mtu, got is not None)


def _is_v6(out: str) -> bool:
    """The first line names the address pinged: "PING host (addr) ..." ("PING ::1(::1)" for
    IPv6); a name that resolved to IPv6 needs the larger header."""
    first = out.split("\n", 1)[0]
    m = re.match(r"PING \S*?\s?\(([0-9A-Fa-f:.]+)\)", first)
    return bool(m and ":" in m.group(1))
