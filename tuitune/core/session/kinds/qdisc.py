"""The interface's root qdisc as one journaled setting (issue 33): read through pyroute2's tc
dump, written with hand-made RTM_DELQDISC/RTM_NEWQDISC (core/host/qdisc_write.py).

The value is qdisc_spec's line ("default", "fq ... maxrate 1000000000", "mq fq ...", "tbf
rate ... burst ... limit ..."): the original is that line, so restore deletes tuitune's root
(the kernel attaches its default again: mq over default_qdisc, pfifo_fast, noqueue) or builds
the original again. A tree tuitune could not build again ("other: ...": classes, an unknown
kind) is shown but never changed: its original could not be put back.
"""

from __future__ import annotations

import errno
import re
import socket
from typing import TYPE_CHECKING

from tuitune.core.host.netdev import queue_names
from tuitune.core.host.qdisc import read_qdiscs
from tuitune.core.host.qdisc_spec import (
    LEAVES,
    OPTIONAL,
    OPTIONS,
    OTHER,
    RATE,
    Leaf,
    SpecError,
    check_value,
    parse_spec,
    rebuildable,
    spec_of,
    tc_args,
    tree_value,
)
from tuitune.core.host.qdisc_write import NetlinkSender, set_root
from tuitune.core.session.kinds import safe
from tuitune.core.session.kinds.base import (
    Family,
    Form,
    GroupRead,
    ProfileField,
    UdevLines,
    UdevRead,
    UdevRun,
    WriteRefused,
)
from tuitune.core.session.kinds.edit import PICK_INTERFACE, EditContext, EditSpec
from tuitune.core.session.kinds.link import read_attrs
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    ShowPart,
    ShowSource,
    jsonable,
    refusal,
    what,
)
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, is_text
from tuitune.core.session.settings import Key, Kind
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

NOT_LIVE = Unavailable("missing", "root qdisc: only read from a live host, not a recorded tree")


class RootQdisc(Family):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("qdisc", table=False)

    value_form: Form = "text"
    rows: tuple[str, ...] = ("qdisc",)
    carriers: tuple[str, ...] = ("udev",)  # tc from a udev rule
    udev_turn: int | None = 3  # after every ethtool command: see udev_lines

    def udev_lines(self, run: UdevRun, check: safe.Checker) -> UdevLines:
        """The root qdisc by `tc`, after every ethtool command (RUN programs run in order):
        an mq gets one child per tx queue that exists once `ethtool -L` has run, so the
        children are made by a loop over the queues, not by a count taken now. `$$` is
        udev's `$`."""
        check(safe.abs_path, "tc", run.tc)
        head = [f"# root qdisc: {run.was}"]
        if check(safe.qdisc, run.key, run.value) is None and run.value != "default":
            return head, None
        spec = spec_of(run.value)
        if spec is None:
            return [*head, "#   the kernel's default: nothing to run when the device appears"], None
        if not spec.mq:
            assert spec.leaf is not None
            return [*head, f'RUN+="{run.tc} qdisc replace dev $name root {_tc(spec.leaf)}"'], None
        lines = [*head, f'RUN+="{run.tc} qdisc replace dev $name root handle 1: mq"']
        if spec.leaf is not None:
            # tc reads the parent's minor number in hex: queue tx-9 is 1:a.
            each = f"{run.tc} qdisc replace dev $name parent 1:$$(printf %%x $$((n + 1))) "
            loop = (
                "for q in /sys/class/net/$name/queues/tx-*; do n=$${q##*-}; "
                f"{each}{_tc(spec.leaf)}; done"
            )
            lines.append(f"RUN+=\"/bin/sh -c '{loop}'\"")
        return lines, None

    def udev_readback(self, command: str, ifname: str) -> list[UdevRead]:
        """The root qdisc of one RUN of udev_lines; an mq's children line completes the `mq`
        line before it."""
        child = _CHILD.search(command)
        if child is not None and "qdisc replace dev $name parent" in command:
            leaf = tc_leaf(child.group(1).split())
            return [UdevRead(Key.qdisc(ifname), f"mq {leaf}", after="mq")] if leaf else []
        words = command.split()
        if len(words) < 7 or not words[0].endswith("/tc") or words[1:6] != [
            "qdisc", "replace", "dev", "$name", "root",
        ]:  # fmt: skip
            return []
        rest = words[6:]
        if rest == ["handle", "1:", "mq"]:
            return [UdevRead(Key.qdisc(ifname), "mq")]
        leaf = tc_leaf(rest)
        if leaf is None:
            return []
        try:
            check_value(leaf)
        except ValueError:
            return []
        return [UdevRead(Key.qdisc(ifname), leaf)]

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """`qdiscs`: the interface's whole tree as read (`interface.qdisc`, the root's line,
        is the interface's own field)."""
        if src.qdiscs is None or src.nic is None:
            return {}
        return {("qdiscs",): jsonable(src.qdiscs)}

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """`interface.qdisc`, the root qdisc's line (the journal's value, checked in full
        when applied); `qdiscs` reports the tree."""
        qdisc = doc.iface.get("qdisc") if doc.iface is not None else None
        if qdisc is None:
            return []
        if isinstance(qdisc, dict):
            refusal(qdisc, "interface.qdisc")  # not read on that host: nothing to set
            return []
        if not isinstance(qdisc, str) or not is_text(qdisc, 4096):
            raise ProfileError(f"interface.qdisc: {what(qdisc)} is not a qdisc line")
        if qdisc.startswith("other: "):  # a tree tuitune cannot rebuild: left alone
            return []
        return [Request("qdisc", "", qdisc, "interface.qdisc")]

    def row_key(self, key: Key) -> str:
        return "qdisc:root"

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        if isinstance(nic.qdisc, Unavailable):
            return nic.qdisc.reason
        if nic.qdisc.startswith("other: "):
            return f"the root qdisc is {nic.qdisc[7:]}: tuitune could not build it again exactly"
        multi = (nic.link.num_tx_queues or 0) > 1
        hint = (
            f"default, {'mq, mq LEAF or ' if multi else ''}LEAF: {', '.join(LEAVES)} with "
            "options (fq maxrate 1gbit; tbf rate 1gbit burst 64k); a kind this kernel lacks "
            "is refused"
        )
        return EditSpec(Key.qdisc(ifname), nic.qdisc, hint)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        ifname = key.ifname or ""
        ipr = acc.iproute()
        if ipr is None or not acc.root.live:
            return NOT_LIVE
        try:
            tree = read_qdiscs(ipr, socket.if_nametoindex(ifname))
        except OSError as exc:
            if exc.errno in (errno.ENODEV, errno.ENXIO):
                return Unavailable("missing", f"{ifname}: no such interface")
            return Unavailable("error", f"{ifname} qdisc: {exc.strerror or exc}")
        return {key: tree_value(tree)}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        current = acc.current(key)
        if not rebuildable(current):
            why = (
                f"the root qdisc is {current.removeprefix(OTHER)}: tuitune could not build it "
                "again exactly, so it leaves it alone"
            )
            raise WriteRefused(key, Unavailable("unsupported", why))
        link = read_attrs(acc, key.ifname or "")
        if isinstance(link, Unavailable):
            raise WriteRefused(key, link)
        _, tx = queue_names(acc.root, key.ifname or "")
        try:
            return parse_spec(
                text if isinstance(text, str) else "",
                link["mtu"] or 1500,
                link["txqlen"] or 0,
                multiqueue=len(tx) > 1,
            )
        except SpecError as exc:
            raise InvalidValue(key, f"{key.label}: {exc}") from None

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        ifname = key.ifname or ""
        spec = spec_of(value)
        _, tx = queue_names(acc.root, ifname)
        sender = NetlinkSender()
        try:
            set_root(sender, socket.if_nametoindex(ifname), spec, len(tx))
        except OSError as exc:
            if exc.errno == errno.ENOENT and spec is not None and spec.leaf is not None:
                # RTM_NEWQDISC's ENOENT: the kind is neither built in nor loadable.
                kind = spec.leaf.kind
                why = f"this kernel has no {kind} qdisc (sch_{kind} not built or not loadable)"
                raise WriteRefused(key, Unavailable("unsupported", why)) from exc
            raise
        finally:
            sender.close()
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} root qdisc"

    def canonical(self, key: Key, text: str) -> str:
        return " ".join(text.split())


def _tc(leaf: Leaf) -> str:
    return " ".join(tc_args(leaf))


_CHILD = re.compile(r"\+ 1\)\)\) ([a-z_]+(?: [a-z_]+(?: [0-9]+(?:bit|us|ns)?)?)*); done")


def tc_leaf(words: list[str]) -> str | None:
    """`tc qdisc` words of one leaf (tc_args) -> its canonical text, or None."""
    if not words or words[0] not in OPTIONS:
        return None
    flags = {"horizon_drop": ["horizon_drop", "1"], "horizon_cap": ["horizon_drop", "0"]}
    words = [words[0], *(w for word in words[1:] for w in flags.get(word, [word]))]
    kind, given = words[0], dict(zip(words[1::2], words[2::2], strict=False))
    opts: list[tuple[str, int | str]] = []
    for name, form in OPTIONS[kind]:
        raw = given.get(name)
        if raw is None:
            if name != "maxrate":
                return None
            opts.append((name, "unlimited"))  # tc_args leaves out an unlimited maxrate
            continue
        raw = raw.removesuffix("bit") if form == RATE else raw
        if not (raw.isascii() and raw.isdigit()):
            return None
        opts.append((name, int(raw)))
    for name, unit, _default, *_ in OPTIONAL.get(kind, ()):
        raw = given.get(name)
        if raw is not None:
            raw = raw.removesuffix(unit) if unit else raw
            if not (raw.isascii() and raw.isdigit()):
                return None
            opts.append((name, int(raw)))
    return Leaf(kind, tuple(opts)).text()
