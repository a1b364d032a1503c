"""RSS: the indirection table, hash function and key (`ethtool -x`), and the header fields
hashed per flow type (`ethtool -n IF rx-flow-hash tcp4`).

Read with the SIOCETHTOOL ioctl (ETHTOOL_GRSSH, ETHTOOL_GRXFH), which every kernel tuitune
supports; the netlink RSS_GET gives the same table, and from Linux 6.12 also lists the
additional contexts (rss_netlink.py). Each slot of the table names the
rx queue a hash value lands on: slots per queue is the share of flows the table gives it.
"""

from __future__ import annotations

import contextlib
import ctypes
import struct
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from tuitune.core.host.ethtool_ioctl import EthtoolIoctl

ETHTOOL_GRXFH = 0x29
ETHTOOL_GRXRINGS = 0x2D
ETHTOOL_GRSSH = 0x46
# struct ethtool_rxfh: cmd, rss_context, indir_size, key_size, hfunc, input_xfrm, rsvd8[2],
# rsvd32, then rss_config[]: indir_size u32 slots followed by key_size bytes.
RXFH = struct.Struct("=IIIIBB2xI")
# struct ethtool_rxnfc's head: cmd, flow_type, data (u64); the rest (a flow spec, rule
# counts) is not read for GRXFH/GRXRINGS, but the kernel copies the whole struct.
_RXNFC_HEAD = struct.Struct("=IIQ")
_RXNFC_SIZE = 192
MAX_SLOTS = 1 << 16  # bounds what a driver may claim (mlx5's largest table is 2048 x 8)
MAX_KEY = 1024
DEFAULT = "default"  # the journal's value of a table as the driver fills it (rss_spec.py)

# ETH_RSS_HASH_* bits, as `ethtool -x` names them.
HFUNCS: Final[tuple[str, ...]] = ("toeplitz", "xor", "crc32")
# Flow types of ETHTOOL_GRXFH that matter to a tuner, as `ethtool -n` names them.
FLOW_TYPES: Final[dict[str, int]] = {"tcp4": 0x01, "udp4": 0x02, "tcp6": 0x05, "udp6": 0x06}
# RXH_* bits and `ethtool -N rx-flow-hash` letters: m L2 dst, v VLAN, t L3 proto, s IP src,
# d IP dst, f L4 bytes 0-1 (src port), n L4 bytes 2-3 (dst port), r discard.
_RXH: Final[tuple[tuple[int, str], ...]] = (
    (1 << 1, "m"),
    (1 << 2, "v"),
    (1 << 3, "t"),
    (1 << 4, "s"),
    (1 << 5, "d"),
    (1 << 6, "f"),
    (1 << 7, "n"),
    (1 << 31, "r"),
)


@dataclass(frozen=True, slots=True)
class RssTable:
    indir: tuple[int, ...]  # slot -> rx queue
    key: bytes
    hfunc: str | None  # "toeplitz", "xor", "crc32"; None when the driver did not say
    rings: int | None = None  # rx rings the device has (ETHTOOL_GRXRINGS)

    def slots_per_queue(self) -> dict[int, int]:
        """rx queue -> slots of the table sending to it (queues with none left out)."""
        return dict(sorted(Counter(self.indir).items()))

    def uncovered(self, queues: int | None = None) -> tuple[int, ...]:
        """The rx queues (of `queues`, else of `rings`) no slot sends to."""
        n = queues if queues is not None else self.rings
        if n is None:
            return ()
        used = set(self.indir)
        return tuple(q for q in range(n) if q not in used)


def hash_fields(data: int) -> str:
    """RXH_* bits as `ethtool -N rx-flow-hash` letters ("sdfn")."""
    return "".join(ch for bit, ch in _RXH if data & bit)


_KNOWN_RXH = sum(bit for bit, _ in _RXH)
ETHTOOL_SRXFH = 0x2A
FIELD_LETTERS = "".join(ch for _, ch in _RXH)


def fields_value(data: int) -> str:
    """The journal's value of GRXFH's answer: the letters, or "other: 0x..." when the driver
    hashes on a field tuitune has no letter for (it could not be written back exactly)."""
    if data & ~_KNOWN_RXH:
        return f"other: {data:#x}"
    return hash_fields(data)


def fields_bits(letters: str) -> int:
    """`ethtool -N rx-flow-hash` letters -> RXH_* bits (ValueError: a letter it has not)."""
    bits = dict((ch, bit) for bit, ch in _RXH)
    if not letters or any(ch not in bits for ch in letters) or len(set(letters)) < len(letters):
        raise ValueError(f"fields are letters of {FIELD_LETTERS}, each once")
    return sum(bits[ch] for ch in letters)


def write_flow_hash(io: EthtoolIoctl, flow_type: int, bits: int) -> None:
    """ETHTOOL_SRXFH: hash `flow_type` on the fields `bits` (RSS context 0)."""
    buf = ctypes.create_string_buffer(_RXNFC_SIZE)
    _RXNFC_HEAD.pack_into(buf, 0, ETHTOOL_SRXFH, flow_type, bits)
    io.call(buf)


def hfunc_name(bits: int) -> str | None:
    names = [n for i, n in enumerate(HFUNCS) if bits & (1 << i)]
    return names[0] if len(names) == 1 else None


def read_rss(io: EthtoolIoctl, context: int = 0) -> RssTable:
    """The table, key and hash function of RSS context `context` (0: the default one; others
    as `ethtool -x IF context N` asks: the same ETHTOOL_GRSSH with rss_context set).
    OSError: the driver has none (or no such context)."""
    buf = ctypes.create_string_buffer(RXFH.size)
    RXFH.pack_into(buf, 0, ETHTOOL_GRSSH, context, 0, 0, 0, 0, 0)
    io.call(buf)
    _, _, n_indir, n_key, _, _, _ = RXFH.unpack_from(buf.raw)
    n_indir, n_key = min(n_indir, MAX_SLOTS), min(n_key, MAX_KEY)
    buf = ctypes.create_string_buffer(RXFH.size + 4 * n_indir + n_key)
    RXFH.pack_into(buf, 0, ETHTOOL_GRSSH, context, n_indir, n_key, 0, 0, 0)
    io.call(buf)
    _, _, got_indir, got_key, hfunc, _, _ = RXFH.unpack_from(buf.raw)
    got_indir, got_key = min(got_indir, n_indir), min(got_key, n_key)
    indir = struct.unpack_from(f"={got_indir}I", buf.raw, RXFH.size)
    key = buf.raw[RXFH.size + 4 * n_indir : RXFH.size + 4 * n_indir + got_key]
    rings = None
    with contextlib.suppress(OSError):  # the table alone still says where slots go
        rings = rxnfc(io, ETHTOOL_GRXRINGS, 0)
    return RssTable(tuple(indir), key, hfunc_name(hfunc), rings)


def rxnfc(io: EthtoolIoctl, cmd: int, flow_type: int) -> int:
    buf = ctypes.create_string_buffer(_RXNFC_SIZE)
    _RXNFC_HEAD.pack_into(buf, 0, cmd, flow_type, 0)
    io.call(buf)
    data: int = _RXNFC_HEAD.unpack_from(buf.raw)[2]
    return data


def read_flow_hash(io: EthtoolIoctl) -> dict[str, str]:
    """Flow type -> the fields hashed ("sdfn"), for the types the driver answers."""
    out = {}
    for name, ft in FLOW_TYPES.items():
        try:
            out[name] = hash_fields(rxnfc(io, ETHTOOL_GRXFH, ft))
        except OSError:
            continue
    return out


def parse_ethtool_x(text: str) -> RssTable:
    """`ethtool -x` output (a capture) as a table; an elided block (`...`) is left out."""
    indir: dict[int, int] = {}
    key = b""
    hfunc = None
    rings = None
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("RX flow hash indirection table"):
            section = "table"
            words = line.split()
            if "with" in words:
                count = words[words.index("with") + 1]
                rings = int(count) if count.isdigit() else None
            continue
        if line.startswith("RSS hash key"):
            section = "key"
            continue
        if line.startswith("RSS hash function"):
            section = "hfunc"
            continue
        if section == "table" and ":" in line:
            start, _, rest = line.partition(":")
            if start.strip().isdigit():
                for i, q in enumerate(rest.split()):
                    indir[int(start) + i] = int(q)
        elif section == "key" and line and line != "Operation not supported":
            key = bytes(int(b, 16) for b in line.split(":"))
        elif section == "hfunc" and line.endswith(": on"):
            hfunc = line.split(":")[0]
    ordered = tuple(indir[i] for i in sorted(indir))
    return RssTable(ordered, key, hfunc, rings)


def table_vs_traffic(
    table: RssTable, packets: Mapping[int, float], queues: Sequence[int] | None = None
) -> list[tuple[int, float, float]]:
    """(queue, share of slots, share of packets) per rx queue, in queue order."""
    slots = table.slots_per_queue()
    total_slots = sum(slots.values()) or 1
    total_pkts = sum(packets.values())
    qs = sorted(set(queues or ()) | set(slots) | set(packets))
    return [
        (
            q,
            slots.get(q, 0) / total_slots,
            (packets.get(q, 0.0) / total_pkts) if total_pkts > 0 else 0.0,
        )
        for q in qs
    ]


def table_value(indir: Sequence[int], rings: int | None) -> str:
    """The canonical value of a table read from a device with `rings` rx rings."""
    n = len(indir)
    if rings and all(indir[i] == i % rings for i in range(n)):
        return DEFAULT
    top = max(indir, default=0) + 1
    for m in range(1, min(top, n) + 1):
        if all(indir[i] == i % m for i in range(n)):
            return f"equal {m}"
    runs: list[str] = []
    i = 0
    while i < n:
        j = i
        while j < n and indir[j] == indir[i]:
            j += 1
        runs.append(f"{indir[i]}*{j - i}" if j - i > 1 else str(indir[i]))
        i = j
    return "table " + " ".join(runs)


MAX_CONTEXTS = 32  # additional contexts read at most (mlx5 and sfc allow a few dozen)


@dataclass(frozen=True, slots=True)
class RssContext:
    """An additional RSS context (1, 2, ...: `ethtool -X IF context new`), which ntuple rules
    steer flows into; read only (tuitune changes context 0's table alone)."""

    id: int
    table: RssTable | None
    why: str | None = None  # the driver's refusal, when the table could not be read

    @property
    def setting(self) -> str | None:
        t = self.table
        return table_value(t.indir, t.rings) if t is not None else None


@dataclass(frozen=True, slots=True)
class RssState:
    """What `show` and the advisor read: the table (None: the driver has none, `why` says
    so) and the hash fields per flow type."""

    table: RssTable | None
    flow_hash: dict[str, str]
    why: str | None = None
    # ntuple rules by location, as the journal's values (core/host/ntuple.py); None: the
    # driver has no ntuple table (veth, virtio) or filtering is off.
    rules: dict[int, str] | None = None
    # The additional RSS contexts, by id: every one the kernel lists (netlink RSS_GET dump,
    # 6.12+), else those the ntuple rules name (the ioctl has no list).
    contexts: tuple[RssContext, ...] = ()
    # Why that is not every context (the kernel cannot list them); None: the list is whole,
    # or the driver has no RSS table at all.
    contexts_why: str | None = None

    @property
    def setting(self) -> str | None:
        """The table as the journal's value (`rss` of a profile), None when there is none."""
        t = self.table
        return table_value(t.indir, t.rings) if t is not None else None


def read_rules(io: EthtoolIoctl) -> tuple[dict[int, str] | None, frozenset[int]]:
    """Every ntuple rule by location (None when the driver has no table), and the additional
    RSS contexts those rules steer into (`ethtool -n`'s "Direct to RSS Context N")."""
    from tuitune.core.host.ntuple import read_rule_context, rule_locations

    rules: dict[int, str] = {}
    contexts: set[int] = set()
    try:
        for loc in rule_locations(io):
            rules[loc], ctx = read_rule_context(io, loc)
            if ctx:
                contexts.add(ctx)
    except OSError:
        return None, frozenset()
    return rules, frozenset(contexts)


def read_contexts(io: EthtoolIoctl, ids: frozenset[int], driver: str) -> tuple[RssContext, ...]:
    """Each additional context's table (ETHTOOL_GRSSH with its rss_context), by id."""
    out = []
    for ctx in sorted(ids)[:MAX_CONTEXTS]:
        try:
            out.append(RssContext(ctx, read_rss(io, ctx)))
        except OSError as exc:
            why = f"RSS context {ctx}: not read from {driver} ({exc.strerror or exc})"
            out.append(RssContext(ctx, None, why))
    return tuple(out)


# Lists every additional context of the device (core/host/rss_netlink.py's list_contexts
# bound to the interface), given the rx rings; OSError when the kernel cannot.
ContextLister = Callable[[int | None], dict[int, RssTable]]
Refusal = Callable[[OSError], str]


def read_state(
    io: EthtoolIoctl,
    driver: str,
    lister: ContextLister | None = None,
    refusal: Refusal | None = None,
) -> RssState:
    """Context 0's table and hash fields, the ntuple rules, and the additional contexts: the
    kernel's list when `lister` gives one, else (it raised) the ones the rules name, and
    `contexts_why` says so in `refusal`'s words. Without a lister (a fake port): the ones the
    rules name, and no claim either way."""
    try:
        table: RssTable | None = read_rss(io)
        why = None
    except OSError as exc:
        table, why = None, f"RSS table: not supported by {driver} ({exc.strerror or exc})"
    if table is not None and not table.indir:
        table, why = None, f"RSS table: {driver} reports none (no RSS, or one queue)"
    rules, named = read_rules(io)
    listed: dict[int, RssTable] = {}
    listed_why: str | None = None
    if table is not None:  # a driver without a table has no contexts to list
        try:
            listed = lister(table.rings) if lister is not None else {}
        except OSError as exc:
            listed_why = refusal(exc) if refusal else "RSS contexts: not listed"
    # A context a rule names but the list lacks is still asked (the ioctl says why not).
    asked = read_contexts(io, frozenset(c for c in named if c not in listed), driver)
    contexts = sorted((*asked, *(RssContext(i, t) for i, t in listed.items())), key=_ctx_id)
    return RssState(
        table, read_flow_hash(io), why, rules, tuple(contexts[:MAX_CONTEXTS]), listed_why
    )


def _ctx_id(c: RssContext) -> int:
    return c.id


def _table_json(t: RssTable | None) -> dict[str, object]:
    return {
        "table": list(t.indir) if t else None,
        "hfunc": t.hfunc if t else None,
        "key": t.key.hex(":") if t else None,
        "rings": t.rings if t else None,
        "slots_per_queue": {str(q): n for q, n in t.slots_per_queue().items()} if t else None,
    }


def state_json(st: RssState) -> dict[str, object]:
    """The `rss` object of `show --json` (docs/json-schema.md)."""
    return {
        **_table_json(st.table),
        "flow_hash": dict(st.flow_hash),
        "unavailable": st.why,
        # What `apply` takes back (docs/profile.md): the journal's values.
        "setting": st.setting,
        "ntuple": None if st.rules is None else {str(k): v for k, v in st.rules.items()},
        # The additional RSS contexts (read only): the same fields as context 0's, by id.
        "contexts": {
            str(c.id): {**_table_json(c.table), "setting": c.setting, "unavailable": c.why}
            for c in st.contexts
        },
        # Why `contexts` is not every context (a kernel before 6.12 cannot list them); null
        # when the list is whole or there is no table.
        "contexts_unlisted": st.contexts_why,
    }
