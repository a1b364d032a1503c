"""The RSS indirection table as one journaled setting (issue 33): read with ETHTOOL_GRSSH,
written with ETHTOOL_SRSSH through the device's ethtool handle (core/host/rss_spec.py).

The value is rss_spec's ("default", "equal 2", "table 0*64 1*64"): the whole table, so the
original is restored slot for slot, and "default" is put back as the kernel's reset, which
follows later channel changes again. Key and hash function are left as they are.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tuitune.core.host.rss import (
    DEFAULT,
    ETHTOOL_GRXFH,
    FIELD_LETTERS,
    FLOW_TYPES,
    MAX_SLOTS,
    RssTable,
    fields_bits,
    fields_value,
    read_rss,
    rxnfc,
    state_json,
    table_value,
    write_flow_hash,
)
from tuitune.core.host.rss_spec import (
    RssSpecError,
    indir_of,
    parse_rss,
    weight_fill,
    write_indir,
)
from tuitune.core.session.kinds.base import (
    NOT_RECORDED,
    Family,
    Form,
    GroupRead,
    ProfileField,
    UdevLines,
    UdevRead,
    UdevRun,
    WriteRefused,
    ethtool_args,
)
from tuitune.core.session.kinds.edit import PICK_INTERFACE, EditContext, EditSpec
from tuitune.core.session.kinds.safe import Checker, UnsafeValue
from tuitune.core.session.kinds.showform import ShowDoc, ShowPart, ShowSource, section, what
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, is_text, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort


def _table(acc: KernelPort, key: Key) -> tuple[Any, RssTable] | Unavailable:
    """(the ioctl handle, the table now) or why there is none."""
    et = acc.ethtool(key.ifname or "")
    io = getattr(et, "ioctl", None)
    if et is None or io is None:
        return NOT_RECORDED
    driver = getattr(et, "driver_label", None) or "this driver"
    try:
        table = read_rss(io)
    except OSError as exc:
        why = f"RSS table: not supported by {driver} ({exc.strerror or exc})"
        return Unavailable("unsupported", why)
    if not table.indir:
        return Unavailable("unsupported", f"RSS table: {driver} reports none")
    return io, table


def _rings(t: RssTable) -> int:
    return t.rings or (max(t.indir) + 1)


def _defaults(size: int, rings: int) -> tuple[tuple[int, ...], ...]:
    """The tables drivers fill by default: slot i -> i % rings (ethtool's core, mlx5, ixgbe,
    virtio) or equal contiguous blocks (igb)."""
    return (tuple(i % rings for i in range(size)), tuple(weight_fill([1] * rings, size)))


class RssIndirection(Family):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("rss", table=False)

    value_form: Form = "text"
    rows: tuple[str, ...] = ("rss",)
    carriers: tuple[str, ...] = ("udev",)  # ethtool -X from a udev rule
    udev_turn: int | None = 0  # the table, its hash fields, then the rules

    def udev_lines(self, run: UdevRun, check: Checker) -> UdevLines:
        """`ethtool -X`, or left out with the reason when ethtool cannot make the table."""
        head = [f"# RSS table, after ethtool -L (a channel change resets it): {run.was}"]
        args = check(rss_args, run.key, run.value)
        if args is None:
            return ([], NOT_WEIGHTS) if run.value.startswith("table") else ([], None)
        if args == [DEFAULT]:
            return [*head, "#   the driver's default: nothing to run when the device appears"], None
        return [*head, f'RUN+="{run.ethtool} -X $name {" ".join(args)}"'], None

    def udev_readback(self, command: str, ifname: str) -> list[UdevRead]:
        """`ethtool -X $name equal 2 | weight 16 16 | default` -> the table's canonical value."""
        args = ethtool_args(command, "-X")
        if args is None:
            return []
        if args == [DEFAULT] or (len(args) == 2 and args[0] == "equal" and args[1].isdigit()):
            return [UdevRead(Key.rss(ifname), " ".join(args))]
        if args[:1] == ["weight"] and all(w.isascii() and w.isdigit() for w in args[1:]):
            weights = [int(w) for w in args[1:]]
            if not 0 < sum(weights) <= MAX_SLOTS:
                return []
            # tuitune writes each queue's slot count as its weight: the table is their runs.
            indir = [q for q, n in enumerate(weights) for _ in range(n)]
            return [UdevRead(Key.rss(ifname), table_value(indir, None))]
        return []

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """`rss`: the table, its hash fields and ntuple rules as read (host/rss.py's
        state_json), for the hash fields' and the rules' kinds too."""
        if src.rss is None or src.nic is None:
            return {}
        return {("rss",): state_json(src.rss)}

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """`rss.setting`, the table as the journal holds it; the rest of `rss` reports."""
        setting = (show_rss(doc) or {}).get("setting")
        if setting is None:
            return []
        if not isinstance(setting, str) or not is_text(setting):
            raise ProfileError(f"rss.setting: {what(setting)} is not an RSS table")
        return [Request("rss", "", setting, "rss.setting")]

    def row_key(self, key: Key) -> str:
        return "rss:table"

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        if isinstance(nic.rss, Unavailable):
            return nic.rss.reason
        hint = "default, equal N, weight W0 W1 ... or table Q*N ... (ethtool -X's words)"
        return EditSpec(Key.rss(ifname), nic.rss, hint)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        got = _table(acc, key)
        if isinstance(got, Unavailable):
            return got
        _, t = got
        return {key: table_value(t.indir, t.rings)}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        got = _table(acc, key)
        if isinstance(got, Unavailable):
            raise WriteRefused(key, got)
        _, t = got
        try:
            return parse_rss(text if isinstance(text, str) else "", len(t.indir), _rings(t))
        except RssSpecError as exc:
            raise InvalidValue(key, f"{key.label}: {exc}") from None

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        got = _table(acc, key)
        if isinstance(got, Unavailable):
            raise WriteRefused(key, got)
        io, t = got
        try:
            indir = indir_of(value, len(t.indir), _rings(t))
        except RssSpecError as exc:
            # An original taken before a channel change may name a queue that is gone.
            raise WriteRefused(key, Unavailable("error", f"{key.label}: {exc}")) from None
        if indir is None or indir in _defaults(len(t.indir), _rings(t)):
            # Try the driver's own default first: where it gives these slots, the table is
            # left unconfigured, as the kernel had it (it follows later channel changes).
            write_indir(io, None)
            if indir is None or read_rss(io).indir == indir:
                return ()
        write_indir(io, indir)
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} RSS table"


class FlowHash(Family):
    """The header fields hashed per flow type (`ethtool -n IF rx-flow-hash tcp4`): one key
    per flow type the driver answers, all read together (ETHTOOL_GRXFH), written one at a
    time (ETHTOOL_SRXFH). The value is the letters ("sdfn"); a driver hashing on a field
    tuitune has no letter for reads "other: 0x..." and is left alone."""

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("rx_flow_hash")  # tcp4 = "sdfn" (ethtool -N IF rx-flow-hash tcp4 sdfn)

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        if name not in FLOW_TYPES:
            raise ProfileError(f"{origin}: a flow type ({', '.join(FLOW_TYPES)})")

    value_form: Form = "text"
    rows: tuple[str, ...] = ("flow_hash",)
    carriers: tuple[str, ...] = ("udev",)  # ethtool -N from a udev rule
    udev_turn: int | None = 1

    def udev_lines(self, run: UdevRun, check: Checker) -> UdevLines:
        head = [f"# RSS hash fields of {run.key.name}: {run.was}"]
        fields = check(_hash_fields, run.key, run.value)
        if fields is None:
            return head, None
        cmd = f"{run.ethtool} -N $name rx-flow-hash {run.key.name} {fields}"
        return [*head, f'RUN+="{cmd}"'], None

    def udev_readback(self, command: str, ifname: str) -> list[UdevRead]:
        """`ethtool -N $name rx-flow-hash tcp4 sdfn` -> the fields of tcp4."""
        args = ethtool_args(command, "-N")
        if args is not None and len(args) == 3 and args[0] == "rx-flow-hash":
            return [UdevRead(Key.flow_hash(ifname, args[1]), args[2])]
        return []

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """`rss.flow_hash`: flow type -> fields ("" hashes on nothing: nothing to set)."""
        hashed = (show_rss(doc) or {}).get("flow_hash")
        if hashed is None:
            return []
        if not isinstance(hashed, dict):
            raise ProfileError(f"rss.flow_hash: expected an object, found {what(hashed)}")
        out: list[Request] = []
        for flow, fields in hashed.items():
            where = f"rss.flow_hash.{shown(flow)}"
            if flow not in FLOW_TYPES:
                raise ProfileError(f"{where}: not a flow type ({', '.join(FLOW_TYPES)})")
            if not isinstance(fields, str) or not is_text(fields, 16):
                raise ProfileError(f"{where}: {what(fields)} is not hash fields")
            if fields:
                out.append(Request("flow_hash", flow, fields, where))
        return out

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        now = dict(nic.flow_hash).get(rest)
        if now is None:
            return f"rx-flow-hash {rest}: not reported by the driver"
        hint = "letters of ethtool -N rx-flow-hash: s d (addresses) f n (ports), t v m"
        return EditSpec(Key.flow_hash(ifname, rest), now, hint)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        ifname = key.ifname or ""
        io = getattr(acc.ethtool(ifname), "ioctl", None)
        if io is None:
            return NOT_RECORDED
        out: dict[Key, str] = {}
        for name, ft in FLOW_TYPES.items():
            try:
                out[Key.flow_hash(ifname, name)] = fields_value(rxnfc(io, ETHTOOL_GRXFH, ft))
            except OSError:
                continue  # a flow type the driver does not answer is not a setting
        if not out:
            return Unavailable("unsupported", f"{ifname} rx-flow-hash: not reported")
        return out

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        current = acc.current(key)
        if current.startswith("other: "):
            why = f"hashed on fields tuitune has no letter for ({current[7:]}): left alone"
            raise WriteRefused(key, Unavailable("unsupported", why))
        letters = text.strip() if isinstance(text, str) else ""
        try:
            bits = fields_bits(letters)
        except ValueError as exc:
            raise InvalidValue(key, f"{key.label}: {exc} (e.g. sdfn)") from None
        return fields_value(bits)  # canonical order: the kernel's bit order

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        io = getattr(acc.ethtool(key.ifname or ""), "ioctl", None)
        if io is None or key.name not in FLOW_TYPES:
            raise WriteRefused(key, NOT_RECORDED)
        write_flow_hash(io, FLOW_TYPES[key.name], fields_bits(value))
        return ()

    def absent(self, key: Key) -> Unavailable:
        return Unavailable("unsupported", f"{key.label}: the driver does not report it")

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} rx-flow-hash {key.name}"


__all__ = ["FIELD_LETTERS", "FlowHash", "RssIndirection"]


def show_rss(doc: ShowDoc) -> dict[str, Any] | None:
    """The document's `rss` object when an interface is applied (its table, hash fields and
    ntuple rules are the interface's), or None."""
    return section(doc.doc.get("rss"), "rss") if doc.iface is not None else None


# ---- udev lines: `ethtool -X` and `-N rx-flow-hash`, values re-checked word by word -----------

_RUN = r"[0-9]{1,5}(\*[0-9]{1,5})?"
_RSS = re.compile(rf"default|equal [0-9]{{1,5}}|table {_RUN}( {_RUN}){{0,4095}}")
NOT_WEIGHTS = (
    "not exported: ethtool -X takes equal N or weights (contiguous runs of slots), and this "
    "table is neither; tuitune keeps it for the session"
)


def rss_args(key: Key, value: str) -> list[str] | None:
    """`ethtool -X` words giving exactly the table `value` (None: ethtool cannot make it);
    UnsafeValue when the value is not one tuitune writes. `ethtool -X` takes `equal N`,
    `weight W0 W1 ...` (contiguous runs of slots, ethtool.c's fill_indir_table) or
    `default`."""
    if not _RSS.fullmatch(value):
        raise UnsafeValue(f"{key.label}: not an RSS table as tuitune writes it")
    words = value.split()
    if words[0] in (DEFAULT, "equal"):
        return words
    indir: list[int] = []
    for run in words[1:]:
        q, _, n = run.partition("*")
        indir += [int(q)] * int(n or 1)
        if len(indir) > MAX_SLOTS:
            raise UnsafeValue(f"{key.label}: more slots than any driver has")
    # weights: queue j gets its run; a queue never sent to, weight 0. Exact only when each
    # queue holds one run and the runs ascend (what fill_indir_table makes).
    runs = [q for i, q in enumerate(indir) if i == 0 or indir[i - 1] != q]
    if runs != sorted(set(runs)):
        return None
    return ["weight", *(str(indir.count(q)) for q in range(max(runs) + 1))]


def _hash_fields(key: Key, value: str) -> str:
    if key.name not in FLOW_TYPES or not re.fullmatch(f"[{FIELD_LETTERS}]{{1,8}}", value):
        raise UnsafeValue(f"{key.label}: not hash fields as tuitune writes them")
    return value
