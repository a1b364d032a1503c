"""The TCP connections on an interface's addresses, as `ss -ti` shows them (inet_diag).

Per connection: congestion control, cwnd, RTT, retransmits, pacing and delivery rates, window
scaling, SACK, MSS. Read through pyroute2's DiagSocket; the struct tcp_info is decoded here
from its raw bytes (pyroute2 0.9 folds the two wscale nibbles into one), at the offsets of
<linux/tcp.h>, each read only when the kernel's struct is long enough to hold it.
"""

from __future__ import annotations

import ipaddress
import struct
from collections.abc import Collection
from dataclasses import dataclass
from socket import AF_INET, AF_INET6
from typing import Any

from tuitune.core.values import Unavailable

TCP_ESTABLISHED = 1
INET_DIAG_INFO = 2
INET_DIAG_CONG = 4
TCPI_OPT_TIMESTAMPS, TCPI_OPT_SACK, TCPI_OPT_WSCALE = 1, 2, 4
MAX_CONNECTIONS = 512  # a busy server has thousands: show the first, say how many

# (name, offset, format) in struct tcp_info.
_FIELDS: tuple[tuple[str, int, str], ...] = (
    ("options", 5, "B"),
    ("wscale", 6, "B"),
    ("snd_mss", 16, "I"),
    ("rtt_us", 68, "I"),
    ("rttvar_us", 72, "I"),
    ("cwnd", 80, "I"),
    ("total_retrans", 100, "I"),
    ("pacing_rate", 104, "Q"),
    ("delivery_rate", 160, "Q"),
)


@dataclass(frozen=True, slots=True)
class Connection:
    local: str
    lport: int
    remote: str
    rport: int
    cc: str | None  # congestion control (cubic, bbr, ...)
    cwnd: int | None
    rtt_ms: float | None
    retrans: int | None  # retransmitted segments over the connection's life
    pacing_bps: int | None  # bits/s (the kernel's bytes/s x 8)
    delivery_bps: int | None
    mss: int | None
    sack: bool | None
    timestamps: bool | None
    wscale: tuple[int, int] | None  # (send, receive) shifts; None when scaling is off

    @property
    def wscale_off(self) -> bool:
        return self.wscale is None and self.sack is not None


def tcp_info(raw: bytes) -> dict[str, int]:
    out = {}
    for name, off, fmt in _FIELDS:
        if off + struct.calcsize(fmt) <= len(raw):
            out[name] = struct.unpack_from("=" + fmt, raw, off)[0]
    return out


def from_info(
    local: str, lport: int, remote: str, rport: int, cc: str | None, raw: bytes
) -> Connection:
    i = tcp_info(raw)
    opts = i.get("options")
    ws = i.get("wscale")
    scaled = opts is not None and bool(opts & TCPI_OPT_WSCALE)
    max_rate = (1 << 64) - 1  # ~0ULL: no pacing rate set
    pacing = i.get("pacing_rate")
    return Connection(
        local,
        lport,
        remote,
        rport,
        cc,
        i.get("cwnd"),
        i["rtt_us"] / 1000 if "rtt_us" in i else None,
        i.get("total_retrans"),
        None if pacing is None or pacing == max_rate else pacing * 8,
        i["delivery_rate"] * 8 if "delivery_rate" in i else None,
        i.get("snd_mss"),
        None if opts is None else bool(opts & TCPI_OPT_SACK),
        None if opts is None else bool(opts & TCPI_OPT_TIMESTAMPS),
        (ws & 0xF, ws >> 4) if scaled and ws is not None else None,
    )


def _raw_attr(msg: Any, name: str) -> bytes | None:
    nla = msg.get_attr(name)
    if nla is None or not hasattr(nla, "data"):
        return None
    return bytes(nla.data[nla.offset + 4 : nla.offset + nla.length])


def read_connections(
    addresses: Collection[ipaddress.IPv4Address | ipaddress.IPv6Address],
) -> tuple[Connection, ...]:
    """Established TCP connections whose local address is one of `addresses`, in the calling
    thread's network namespace (a HostReader's kernel thread)."""
    from pyroute2 import DiagSocket  # imported here: show without connections never needs it

    wanted = set(addresses)
    out: list[Connection] = []
    ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1))
    with DiagSocket() as ds:
        ds.bind()
        for family in (AF_INET, AF_INET6):
            for m in ds.get_sock_stats(family=family, states=1 << TCP_ESTABLISHED, extensions=ext):
                try:
                    local = ipaddress.ip_address(m["idiag_src"])
                    remote = ipaddress.ip_address(m["idiag_dst"])
                except ValueError:
                    continue
                if local not in wanted:
                    continue
                raw = _raw_attr(m, "INET_DIAG_INFO") or b""
                cc = m.get_attr("INET_DIAG_CONG")
                out.append(
                    from_info(
                        str(local),
                        int(m["idiag_sport"]),
                        str(remote),
                        int(m["idiag_dport"]),
                        str(cc)[:16] if cc else None,
                        raw,
                    )
                )
                if len(out) >= MAX_CONNECTIONS:
                    return tuple(out)
    return tuple(out)


def _is_address(text: str) -> bool:
    """An address as inet_diag's reader writes it: no scope (`fe80::1%` takes any text)."""
    try:
        return "%" not in text and str(ipaddress.ip_address(text)) == text
    except ValueError:
        return False


def checked_connections(
    conns: tuple[Connection, ...], name: str
) -> tuple[Connection, ...] | Unavailable:
    """Connections read from a file (a capture, a recording), each address an IP address and
    each port a port (they are shown as table text): any other is a state naming the file,
    none of them shown."""
    if len(conns) > MAX_CONNECTIONS:
        return Unavailable("error", f"{name}: connections: more than {MAX_CONNECTIONS}")
    for i, c in enumerate(conns):
        for field, addr, port in (("local", c.local, c.lport), ("remote", c.remote, c.rport)):
            if not _is_address(addr):
                return Unavailable("error", f"{name}: connections[{i}]: {field}: not an address")
            if not 0 <= port <= 65535:
                return Unavailable("error", f"{name}: connections[{i}]: {field}: not a port")
        if c.wscale is not None and not all(0 <= w <= 15 for w in c.wscale):
            return Unavailable("error", f"{name}: connections[{i}]: wscale: out of range")
    return conns
