"""ntuple rules (`ethtool -n/-N`): steer a TCP or UDP over IPv4 flow to an rx queue, or drop
it, by the rule's location; read with ETHTOOL_GRXCLSRULE, written with SRXCLSRLINS and
SRXCLSRLDEL (struct ethtool_rxnfc of <linux/ethtool.h>).

A rule as the journal's value, in `ethtool -N`'s words and a fixed order:

    flow-type tcp4 src-ip 10.0.0.1 dst-ip 10.0.0.2 src-port 40000 dst-port 5201 action 3
    none                        (no rule at that location)

Only exact matches are carried (every bit of a field given: the kernel's masks have 1 for a bit
that must match; `ethtool -n` prints them inverted). A rule with a partial mask, a TOS, the
extension fields (VLAN, user data, MAC), an RSS context or a VF is shown as "other: ..." and
never changed: tuitune could not write it back exactly.
"""

from __future__ import annotations

import ctypes
import errno
import ipaddress
import re
import struct
from dataclasses import dataclass

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl

ETHTOOL_GRXCLSRULE, ETHTOOL_SRXCLSRLDEL, ETHTOOL_SRXCLSRLINS = 0x2F, 0x31, 0x32
ETHTOOL_GRXCLSRLCNT, ETHTOOL_GRXCLSRLALL = 0x2E, 0x30
RXNFC_SIZE = 192
_RULE_CNT = 184  # struct ethtool_rxnfc: rule_cnt after fs, then rule_locs[]
MAX_RULES = 4096  # bounds what a driver may claim (the largest ntuple tables hold ~8k)
FLOW_TYPES = {"tcp4": 0x01, "udp4": 0x02}
_FLOW_NAMES = {v: k for k, v in FLOW_TYPES.items()}
FLOW_EXT, FLOW_MAC_EXT, FLOW_RSS = 0x80000000, 0x40000000, 0x20000000
RX_CLS_FLOW_DISC = (1 << 64) - 1  # the action "drop" (ethtool's `action -1`)
RING_VF_MASK = 0xFF << 32
NONE = "none"
OTHER = "other: "
MAX_LOCATION = 1 << 20
# Offsets in struct ethtool_rxnfc: fs (struct ethtool_rx_flow_spec) starts at 16.
_FS = 16
_H_U, _H_EXT, _M_U, _M_EXT = _FS + 4, _FS + 56, _FS + 76, _FS + 128
_COOKIE, _LOC = _FS + 152, _FS + 160
_IP4 = struct.Struct("!4s4sHHB")  # struct ethtool_tcpip4_spec: ip4src, ip4dst, psrc, pdst, tos
FIELDS = ("src-ip", "dst-ip", "src-port", "dst-port")
_IP = re.compile(r"[0-9]{1,3}(\.[0-9]{1,3}){3}")


class RuleError(ValueError):
    """Typed text that is no rule tuitune writes; the message says why."""


@dataclass(frozen=True, slots=True)
class Rule:
    flow: str  # "tcp4", "udp4"
    match: tuple[tuple[str, str], ...]  # (field, value) in FIELDS order
    action: int | None  # rx queue; None: drop

    def text(self) -> str:
        words = ["flow-type", self.flow]
        for name, value in self.match:
            words += [name, value]
        return " ".join([*words, "action", "drop" if self.action is None else str(self.action)])


def _zero(raw: bytes) -> bool:
    return not any(raw)


def decode(buf: bytes) -> str:
    """The value of the rule in a GRXCLSRULE answer."""
    ftype = struct.unpack_from("=I", buf, _FS)[0]
    flow = _FLOW_NAMES.get(ftype & ~(FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS))
    h = _IP4.unpack_from(buf, _H_U)
    m = _IP4.unpack_from(buf, _M_U)
    cookie = struct.unpack_from("=Q", buf, _COOKIE)[0]
    plain = flow is not None and not ftype & (FLOW_EXT | FLOW_MAC_EXT | FLOW_RSS)
    if not plain or not _zero(buf[_M_EXT : _M_EXT + 20]) or m[4]:
        return OTHER + _summary(flow, h, m, cookie, rule_context(buf))
    match: list[tuple[str, str]] = []
    for i, name in enumerate(FIELDS):
        full = b"\xff" * 4 if i < 2 else 0xFFFF
        if m[i] in (b"\0" * 4, 0):
            continue
        if m[i] != full:
            return OTHER + _summary(flow, h, m, cookie)
        match.append((name, str(ipaddress.IPv4Address(h[i])) if i < 2 else str(h[i])))
    if cookie != RX_CLS_FLOW_DISC and cookie & RING_VF_MASK:
        return OTHER + _summary(flow, h, m, cookie)
    assert flow is not None
    return Rule(flow, tuple(match), None if cookie == RX_CLS_FLOW_DISC else cookie).text()


def _summary(
    flow: str | None,
    h: tuple[object, ...],
    m: tuple[object, ...],
    cookie: int,
    context: int | None = None,
) -> str:
    """A short description of a rule tuitune does not carry (no outside text: numbers only)."""
    action = "drop" if cookie == RX_CLS_FLOW_DISC else f"cookie {cookie:#x}"
    if context is not None:  # ethtool -n: "Direct to RSS Context N (queue base offset: Q)"
        action = f"rss context {context}" + (f", queue offset {cookie}" if cookie else "")
    return f"flow-type {flow or 'unknown'} with masks or fields tuitune does not carry, {action}"


def encode(rule: Rule, location: int) -> ctypes.Array[ctypes.c_char]:
    buf = ctypes.create_string_buffer(RXNFC_SIZE)
    struct.pack_into("=II", buf, 0, ETHTOOL_SRXCLSRLINS, FLOW_TYPES[rule.flow])
    struct.pack_into("=I", buf, _FS, FLOW_TYPES[rule.flow])
    given = dict(rule.match)
    h: list[object] = []
    m: list[object] = []
    for i, name in enumerate(FIELDS):
        value = given.get(name)
        if i < 2:
            h.append(ipaddress.IPv4Address(value).packed if value else b"\0" * 4)
            m.append(b"\xff" * 4 if value else b"\0" * 4)
        else:
            h.append(int(value) if value else 0)
            m.append(0xFFFF if value else 0)
    _IP4.pack_into(buf, _H_U, *h, 0)
    _IP4.pack_into(buf, _M_U, *m, 0)
    cookie = RX_CLS_FLOW_DISC if rule.action is None else rule.action
    struct.pack_into("=Q", buf, _COOKIE, cookie)
    struct.pack_into("=I", buf, _LOC, location)
    return buf


def read_rule(io: EthtoolIoctl, location: int) -> str:
    """The value at `location`: a rule, NONE, or OTHER...; OSError when the driver has no
    ntuple table (EOPNOTSUPP)."""
    return read_rule_context(io, location)[0]


def rule_context(buf: bytes) -> int | None:
    """The RSS context a GRXCLSRULE answer's rule steers into (FLOW_RSS: rss_context, which
    shares its place with rule_cnt after the flow spec); None for a rule to one queue."""
    ftype = struct.unpack_from("=I", buf, _FS)[0]
    if not ftype & FLOW_RSS or len(buf) < _RULE_CNT + 4:
        return None
    ctx: int = struct.unpack_from("=I", buf, _RULE_CNT)[0]
    return ctx


def read_rule_context(io: EthtoolIoctl, location: int) -> tuple[str, int | None]:
    """read_rule's value and the RSS context the rule steers into (None: none)."""
    buf = ctypes.create_string_buffer(RXNFC_SIZE)
    struct.pack_into("=I", buf, 0, ETHTOOL_GRXCLSRULE)
    struct.pack_into("=I", buf, _LOC, location)
    try:
        io.call(buf)
    except OSError as exc:
        # No rule there: ENOENT (EINVAL from drivers before idpf's 2025 fix and others).
        if exc.errno in (errno.ENOENT, errno.EINVAL):
            return NONE, None
        raise
    return decode(buf.raw), rule_context(buf.raw)


def rule_locations(io: EthtoolIoctl) -> tuple[int, ...]:
    """The locations that hold a rule (GRXCLSRLCNT, then GRXCLSRLALL: `ethtool -n`'s own
    way); OSError when the driver has no ntuple table (EOPNOTSUPP)."""
    head = ctypes.create_string_buffer(RXNFC_SIZE)
    struct.pack_into("=I", head, 0, ETHTOOL_GRXCLSRLCNT)
    io.call(head)
    count = min(struct.unpack_from("=I", head.raw, _RULE_CNT)[0], MAX_RULES)
    if count == 0:
        return ()
    buf = ctypes.create_string_buffer(RXNFC_SIZE + 4 * count)
    struct.pack_into("=I", buf, 0, ETHTOOL_GRXCLSRLALL)
    struct.pack_into("=I", buf, _RULE_CNT, count)
    io.call(buf)
    got = min(struct.unpack_from("=I", buf.raw, _RULE_CNT)[0], count)
    locs = struct.unpack_from(f"={got}I", buf.raw, _RULE_CNT + 4)
    return tuple(sorted(loc for loc in set(locs) if loc < MAX_LOCATION))


def delete_rule(io: EthtoolIoctl, location: int) -> None:
    buf = ctypes.create_string_buffer(RXNFC_SIZE)
    struct.pack_into("=I", buf, 0, ETHTOOL_SRXCLSRLDEL)
    struct.pack_into("=I", buf, _LOC, location)
    io.call(buf)


def insert_rule(io: EthtoolIoctl, rule: Rule, location: int) -> None:
    io.call(encode(rule, location))


def parse_rule(text: str, rings: int | None) -> str:
    """`ethtool -N` words (flow-type tcp4|udp4, src-ip, dst-ip, src-port, dst-port, action
    QUEUE|-1|drop) -> the canonical value; "none" removes the rule. RuleError says why."""
    words = text.split()
    if words == [NONE]:
        return NONE
    if len(words) > 16 or len(words) % 2:
        raise RuleError("expected pairs: flow-type tcp4 dst-port 5201 action 2")
    pairs = dict(zip(words[::2], words[1::2], strict=True))
    if len(pairs) != len(words) // 2:
        raise RuleError("a word given twice")
    flow = pairs.pop("flow-type", "")
    if flow not in FLOW_TYPES:
        raise RuleError(f"flow-type {flow[:12]!r}: tuitune writes {', '.join(FLOW_TYPES)}")
    act = pairs.pop("action", None)
    if act is None:
        raise RuleError("no action: a queue number, or -1 (drop)")
    unknown = [k for k in pairs if k not in FIELDS]
    if unknown:
        raise RuleError(f"{unknown[0][:16]!r}: tuitune matches on {', '.join(FIELDS)}")
    if not pairs:
        raise RuleError("nothing to match on: give an address or a port")
    match = []
    for name in FIELDS:
        if name not in pairs:
            continue
        v = pairs[name]
        if name.endswith("ip"):
            if not _IP.fullmatch(v):
                raise RuleError(f"{name} {v[:20]!r} is not an IPv4 address")
            try:
                v = str(ipaddress.IPv4Address(v))
            except ValueError:
                raise RuleError(f"{name} {v[:20]!r} is not an IPv4 address") from None
        elif not (v.isascii() and v.isdigit() and len(v) <= 5 and int(v) <= 0xFFFF):
            raise RuleError(f"{name} {v[:12]!r} is not a port (0-65535)")
        else:
            v = str(int(v))
        match.append((name, v))
    if act in ("-1", "drop"):
        action = None
    elif act.isascii() and act.isdigit() and len(act) <= 5:
        action = int(act)
        if rings is not None and action >= rings:
            raise RuleError(f"action {action}: the device has rx queues 0-{rings - 1}")
    else:
        raise RuleError(f"action {act[:12]!r}: a queue number, or -1 (drop)")
    return Rule(flow, tuple(match), action).text()


def rule_of(value: str) -> Rule | None:
    """The Rule of a canonical value (None: none)."""
    if value == NONE:
        return None
    words = value.split()
    pairs = dict(zip(words[::2], words[1::2], strict=True))
    act = pairs.pop("action")
    flow = pairs.pop("flow-type")
    match = tuple((k, pairs[k]) for k in FIELDS if k in pairs)
    return Rule(flow, match, None if act == "drop" else int(act))


def parse_ethtool_n(text: str) -> dict[int, Rule]:
    """`ethtool -n` output (a capture) -> the TCP/UDP over IPv4 rules by location. Masks are
    printed inverted: a field with mask 0 (all bits matter) is matched."""
    out: dict[int, Rule] = {}
    for block in re.split(r"\n\s*\n", text):
        loc = re.search(r"Filter: (\d+)", block)
        kind = re.search(r"Rule Type: (TCP|UDP) over IPv4", block)
        act = re.search(r"Action: (Direct to queue (\d+)|Drop)", block)
        if not (loc and kind and act):
            continue
        match = []
        for name, label in zip(FIELDS, ("Src IP addr", "Dest IP addr", "Src port", "Dest port"),
                               strict=True):  # fmt: skip
            m = re.search(rf"{label}: (\S+) mask: (\S+)", block)
            if m and m.group(2) in ("0.0.0.0", "0x0"):
                match.append((name, m.group(1)))
        queue = int(act.group(2)) if act.group(2) else None
        out[int(loc.group(1))] = Rule(kind.group(1).lower() + "4", tuple(match), queue)
    return out
