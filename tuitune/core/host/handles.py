"""The kernel handles of one host or namespace: a netlink socket and one ethtool handle per
device, opened lazily and closed once.

Why one owner: the reader (every tick) and the access layer (every write) each used to open
their own, so a live screen held two netlink sockets and two ethtool sockets per device, and
forgetting a vanished device in one left a stale handle in the other. Both now take the same
KernelHandles; it is used on its host's kernel thread only (sockets opened there live in the
thread's namespace), so it needs no lock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar


class Closable(Protocol):
    def close(self) -> None: ...


E = TypeVar("E", bound=Closable)


class KernelHandles(Generic[E]):
    """`ethtool`: how to open a device's handle (None: a recorded tree, which has none);
    `live`: whether a netlink socket can be opened (a recorded tree has no kernel)."""

    def __init__(self, live: bool, ethtool: Callable[[str], E] | None) -> None:
        self.live = live
        self._open_ethtool = ethtool
        self._ethtool: dict[str, E] = {}
        self._ipr: Any | None = None
        self._links: Any | None = None

    def iproute(self) -> Any | None:
        if not self.live:
            return None
        if self._ipr is None:
            from pyroute2 import IPRoute  # imported here: recorded trees never need it

            self._ipr = IPRoute()
        return self._ipr

    def link_reader(self) -> Any | None:
        """RTM_GETLINK reads without pyroute2 (rtnl.py): what the live screen reads each
        tick and at each state read; iproute() stays for writes and the interface list."""
        if not self.live:
            return None
        if self._links is None:
            from tuitune.core.host.rtnl import LinkReader

            self._links = LinkReader()
        return self._links

    def ethtool(self, ifname: str) -> E | None:
        et = self._ethtool.get(ifname)
        if et is None and self._open_ethtool is not None:
            et = self._ethtool[ifname] = self._open_ethtool(ifname)
        return et

    def forget(self, ifname: str) -> None:
        """A device went away: a device that takes its name gets a fresh handle."""
        et = self._ethtool.pop(ifname, None)
        if et is not None:
            et.close()

    def close(self) -> None:
        for et in self._ethtool.values():
            et.close()
        self._ethtool.clear()
        if self._ipr is not None:
            self._ipr.close()
            self._ipr = None
        if self._links is not None:
            self._links.close()
            self._links = None
