"""The root qdisc as one value the journal can hold: read from the tree, typed by a user, and
built again exactly (issue 33).

The value is a line of words, like `tc qdisc` takes them, in a canonical order:

    default                              the kernel's own (handle 0: mq, pfifo_fast, noqueue)
    fq limit 10000 flow_limit 100 quantum 3028 initial_quantum 15140 maxrate 1000000000
    tbf rate 100000000 burst 4000 limit 30000
    pfifo limit 1000 | pfifo_fast | fq_codel limit 10240 flows 1024 quantum 1514
    mq fq ...                            mq at the root, the same child on every tx queue

Rates are bits/s (the kernel holds bytes/s: a multiple of 8), sizes bytes. Every option of a
kind that tuitune builds is in the value, so writing it back (delete the root, add this) gives
the same qdisc whatever was there; a tree it cannot build again (classes, filters' parents,
an unknown kind, mq children that differ, an option it does not carry set away from the
kernel's default) reads as "other: ..." and is never changed (`rebuildable`).

The kernel keeps tbf's burst as a time in 64 ns ticks (PSCHED_SHIFT): the value says bytes
(what `tc` takes), rounded as `tc` rounds; written back, it reads back as the same bytes.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from tuitune.core.host.ethtool_netlink import pack_attr
from tuitune.core.host.qdisc import FQ_NO_MAXRATE, PSCHED_TICK_NS, ROOT, Qdisc, tbf_burst

DEFAULT = "default"
OTHER = "other: "
ETH_HLEN = 14  # psched_mtu adds the device's hard header: 14 on Ethernet and veth
U32 = 0xFFFFFFFF

# Options each buildable kind carries, in canonical order, and their kind of value.
RATE, COUNT = "rate", "count"
OPTIONS: dict[str, tuple[tuple[str, str], ...]] = {
    "fq": (
        ("limit", COUNT),
        ("flow_limit", COUNT),
        ("quantum", COUNT),
        ("initial_quantum", COUNT),
        ("maxrate", RATE),
    ),
    "fq_codel": (("limit", COUNT), ("flows", COUNT), ("quantum", COUNT)),
    "tbf": (("rate", RATE), ("burst", COUNT), ("limit", COUNT)),
    "pfifo": (("limit", COUNT),),
    "pfifo_fast": (),
}
LEAVES = tuple(OPTIONS)
# Options carried only when set away from the kernel's default (sch_fq.c fq_init), after the
# others in this order: a value read from an fq left at its defaults stays short, and one
# with a CE threshold, a horizon or a timer slack of its own is put back with them.
# (name, tc's unit for the export, the kernel's default, the TCA_FQ_* type, u8 or u32).
OPTIONAL: dict[str, tuple[tuple[str, str, int, int, str], ...]] = {
    "fq": (
        ("ce_threshold", "us", U32, 12, "I"),
        ("timer_slack", "ns", 10_000, 13, "I"),
        ("horizon", "us", 10_000_000, 14, "I"),
        ("horizon_drop", "", 1, 15, "B"),
    ),
}
# fq options the value does not carry, at the kernel's defaults (net/sched/sch_fq.c fq_init):
# anything else cannot be rebuilt by tuitune, so the tree reads as "other".
_FQ_FIXED: dict[str, int | str] = {
    "buckets_log": 10,
    "refill_delay": 40000,
    "orphan_mask": 1023,
    "rate_enable": 1,
    # fq_init sets 550000 / 8 bytes/s; read in bits/s (qdisc.py multiplies rates by 8). It said
    # 550000 * 8 until the guest's mq+fq test found every fresh fq read back as "other".
    "low_rate_threshold": 550000,
}
_FQ_DEFAULTS: dict[str, int | str] = {"limit": 10000, "flow_limit": 100, "maxrate": "unlimited"}
_FQ_CODEL_DEFAULTS: dict[str, int | str] = {"limit": 10240, "flows": 1024}
_RATE_WORD = re.compile(r"([0-9]{1,15})(bit|kbit|mbit|gbit|tbit|bps|kbps|mbps|gbps)?")
_RATE_MULT = {
    None: 1,
    "bit": 1,
    "kbit": 10**3,
    "mbit": 10**6,
    "gbit": 10**9,
    "tbit": 10**12,
    "bps": 8,
    "kbps": 8 * 10**3,
    "mbps": 8 * 10**6,
    "gbps": 8 * 10**9,
}
_SIZE_WORD = re.compile(r"([0-9]{1,12})(b|k|kb|m|mb)?")
_SIZE_MULT = {None: 1, "b": 1, "k": 1024, "kb": 1024, "m": 1 << 20, "mb": 1 << 20}
# Rates are u32 bytes/s in fq and in tbf's parameters (34 Gbit/s): tbf's 64-bit rate
# attribute is left out, since pyroute2 0.9 does not decode it and the rate would not read back.
MAX_RATE_BITS = (U32 - 1) * 8


class SpecError(ValueError):
    """Typed text that is no qdisc tuitune builds; the message says why (one line)."""


@dataclass(frozen=True, slots=True)
class Leaf:
    kind: str
    options: tuple[tuple[str, int | str], ...] = ()

    def text(self) -> str:
        return " ".join([self.kind, *(f"{k} {v}" for k, v in self.options)])


@dataclass(frozen=True, slots=True)
class Spec:
    """A root qdisc tuitune builds: None leaf with mq (children left to the kernel)."""

    leaf: Leaf | None
    mq: bool = False

    def text(self) -> str:
        if not self.mq:
            assert self.leaf is not None
            return self.leaf.text()
        return "mq" + (f" {self.leaf.text()}" if self.leaf else "")


# ---- the tree as a value -------------------------------------------------------------------


def _handle0(q: Qdisc) -> bool:
    return q.handle in ("0:", "0:0")


def leaf_of(q: Qdisc) -> Leaf | str:
    """The canonical leaf of one qdisc, or why it cannot be rebuilt."""
    kind, o = q.kind, dict(q.options)
    if kind not in OPTIONS:
        return f"{kind} is not a qdisc tuitune builds"
    optional = OPTIONAL.get(kind, ())
    carried = {n for n, _ in OPTIONS[kind]} | {n for n, *_ in optional}
    for name, value in o.items():
        if name not in carried and _FQ_FIXED.get(name) != value:
            return f"{kind} {name} {value} is not an option tuitune carries"
    missing = [n for n, _ in OPTIONS[kind] if n not in o]
    if missing:
        return f"{kind}: the kernel did not give {', '.join(missing)}"
    opts = [(n, o[n]) for n, _ in OPTIONS[kind]]
    opts += [(n, o[n]) for n, _u, default, *_ in optional if n in o and o[n] != default]
    return Leaf(kind, tuple(opts))


def tree_value(tree: Sequence[Qdisc]) -> str:
    """The root qdisc of `tree` as the journal's value (see the module's docstring)."""
    from tuitune.core.host.qdisc import tree_text

    egress = [q for q in tree if q.kind not in ("ingress", "clsact")]
    roots = [q for q in egress if q.parent == "root"]
    if not roots or (len(roots) == 1 and _handle0(roots[0])):
        return DEFAULT
    root = roots[0]
    children = [q for q in egress if q is not root]
    if root.kind == "mq":
        mine = [q for q in children if q.parent.split(":")[0] == root.handle.rstrip(":")]
        if len(mine) != len(children):
            return OTHER + tree_text(egress)
        if all(_handle0(q) for q in mine):
            return "mq"
        leaves = {leaf_of(q) for q in mine}
        if any(_handle0(q) for q in mine) or len(leaves) != 1:
            return OTHER + tree_text(egress)
        (leaf,) = leaves
        return OTHER + tree_text(egress) if isinstance(leaf, str) else f"mq {leaf.text()}"
    if children:
        return OTHER + tree_text(egress)
    leaf = leaf_of(root)
    return OTHER + tree_text(egress) if isinstance(leaf, str) else leaf.text()


def rebuildable(value: str) -> bool:
    return not value.startswith(OTHER)


# ---- typed text as a value -----------------------------------------------------------------


def parse_rate(text: str) -> int:
    """ "1gbit", "100mbit", "125000bps", "800000" (bits/s) -> bits/s, a multiple of 8."""
    m = _RATE_WORD.fullmatch(text.lower())
    if m is None:
        raise SpecError(f"{text[:20]!r} is not a rate (e.g. 1gbit, 100mbit, 800000)")
    bits = int(m.group(1)) * _RATE_MULT[m.group(2)]
    if bits < 8:
        raise SpecError(f"rate {text[:20]} is below 8 bit/s (the kernel counts bytes)")
    return bits // 8 * 8


def parse_size(text: str) -> int:
    m = _SIZE_WORD.fullmatch(text.lower())
    if m is None:
        raise SpecError(f"{text[:20]!r} is not a size (e.g. 1514, 32k)")
    return int(m.group(1)) * _SIZE_MULT[m.group(2)]


def _defaults(kind: str, mtu: int) -> dict[str, int | str]:
    psched_mtu = mtu + ETH_HLEN
    if kind == "fq":
        return {**_FQ_DEFAULTS, "quantum": 2 * psched_mtu, "initial_quantum": 10 * psched_mtu}
    if kind == "fq_codel":
        return {**_FQ_CODEL_DEFAULTS, "quantum": psched_mtu}
    return {}


def parse_leaf(words: Sequence[str], mtu: int, txqueuelen: int) -> Leaf:
    kind, rest = words[0], list(words[1:])
    if kind not in OPTIONS:
        raise SpecError(f"{kind[:20]!r}: tuitune builds {', '.join(LEAVES)} (or mq with one)")
    if len(rest) % 2:
        raise SpecError(f"{kind}: options come in pairs (name value), got {' '.join(rest)}")
    known = dict(OPTIONS[kind])
    optional = {n: (unit, default) for n, unit, default, *_ in OPTIONAL.get(kind, ())}
    got: dict[str, int | str] = {}
    for name, raw in zip(rest[::2], rest[1::2], strict=True):
        if name not in known and name not in optional:
            takes = ", ".join([*known, *optional])
            raise SpecError(f"{kind}: no option {name[:20]!r} (it takes {takes})")
        if name in got:
            raise SpecError(f"{kind}: {name} given twice")
        if name in optional:
            got[name] = _optional_value(name, raw, optional[name][0])
        elif known[name] == RATE:
            got[name] = "unlimited" if raw == "unlimited" and kind == "fq" else parse_rate(raw)
        else:
            got[name] = parse_size(raw)
    values = {**_defaults(kind, mtu), **got}
    if kind == "pfifo":
        values.setdefault("limit", txqueuelen or 1000)
    if kind == "tbf":
        for need in ("rate", "burst"):
            if need not in values:
                raise SpecError("tbf needs a rate and a burst (e.g. tbf rate 1gbit burst 64k)")
        # The kernel keeps the burst in 64 ns ticks: above ~125 Mbit/s a tick is more than a
        # byte, so the value says the bytes the kernel will hold (they read back the same).
        rate = int(values["rate"])
        values["burst"] = tbf_burst(rate, tbf_buffer_ticks(rate, int(values["burst"])))
        # tc asks for a limit or a latency: without one, 50 ms of queue at the rate.
        values.setdefault("limit", int(values["burst"]) + int(values["rate"]) // 8 // 20)
    _bounds(kind, values)
    opts = [(n, values[n]) for n, _ in OPTIONS[kind]]
    opts += [(n, got[n]) for n in optional if n in got and got[n] != optional[n][1]]
    return Leaf(kind, tuple(opts))


_TIME_WORD = re.compile(r"([0-9]{1,12})(ns|us|ms|s)?")
_TIME_NS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}


def _optional_value(name: str, raw: str, unit: str) -> int:
    """fq's optional options as typed: a time (ce_threshold 2ms, horizon 10s, timer_slack
    10us; a bare number is in the kernel's unit) or horizon_drop 0/1."""
    if not unit:
        if raw not in ("0", "1"):
            raise SpecError(f"{name} is 1 (drop past the horizon) or 0 (cap the time)")
        return int(raw)
    m = _TIME_WORD.fullmatch(raw.lower())
    if m is None:
        raise SpecError(f"{name} {raw[:20]!r} is not a time (e.g. 2ms, 500us)")
    ns = int(m.group(1)) * _TIME_NS[m.group(2) or unit]
    value = ns // _TIME_NS[unit]
    if value * _TIME_NS[unit] != ns or not 0 <= value < U32:
        raise SpecError(f"{name} {raw[:20]} is not a whole number of {unit} below 2^32")
    return value


def _bounds(kind: str, values: Mapping[str, int | str]) -> None:
    for name, value in values.items():
        if not isinstance(value, int):
            continue
        top = MAX_RATE_BITS if name in ("rate", "maxrate") else U32
        if value > top:
            raise SpecError(f"{kind} {name} {value} is above the kernel's maximum {top}")
        if value < 1 and name not in ("maxrate", *(n for n, *_ in OPTIONAL.get(kind, ()))):
            raise SpecError(f"{kind} {name} must be at least 1")


def parse_spec(text: str, mtu: int, txqueuelen: int, multiqueue: bool) -> str:
    """The canonical value of typed text; SpecError (one line) when it is none."""
    words = text.split()
    if not words:
        raise SpecError("empty: e.g. default, fq maxrate 1gbit, mq fq, tbf rate 1gbit burst 64k")
    if len(words) > 24 or any(len(w) > 24 for w in words):
        raise SpecError("too long for a qdisc")
    if words == [DEFAULT]:
        return DEFAULT
    if words[0] == "mq":
        if not multiqueue:
            raise SpecError("mq needs a device with more than one tx queue")
        return (
            "mq" if len(words) == 1 else Spec(parse_leaf(words[1:], mtu, txqueuelen), True).text()
        )
    return parse_leaf(words, mtu, txqueuelen).text()


def spec_of(value: str) -> Spec | None:
    """The Spec of a canonical value (None: default). Values are tuitune's own text."""
    words = value.split()
    if words == [DEFAULT]:
        return None
    mq = words[0] == "mq"
    rest = words[1:] if mq else words
    if not rest:
        return Spec(None, True)
    opts: list[tuple[str, int | str]] = []
    for name, raw in zip(rest[1::2], rest[2::2], strict=True):
        opts.append((name, raw if raw == "unlimited" else int(raw)))
    return Spec(Leaf(rest[0], tuple(opts)), mq)


def check_value(value: str) -> Spec | None:
    """The Spec of a value from a file or a journal, checked word by word (ValueError): only
    the kinds, option names and numbers tuitune writes, in its order (None: default)."""
    words = value.split(" ")
    if words == [DEFAULT]:
        return None
    rest = words[1:] if words[0] == "mq" else words
    if not rest:
        return Spec(None, True)
    kind, pairs = rest[0], rest[1:]
    names = [n for n, _ in OPTIONS.get(kind, ())]
    extra = pairs[2 * len(names) :: 2]
    order = [n for n, *_ in OPTIONAL.get(kind, ())]
    in_order = extra == [n for n in order if n in extra]
    if kind not in OPTIONS or pairs[: 2 * len(names) : 2] != names or not in_order:
        raise ValueError(f"not a qdisc tuitune writes: {value[:80]!r}")
    for raw in pairs[1::2]:
        if not (raw == "unlimited" or (raw.isascii() and raw.isdigit() and len(raw) <= 20)):
            raise ValueError(f"not a qdisc tuitune writes: {value[:80]!r}")
    return spec_of(value)


def tc_args(leaf: Leaf) -> list[str]:
    """`tc qdisc` words for `leaf` ("fq limit 10000 ... maxrate 1000000000bit")."""
    out = [leaf.kind]
    optional = {n: unit for n, unit, *_ in OPTIONAL.get(leaf.kind, ())}
    for name, value in leaf.options:
        if value == "unlimited":
            continue  # a new fq has no maxrate; tc has no word for "unlimited"
        if name == "horizon_drop":
            out.append("horizon_drop" if value else "horizon_cap")  # tc's words for it
        elif name in optional:
            out += [name, f"{value}{optional[name]}"]
        else:
            out += [name, f"{value}bit" if dict(OPTIONS[leaf.kind])[name] == RATE else str(value)]
    return out


# ---- a Spec as TCA_OPTIONS -----------------------------------------------------------------


def _u32s(pairs: Iterable[tuple[int, int]]) -> bytes:
    return b"".join(pack_attr(t, struct.pack("=I", v)) for t, v in pairs)


def tbf_buffer_ticks(rate_bits: int, burst: int) -> int:
    """Burst bytes -> the time the kernel keeps (psched ticks), as tc computes it."""
    return round(burst * 8 * 10**9 / rate_bits / PSCHED_TICK_NS)


def options_payload(leaf: Leaf) -> bytes:
    """TCA_OPTIONS for `leaf` (<linux/pkt_sched.h>)."""
    o = dict(leaf.options)
    if leaf.kind == "fq":
        maxrate = o["maxrate"]
        rate = FQ_NO_MAXRATE if maxrate == "unlimited" else int(maxrate) // 8
        # TCA_FQ_PLIMIT 1, FLOW_PLIMIT 2, QUANTUM 3, INITIAL_QUANTUM 4, FLOW_MAX_RATE 7
        payload = _u32s(
            [
                (1, int(o["limit"])),
                (2, int(o["flow_limit"])),
                (3, int(o["quantum"])),
                (4, int(o["initial_quantum"])),
                (7, rate),
            ]
        )
        # Only those set away from the default: the fq is made anew (set_root), so it starts
        # from its defaults, and a kernel before 5.7 (no horizon) is not sent what it lacks.
        for name, _unit, _default, atype, fmt in OPTIONAL["fq"]:
            if name in o:
                payload += pack_attr(atype, struct.pack(f"={fmt}", int(o[name])))
        return payload
    if leaf.kind == "fq_codel":
        # TCA_FQ_CODEL_LIMIT 2, FLOWS 5, QUANTUM 6
        return _u32s([(2, int(o["limit"])), (5, int(o["flows"])), (6, int(o["quantum"]))])
    if leaf.kind == "pfifo":
        return struct.pack("=I", int(o["limit"]))  # struct tc_fifo_qopt, not nested
    if leaf.kind == "tbf":
        bits, burst, limit = int(o["rate"]), int(o["burst"]), int(o["limit"])
        bytes_s = bits // 8
        # struct tc_ratespec: cell_log, linklayer (1: ethernet), overhead, cell_align, mpu, rate
        rspec = struct.pack("=BBHhHI", 0, 1, 0, -1, 0, bytes_s)
        peak = struct.pack("=BBHhHI", 0, 0, 0, 0, 0, 0)
        parms = rspec + peak + struct.pack("=III", limit, tbf_buffer_ticks(bits, burst), 0)
        return pack_attr(1, parms)  # TCA_TBF_PARMS
    return b""


__all__ = ["DEFAULT", "OTHER", "ROOT", "Leaf", "Spec", "SpecError", "tbf_burst"]
