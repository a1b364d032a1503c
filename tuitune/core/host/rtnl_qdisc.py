"""One interface's qdiscs by RTM_GETQDISC dump, without pyroute2.

The live screen reads the root qdisc with every NIC state read; through pyroute2's
`get_qdiscs` that loaded its whole library (about 160 modules, 8 to 9 MB resident, issue 38
goal 3) on the first frame. Writes (core/session/kinds/qdisc.py) still go through pyroute2.

Each message answers like pyroute2's tcmsg for what qdisc.from_messages reads: `["handle"]`,
`["parent"]`, `get_attr("TCA_KIND")`, and `get_attr("TCA_OPTIONS")` decoded in pyroute2's
shape for the kinds qdisc._options shows (tbf's TCA_TBF_PARMS, htb's TCA_HTB_INIT, fq_codel's
limit/flows/quantum, pfifo's limit; fq stays raw bytes, as pyroute2 leaves it). Layouts
from <linux/rtnetlink.h> and <linux/pkt_sched.h>.
"""

from __future__ import annotations

import socket
import struct
from typing import Any

from tuitune.core.host.nlmsg import NLMSGHDR, iter_attrs

RTM_NEWQDISC, RTM_GETQDISC = 36, 38
NLMSG_DONE = 3
NLM_F_DUMP = 0x300
TCMSG = struct.Struct("=BxxxiIII")  # struct tcmsg: family, 3 pad, ifindex, handle, parent, info
TCA_KIND, TCA_OPTIONS = 1, 2
TCA_TBF_PARMS = 1
# struct tc_tbf_qopt: rate and peakrate (struct tc_ratespec each), limit, buffer, mtu.
TBF_QOPT = struct.Struct("=BBHhHIBBHhHIIII")  # 2 x (BBHhHI), then III
TCA_HTB_INIT = 2
HTB_GLOB = struct.Struct("=IIIII")  # version, rate2quantum, defcls, debug, direct_pkts
FQ_CODEL = {2: "TCA_FQ_CODEL_LIMIT", 5: "TCA_FQ_CODEL_FLOWS", 6: "TCA_FQ_CODEL_QUANTUM"}


class QdiscMessage(dict[str, Any]):
    """handle and parent by [name]; TCA_KIND and TCA_OPTIONS by get_attr, as pyroute2."""

    def __init__(self, handle: int, parent: int, attrs: dict[str, Any]) -> None:
        super().__init__(handle=handle, parent=parent)
        self._attrs = attrs

    def get_attr(self, name: str) -> Any:
        return self._attrs.get(name)


def _u32(raw: bytes) -> int | None:
    return struct.unpack_from("=I", raw)[0] if len(raw) >= 4 else None


def decode_options(kind: str, raw: bytes) -> Any:
    """TCA_OPTIONS in the shape pyroute2 decodes it to, for the kinds shown; else None."""
    if kind == "fq":
        return raw
    if kind == "pfifo":
        # struct tc_fifo_qopt, not nested. Not bfifo's: pyroute2 0.9 does not decode it, and
        # the session's qdisc read-back (through pyroute2) must see the same tree as this.
        limit = _u32(raw)
        return {"limit": limit} if limit is not None else None
    attrs: list[tuple[str, Any]] = []
    for atype, payload in iter_attrs(raw):
        if kind == "tbf" and atype == TCA_TBF_PARMS and len(payload) >= TBF_QOPT.size:
            f = TBF_QOPT.unpack_from(payload)
            parms = {"rate": f[5], "peak": f[11], "limit": f[12], "buffer": f[13], "mtu": f[14]}
            attrs.append(("TCA_TBF_PARMS", parms))
        elif kind == "htb" and atype == TCA_HTB_INIT and len(payload) >= HTB_GLOB.size:
            g = HTB_GLOB.unpack_from(payload)
            attrs.append(("TCA_HTB_INIT", {"version": g[0], "defcls": g[2]}))
        elif kind == "fq_codel" and atype in FQ_CODEL and (v := _u32(payload)) is not None:
            attrs.append((FQ_CODEL[atype], v))
    return {"attrs": attrs} if attrs else None


def decode_qdisc(data: bytes) -> tuple[int, QdiscMessage] | None:
    """(ifindex, message) of one RTM_NEWQDISC body; None if too short to be one."""
    if len(data) < TCMSG.size:
        return None
    _family, ifindex, handle, parent, _info = TCMSG.unpack_from(data)
    kind, options = "", b""
    for atype, payload in iter_attrs(data, TCMSG.size):
        if atype == TCA_KIND:
            kind = payload.split(b"\0", 1)[0].decode("ascii", "replace")
        elif atype == TCA_OPTIONS:
            options = payload
    attrs: dict[str, Any] = {"TCA_KIND": kind or None}
    if options:
        attrs["TCA_OPTIONS"] = decode_options(kind, options)
    return ifindex, QdiscMessage(handle, parent, attrs)


def dump_request(seq: int) -> bytes:
    body = TCMSG.pack(socket.AF_UNSPEC, 0, 0, 0, 0)
    return NLMSGHDR.pack(NLMSGHDR.size + len(body), RTM_GETQDISC, 1 | NLM_F_DUMP, seq, 0) + body
