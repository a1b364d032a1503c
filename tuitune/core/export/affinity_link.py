"""Following an interface's link for `tuitune apply-affinity --follow`: netlink link events,
parsed without pyroute2 (the unit runs at boot, one small socket), and the rule for when to
apply again (admin up or carrier up: drivers request their IRQs when the device opens).
Split from affinity.py; that module re-exports these names."""

from __future__ import annotations

import select
import socket
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from tuitune.core.host.nlmsg import iter_attrs, messages
from tuitune.core.host.root import HostRoot

RTMGRP_LINK = 1
RTM_NEWLINK, RTM_DELLINK = 16, 17
IFF_UP, IFF_LOWER_UP = 0x1, 0x10000
IFLA_IFNAME = 3
_IFINFO = struct.Struct("=BxHiII")


@dataclass(frozen=True, slots=True)
class LinkEvent:
    ifname: str
    flags: int
    gone: bool


def parse_link_messages(data: bytes) -> Iterator[LinkEvent]:
    """RTM_NEWLINK/DELLINK messages of one netlink datagram (framing: core/host/nlmsg.py)."""
    for mtype, _flags, _seq, body in messages(data):
        if mtype not in (RTM_NEWLINK, RTM_DELLINK) or len(body) < _IFINFO.size:
            continue
        _, _, _, flags, _ = _IFINFO.unpack_from(body, 0)
        name = None
        for atype, payload in iter_attrs(body, _IFINFO.size):
            if atype == IFLA_IFNAME:
                name = payload.split(b"\0", 1)[0].decode()
        if name is not None:
            yield LinkEvent(name, flags, mtype == RTM_DELLINK)


def open_link_socket() -> socket.socket:
    """A netlink socket that hears link changes (call it inside the interface's namespace)."""
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, 0)
    sock.bind((0, RTMGRP_LINK))
    return sock


def link_events(sock: socket.socket, stop: Callable[[], bool]) -> Iterator[LinkEvent]:
    while not stop():
        ready, _, _ = select.select([sock], [], [], 1.0)
        if not ready:
            continue
        try:
            data = sock.recv(65536)
        except OSError:
            continue  # ENOBUFS after a burst: the next event still tells the state
        yield from parse_link_messages(data)


def follow(
    events: Iterator[LinkEvent],
    ifname: str,
    reapply: Callable[[], object],
    *,
    flags: int = 0,
) -> str:
    """Call `reapply` each time `ifname` comes up (admin up or carrier up) until it goes
    away; returns why it stopped. `flags` is the state known at the start."""
    for ev in events:
        if ev.ifname != ifname:
            continue
        if ev.gone:
            return f"{ifname} is gone"
        rising = ev.flags & ~flags & (IFF_UP | IFF_LOWER_UP)
        flags = ev.flags
        if rising:
            reapply()
    return "stopped"


def link_flags(root: HostRoot, ifname: str) -> int:
    try:
        return int(root.read_sys(f"class/net/{ifname}/flags"), 16) | (
            IFF_LOWER_UP if root.read_sys(f"class/net/{ifname}/carrier").strip() == "1" else 0
        )
    except (OSError, ValueError):
        return 0
