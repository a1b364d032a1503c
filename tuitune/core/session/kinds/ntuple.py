"""An ntuple rule as one journaled setting, keyed by its location (issue 33): `none` or the
rule in `ethtool -N` words (core/host/ntuple.py). Adding a rule is a change from `none`;
removing it, a change to `none`; undo, revert and restore put the location back as it was.
A rule tuitune could not write back exactly ("other: ...") is never changed."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Any

from tuitune.core.host.ntuple import (
    MAX_LOCATION,
    NONE,
    OTHER,
    RuleError,
    delete_rule,
    insert_rule,
    parse_rule,
    read_rule,
    rule_of,
)
from tuitune.core.host.rss import ETHTOOL_GRXRINGS, rxnfc
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
from tuitune.core.session.kinds.rss import show_rss
from tuitune.core.session.kinds.safe import Checker, UnsafeValue
from tuitune.core.session.kinds.showform import ShowDoc, what
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, is_text, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

NTUPLE_OFF = "the driver refused: is ntuple filtering on (ethtool -K IF ntuple on)?"


def _io(acc: KernelPort, key: Key) -> Any:
    et = acc.ethtool(key.ifname or "")
    return getattr(et, "ioctl", None) if et is not None else None


def _location(key: Key) -> int:
    if not (key.name.isascii() and key.name.isdigit() and int(key.name) < MAX_LOCATION):
        raise WriteRefused(key, Unavailable("error", f"{key.name[:20]!r} is not a rule location"))
    return int(key.name)


class NtupleRule(Family):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("ntuple")  # location = "flow-type tcp4 dst-port 5201 action 2"

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        if not (name.isascii() and name.isdigit() and len(name) <= 7):
            raise ProfileError(f"{origin}: a rule location is a number (ethtool -N ... loc N)")

    value_form: Form = "text"
    rows: tuple[str, ...] = ("ntuple",)
    carriers: tuple[str, ...] = ("udev",)  # ethtool -N from a udev rule
    udev_turn: int | None = 2  # after the table and hash fields; a rule names an rx queue

    def udev_lines(self, run: UdevRun, check: Checker) -> UdevLines:
        head = [f"# ntuple rule at location {run.key.name}: {run.was}"]
        if run.value == NONE:
            return [*head, "#   none: nothing to run when the device appears"], None
        rule = check(_exported_rule, run.key, run.value)
        if rule is None:
            return head, None
        words = rule.replace("action drop", "action -1")
        return [
            *head,
            "#   needs ntuple filtering on (ethtool -K $name ntuple on, exported with the "
            "features)",
            f'RUN+="{run.ethtool} -N $name {words} loc {run.key.name}"',
        ], None

    def udev_readback(self, command: str, ifname: str) -> list[UdevRead]:
        """`ethtool -N $name flow-type ... action Q loc L` -> the rule at L (a hash fields'
        `-N ... rx-flow-hash` line is FlowHash's)."""
        args = ethtool_args(command, "-N")
        if args is None or (len(args) == 3 and args[0] == "rx-flow-hash"):
            return []
        if len(args) < 2 or args[-2] != "loc" or not (args[-1].isascii() and args[-1].isdigit()):
            return []
        try:
            value = parse_rule(" ".join(args[:-2]), None)
        except RuleError:
            value = " ".join(args[:-2])  # never what the kernel reads: a difference
        return [UdevRead(Key.ntuple(ifname, int(args[-1])), value)]

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """`rss.ntuple`: location -> rule; a rule tuitune does not carry ("other: ...") is
        left as the host has it."""
        rules = (show_rss(doc) or {}).get("ntuple")
        if rules is None:
            return []
        if not isinstance(rules, dict):
            raise ProfileError(f"rss.ntuple: expected an object, found {what(rules)}")
        out: list[Request] = []
        for loc, rule in rules.items():
            where = f"rss.ntuple.{shown(loc)}"
            if not (loc.isascii() and loc.isdigit() and len(loc) <= 7):
                raise ProfileError(f"{where}: not a rule location")
            if not isinstance(rule, str) or not is_text(rule, 512):
                raise ProfileError(f"{where}: {what(rule)} is not an ntuple rule")
            if rule.startswith("other: "):
                continue
            out.append(Request("ntuple", str(int(loc)), rule, where))
        return out

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        rule = dict(nic.ntuple).get(int(rest)) if rest.isdigit() else None
        if rule is None:
            return f"no ntuple rule at location {rest[:8]}"
        hint = (
            "flow-type tcp4|udp4 [src-ip A] [dst-ip A] [src-port P] [dst-port P] action Q|drop, "
            "or none"
        )
        return EditSpec(Key.ntuple(ifname, int(rest)), rule, hint)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        io = _io(acc, key)
        if io is None:
            return NOT_RECORDED
        try:
            return {key: read_rule(io, _location(key))}
        except WriteRefused as exc:
            return exc.state
        except OSError as exc:
            return Unavailable("unsupported", f"ntuple rules: not supported ({exc.strerror})")

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        current = acc.current(key)
        if current.startswith(OTHER):
            why = f"the rule there is {current.removeprefix(OTHER)}: tuitune leaves it alone"
            raise WriteRefused(key, Unavailable("unsupported", why))
        rings = None
        io = _io(acc, key)
        if io is not None:
            try:
                rings = rxnfc(io, ETHTOOL_GRXRINGS, 0)
            except OSError:
                rings = None
        try:
            return parse_rule(text if isinstance(text, str) else "", rings)
        except RuleError as exc:
            raise InvalidValue(key, f"{key.label}: {exc}") from None

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        io = _io(acc, key)
        if io is None:
            raise WriteRefused(key, NOT_RECORDED)
        loc = _location(key)
        rule = rule_of(value)
        # Drivers refuse a second rule at one location (idpf: EEXIST): the old one goes first;
        # if the new one is then refused, the journal writes the old one back.
        if read_rule(io, loc) != NONE:
            delete_rule(io, loc)
        if rule is not None:
            try:
                insert_rule(io, rule, loc)
            except OSError as exc:
                if exc.errno in (errno.EOPNOTSUPP, errno.EINVAL):
                    why = f"{key.label}: {NTUPLE_OFF} ({exc.strerror})"
                    raise WriteRefused(key, Unavailable("unsupported", why)) from exc
                raise
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} ntuple rule {key.name}"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.ifname, key.name)  # each location is read on its own


def _exported_rule(key: Key, value: str) -> str:
    """The rule as tuitune writes it, at a location (UnsafeValue otherwise)."""
    try:
        if parse_rule(value, None) != value:
            raise UnsafeValue(f"{key.label}: not an ntuple rule as tuitune writes it")
    except RuleError as exc:
        raise UnsafeValue(f"{key.label}: {exc}") from None
    if not (key.name.isascii() and key.name.isdigit() and len(key.name) <= 7):
        raise UnsafeValue(f"{key.label}: not a rule location")
    return value
