"""The link's MTU and txqueuelen: rtnetlink on a live host, sysfs on a recorded tree."""

from __future__ import annotations

import errno
import os
from dataclasses import replace
from typing import TYPE_CHECKING

from tuitune.core.host.root import read_int
from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import (
    Family,
    Form,
    GroupRead,
    ProfileField,
    Values,
    WriteRefused,
)
from tuitune.core.session.kinds.edit import PICK_INTERFACE, EditContext, EditSpec
from tuitune.core.session.kinds.showform import ShowDoc, opt_whole
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import Request
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import NicState

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

MTU_MIN_IPV4 = 68
_SHOW_FIELDS: dict[Kind, str] = {"mtu": "mtu", "txqueuelen": "txqlen"}  # interface.link's


class Link(Family):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField(kind, table=False)  # mtu = 9000, txqueuelen = 10000

    value_form: Form = "count"

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        return read_link(acc, key.ifname or "")

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        link = read_attrs(acc, key.ifname or "")
        if isinstance(link, Unavailable):
            raise WriteRefused(key, link)
        if key.kind == "txqueuelen":
            return v.parse_count(key, text, maximum=v.U32_MAX)
        low = link["min_mtu"] or MTU_MIN_IPV4
        return v.parse_count(key, text, minimum=low, maximum=link["max_mtu"] or v.U32_MAX)

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        _write_link(acc, key, int(value))
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} {key.kind}"

    def group(self, key: Key) -> tuple[object, ...]:
        return ("link", key.ifname)

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """`interface.link`'s mtu and txqlen (its other fields report the link)."""
        out: list[Request] = []
        if doc.link is None:
            return out
        name = _SHOW_FIELDS[kind]
        value = opt_whole(doc.link.get(name), f"interface.link.{name}")
        if value is not None:
            out.append(Request(kind, "", str(value), f"interface.link.{name}"))
        return out

    def row_key(self, key: Key) -> str:
        return f"link:{key.kind}"

    rows: tuple[str, ...] = ("link",)

    def sysfs_attr(self, key: Key) -> str | None:
        return "mtu" if key.kind == "mtu" else "tx_queue_len"

    def resets_link(self, key: Key) -> bool:
        return key.kind == "mtu"  # drivers reset the device for a new MTU; not for txqueuelen

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        if rest == "mtu":
            lo, hi = nic.link.min_mtu, nic.link.max_mtu
            hint = f"{lo}..{hi} bytes" if lo is not None and hi is not None else "bytes"
            return EditSpec(Key.mtu(ifname), str(nic.link.mtu), hint)
        if rest == "txqueuelen":
            return EditSpec(Key.txqueuelen(ifname), str(nic.link.txqlen), "packets, 0..")
        return f"{rest} is read-only"

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        if key.kind == "mtu":
            return replace(nic, link=replace(nic.link, mtu=int(value)))
        return replace(nic, link=replace(nic.link, txqlen=int(value)))


def read_attrs(acc: KernelPort, ifname: str) -> dict[str, int | None] | Unavailable:
    """mtu, min_mtu, max_mtu, txqlen, index: rtnetlink on a live host, sysfs on a tree."""
    if acc.root.live:
        from pyroute2.netlink.exceptions import NetlinkError

        try:
            msg = acc.iproute().link("get", ifname=ifname)[0]
        except NetlinkError as exc:
            if exc.code == errno.ENODEV:
                return Unavailable("missing", f"{ifname}: no such interface")
            return Unavailable("error", f"{ifname}: {exc}")
        return {
            "mtu": msg.get("mtu"),
            "min_mtu": msg.get("min_mtu") or None,
            "max_mtu": msg.get("max_mtu") or None,  # 0: no maximum reported (lo)
            "txqlen": msg.get("txqlen"),
            "index": int(msg["index"]),
        }
    base = f"class/net/{ifname}"
    mtu = read_int(acc.root, acc.root.sys_path(f"{base}/mtu"), f"{ifname} mtu")
    if isinstance(mtu, Unavailable):
        return mtu
    txq = read_int(acc.root, acc.root.sys_path(f"{base}/tx_queue_len"), f"{ifname} txqueuelen")
    return {
        "mtu": mtu,
        "min_mtu": None,
        "max_mtu": None,
        "txqlen": txq if isinstance(txq, int) else None,
        "index": None,
    }


def read_link(acc: KernelPort, ifname: str) -> GroupRead:
    link = read_attrs(acc, ifname)
    if isinstance(link, Unavailable):
        return link
    out: Values = {}
    if link["mtu"] is not None:
        out[Key.mtu(ifname)] = str(link["mtu"])
    if link["txqlen"] is not None:
        out[Key.txqueuelen(ifname)] = str(link["txqlen"])
    return out


def _write_link(acc: KernelPort, key: Key, value: int) -> None:
    attr = "mtu" if key.kind == "mtu" else "txqlen"
    if not acc.root.live:
        sysfs = "mtu" if key.kind == "mtu" else "tx_queue_len"
        acc.writer(acc.root.sys_path(f"class/net/{key.ifname}/{sysfs}"), str(value))
        return
    from pyroute2.netlink.exceptions import NetlinkError

    ipr = acc.iproute()
    try:
        index = ipr.link_lookup(ifname=key.ifname)
        if not index:
            raise OSError(errno.ENODEV, "no such interface")
        ipr.link("set", index=index[0], **{attr: value})
    except NetlinkError as exc:
        raise OSError(exc.code, os.strerror(exc.code)) from exc
