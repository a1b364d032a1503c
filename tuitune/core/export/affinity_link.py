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

from tuitune.core.host.root import HostRoot

RTMGRP_LINK = 1
RTM_NEWLINK, RTM_DELLINK = 16, 17
IFF_UP, IFF_LOWER_UP = 0x1, 0x10000
IFLA_IFNAME = 3
_NLMSG = struct.Struct("=IHHII")
_IFINFO = struct.Struct("=BxHiII")
_RTA = struct.Struct("=HH")


@dataclass(frozen=True, slots=True)
class LinkEvent:
    ifname: str
    flags: int
    gone: bool


def parse_link_messages(data: bytes) -> Iterator[LinkEvent]:
    """RTM_NEWLINK/DELLINK messages of one netlink datagram."""
    off = 0
    while off + _NLMSG.size <= len(data):
        length, mtype, _, _, _ = _NLMSG.unpack_from(data, off)
        if length < _NLMSG.size or off + length > len(data):
            return
        if mtype in (RTM_NEWLINK, RTM_DELLINK) and length >= _NLMSG.size + _IFINFO.size:
            body = off + _NLMSG.size
            _, _, _, flags, _ = _IFINFO.unpack_from(data, body)
            name = None
            pos, end = body + _IFINFO.size, off + length
            while pos + _RTA.size <= end:
                alen, atype = _RTA.unpack_from(data, pos)
                if alen < _RTA.size:
                    break
                if atype == IFLA_IFNAME:
                    name = data[pos + _RTA.size : pos + alen].split(b"\0", 1)[0].decode()
                pos += (alen + 3) & ~3
            if name is not None:
                yield LinkEvent(name, flags, mtype == RTM_DELLINK)
        off += (length + 3) & ~3


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
