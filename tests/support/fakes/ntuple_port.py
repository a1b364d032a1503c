"""A driver's ntuple table at the SIOCETHTOOL port: answers GRXCLSRULE, SRXCLSRLINS,
SRXCLSRLDEL, GRXCLSRLCNT/ALL and GRXRINGS like idpf after its 2025 fix
(tests/fixtures/captures/ethtool_n):
ENOENT for an empty location, EEXIST for a second rule at one, EINVAL for a queue past the
rings, EOPNOTSUPP while ntuple filtering is off. Rules are kept as the kernel's raw
struct ethtool_rx_flow_spec bytes, so a rule reads back exactly as it was written."""

from __future__ import annotations

import ctypes
import errno
import struct

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl
from tuitune.core.host.ntuple import (
    ETHTOOL_GRXCLSRLALL,
    ETHTOOL_GRXCLSRLCNT,
    ETHTOOL_GRXCLSRULE,
    ETHTOOL_SRXCLSRLDEL,
    ETHTOOL_SRXCLSRLINS,
    RX_CLS_FLOW_DISC,
    Rule,
    encode,
)
from tuitune.core.host.rss import ETHTOOL_GRXRINGS

_FS, _FS_END, _COOKIE, _LOC = 16, 184, 168, 176


class FakeNtuplePort(EthtoolIoctl):
    def __init__(self, rules: dict[int, Rule], rings: int, ntuple_on: bool = True) -> None:
        super().__init__("fake0")
        self.rings, self.ntuple_on = rings, ntuple_on
        self.specs = {loc: encode(r, loc).raw[_FS:_FS_END] for loc, r in rules.items()}
        self.calls: list[tuple[int, int]] = []
        # location -> the RSS context its rule steers into (FLOW_RSS rules: put_raw's), put
        # in rss_context (after the flow spec) of the GRXCLSRULE answer, as the kernel does.
        self.rule_contexts: dict[int, int] = {}

    def put_raw(self, location: int, spec: bytes) -> None:
        self.specs[location] = spec

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        cmd = struct.unpack_from("=I", buf.raw)[0]
        loc = struct.unpack_from("=I", buf.raw, _LOC)[0]
        self.calls.append((cmd, loc))
        if cmd == ETHTOOL_GRXRINGS:
            struct.pack_into("=Q", buf, 8, self.rings)
            return 0
        if cmd == ETHTOOL_GRXCLSRLCNT:
            struct.pack_into("=I", buf, _FS_END, len(self.specs))
            return 0
        if cmd == ETHTOOL_GRXCLSRLALL:
            room = struct.unpack_from("=I", buf.raw, _FS_END)[0]
            if room < len(self.specs):
                raise OSError(errno.EMSGSIZE, "Message too long")  # as the kernel's core says
            locs = sorted(self.specs)
            struct.pack_into(f"={len(locs)}I", buf, _FS_END + 4, *locs)
            struct.pack_into("=I", buf, _FS_END, len(locs))
            return 0
        if cmd == ETHTOOL_GRXCLSRULE:
            if loc not in self.specs:
                raise OSError(errno.ENOENT, "No such file or directory")
            ctypes.memmove(ctypes.addressof(buf) + _FS, self.specs[loc], _FS_END - _FS)
            if loc in self.rule_contexts:
                struct.pack_into("=I", buf, _FS_END, self.rule_contexts[loc])
            return 0
        if not self.ntuple_on:
            raise OSError(errno.EOPNOTSUPP, "Operation not supported")
        if cmd == ETHTOOL_SRXCLSRLDEL:
            if self.specs.pop(loc, None) is None:
                raise OSError(errno.ENOENT, "No such file or directory")
            return 0
        if cmd == ETHTOOL_SRXCLSRLINS:
            cookie = struct.unpack_from("=Q", buf.raw, _COOKIE)[0]
            if loc in self.specs:
                raise OSError(errno.EEXIST, "File exists")
            if cookie != RX_CLS_FLOW_DISC and cookie >= self.rings:
                raise OSError(errno.EINVAL, "Invalid argument")
            self.specs[loc] = buf.raw[_FS:_FS_END]
            return 0
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")


IPV6_USER_FLOW = 0x0E  # "Raw IPv6" in `ethtool -n`
_TO_CONTEXT = r"Action: Direct to RSS Context (\d+)(?: \(queue base offset: (\d+)\))?"


def context_rules(text: str) -> dict[int, tuple[bytes, int]]:
    """The rules of an `ethtool -n` capture that steer into an RSS context ("Action: Direct
    to RSS Context N [(queue base offset: Q)]"): location -> (the raw flow spec, N). Only what
    the reader needs is set: the flow type with FLOW_RSS, the base offset in ring_cookie and
    the location; the match fields stay zero (the capture's destination is redacted)."""
    import re

    from tuitune.core.host.ntuple import FLOW_RSS

    kinds = {"Raw IPv6": IPV6_USER_FLOW, "TCP over IPv4": 0x01, "UDP over IPv4": 0x02}
    out: dict[int, tuple[bytes, int]] = {}
    for block in re.split(r"\n\s*\n", text):
        loc = re.search(r"Filter: (\d+)", block)
        kind = re.search(r"Rule Type: (.+)", block)
        act = re.search(_TO_CONTEXT, block)
        if not (loc and kind and act) or kind.group(1).strip() not in kinds:
            continue
        spec = bytearray(_FS_END - _FS)
        struct.pack_into("=I", spec, 0, kinds[kind.group(1).strip()] | FLOW_RSS)
        struct.pack_into("=Q", spec, _COOKIE - _FS, int(act.group(2) or 0))
        struct.pack_into("=I", spec, _LOC - _FS, int(loc.group(1)))
        out[int(loc.group(1))] = (bytes(spec), int(act.group(1)))
    return out
