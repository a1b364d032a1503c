"""The interface's qdisc tree (`tc qdisc show dev IF`): read by the live screen's own
RTM_GETQDISC dump (rtnl_qdisc.py), and through pyroute2's tc support where it writes.

What a tuner needs from it: which qdisc sends (mq with a child per tx queue on a multi-queue
NIC), and whether it paces: fq's maxrate, flow_limit and quantum, tbf's rate. pyroute2 decodes
tbf, htb, fq_codel, pfifo_fast...; it has no fq decoder, so fq's options are read from the raw
attributes here (TCA_FQ_* of <linux/pkt_sched.h>).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tuitune.core.host.ethtool_netlink import iter_attrs
from tuitune.core.units import bitrate

ROOT = 0xFFFFFFFF
INGRESS = 0xFFFFFFF1
# TCA_FQ_* -> the name `tc qdisc show` prints (u32 each).
FQ_ATTRS: dict[int, str] = {
    1: "limit",
    2: "flow_limit",
    3: "quantum",
    4: "initial_quantum",
    5: "rate_enable",
    6: "flow_default_rate",
    7: "maxrate",
    8: "buckets_log",
    9: "refill_delay",
    10: "orphan_mask",
    11: "low_rate_threshold",
    12: "ce_threshold",  # usecs; ~0U: no CE marking
    13: "timer_slack",  # ns
    14: "horizon",  # usecs
}
TCA_FQ_HORIZON_DROP = 15  # u8: 1 drops packets past the horizon, 0 caps their time
FQ_NO_MAXRATE = 0xFFFFFFFF  # ~0U: unlimited
PSCHED_TICK_NS = 64  # the kernel's psched tick (1 << PSCHED_SHIFT ns): tbf keeps its burst so
_FQ_RATES = frozenset({"maxrate", "flow_default_rate", "low_rate_threshold"})


def tbf_burst(rate_bits: int, ticks: int) -> int:
    """tbf's buffer (psched ticks, as the kernel dumps it) as burst bytes at `rate_bits`."""
    return round(rate_bits / 8 * ticks * PSCHED_TICK_NS / 10**9)


def handle_text(h: int) -> str:
    """A tc handle as tc prints it: "1:", "8001:3", "root"."""
    if h == ROOT:
        return "root"
    if h == INGRESS:
        return "ingress"
    major, minor = h >> 16, h & 0xFFFF
    return f"{major:x}:{minor:x}" if minor else f"{major:x}:"


@dataclass(frozen=True, slots=True)
class Qdisc:
    kind: str
    handle: str
    parent: str
    options: Mapping[str, int | str] = field(default_factory=dict)

    @property
    def paces(self) -> bool:
        """fq (pacing by default) or a shaper with a rate."""
        return self.kind == "fq" or (self.kind in ("tbf", "htb") and "rate" in self.options)


def fq_options(raw: bytes) -> dict[str, int | str]:
    """fq's TCA_OPTIONS payload (nested TCA_FQ_* u32 attributes)."""
    out: dict[str, int | str] = {}
    for atype, payload in iter_attrs(raw):
        if atype == TCA_FQ_HORIZON_DROP and payload:
            out["horizon_drop"] = payload[0]
            continue
        name = FQ_ATTRS.get(atype)
        if name is not None and len(payload) >= 4:
            value = struct.unpack_from("=I", payload)[0]
            if name in _FQ_RATES:
                # The kernel holds bytes/s; shown in bits/s as tc takes them (tbf's too).
                out[name] = "unlimited" if value == FQ_NO_MAXRATE else value * 8
            else:
                out[name] = value
    return out


def _options(kind: str, opts: Any) -> dict[str, int | str]:
    """The options worth showing, from pyroute2's decoded TCA_OPTIONS (or fq's raw bytes)."""
    if kind == "fq":
        raw = opts if isinstance(opts, bytes | bytearray) else None
        if isinstance(opts, str):
            # pyroute2 0.9 has no fq decoder: it gives the payload as "08:00:01:00:...". Seen
            # on the bench's 6.1 guest, where every fq then read back without its options.
            try:
                raw = bytes.fromhex(opts.replace(":", ""))
            except ValueError:
                raw = None
        if raw is None and isinstance(opts, Mapping):
            value = opts.get("value")
            raw = bytes(value) if isinstance(value, bytes | bytearray) else None
        return fq_options(bytes(raw)) if raw else {}
    attrs = dict(opts.get("attrs", [])) if isinstance(opts, Mapping) else {}
    if kind == "tbf" and isinstance(attrs.get("TCA_TBF_PARMS"), Mapping):
        p = attrs["TCA_TBF_PARMS"]
        # rate in bits/s as tc takes it (the kernel holds bytes/s); limit and burst in bytes
        # (the kernel keeps the burst as a time: qdisc_spec.tbf_burst).
        out: dict[str, int | str] = {
            "rate": int(p.get("rate", 0)) * 8,
            "limit": int(p.get("limit", 0)),
        }
        rate, buffer = int(p.get("rate", 0)), int(p.get("buffer", 0))
        if rate > 0:
            out["burst"] = tbf_burst(rate * 8, buffer)
        if int(p.get("peak", 0)):
            out["peakrate"] = int(p["peak"]) * 8
        return out
    if kind in ("pfifo", "bfifo") and isinstance(opts, Mapping) and "limit" in opts:
        return {"limit": int(opts["limit"])}
    if kind == "htb" and isinstance(attrs.get("TCA_HTB_INIT"), Mapping):
        return {"default": f"{int(attrs['TCA_HTB_INIT'].get('defcls', 0)):x}"}
    if kind == "fq_codel" and isinstance(opts, Mapping):
        keep = ("TCA_FQ_CODEL_LIMIT", "TCA_FQ_CODEL_FLOWS", "TCA_FQ_CODEL_QUANTUM")
        return {k.removeprefix("TCA_FQ_CODEL_").lower(): int(attrs[k]) for k in keep if k in attrs}
    return {}


def from_messages(msgs: Iterable[Any]) -> tuple[Qdisc, ...]:
    """The tree from pyroute2 tcmsg messages, root first."""
    out = []
    for m in msgs:
        kind = m.get_attr("TCA_KIND") or "?"
        out.append(
            Qdisc(
                str(kind)[:32],
                handle_text(int(m["handle"])),
                handle_text(int(m["parent"])),
                _options(str(kind), m.get_attr("TCA_OPTIONS")),
            )
        )
    out.sort(key=lambda q: (q.parent != "root", q.parent, q.handle))
    return tuple(out)


def read_qdiscs(ipr: Any, ifindex: int) -> tuple[Qdisc, ...]:
    return from_messages(ipr.get_qdiscs(index=ifindex))


def tree_text(qs: Iterable[Qdisc]) -> str:
    """One line per qdisc: "mq root; fq 8001:1 parent 1:1 maxrate 1000000 ..."."""
    parts = []
    for q in qs:
        where = "root" if q.parent == "root" else f"{q.handle} parent {q.parent}"
        opts = " ".join(
            f"{k} {bitrate(v / 8)}"
            if k in ("rate", "maxrate") and isinstance(v, int)
            else f"{k} {v}"
            for k, v in q.options.items()
        )
        parts.append(f"{q.kind} {where}" + (f" {opts}" if opts else ""))
    return "; ".join(parts)
