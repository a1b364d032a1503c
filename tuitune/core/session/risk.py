"""Which changes can cut the user off, and which interface carries their SSH session.

A change is applied on trial (Journal.apply_trial) when it can drop the connection tuitune is
used through: anything that resets or reshapes a link (MTU, channels, rings, pause: drivers
reset the device for these) on any interface, since the SSH path is not always known (sudo
drops SSH_CONNECTION from the environment by default), and every change on the interface that
carries the SSH session, which comes from SSH_CONNECTION ("client port server port") and the
routing table: the interface of the route to the client. SMT, which offlines CPUs, is always
on trial. Which kinds reset a link or are always on trial, their handlers say (kinds/base.py).
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping

from tuitune.core.host.root import HostRoot
from tuitune.core.session.settings import Key

_RTF_UP = 0x1


def resets_link(key: Key) -> bool:
    """Whether the driver resets the link to change `key` (MTU, channels, rings, pause)."""
    from tuitune.core.session.kinds.table import handler  # loaded with the first change

    return handler(key.kind).resets_link(key)


def is_risky(key: Key, ssh_iface: str | None) -> bool:
    """Whether a change to `key` should be applied on trial."""
    from tuitune.core.session.kinds.table import handler  # loaded with the first change

    if resets_link(key) or handler(key.kind).always_on_trial:
        return True
    return ssh_iface is not None and key.ifname == ssh_iface


def needs_consent(key: Key, root: HostRoot | None = None) -> str | None:
    """The question to ask before changing `key`, or None (its handler's `consent`: another
    user's process, which root may change, but the user says so first; the headless `apply`
    needs --other-users). The journal's own check (proc_affinity.py) refuses it until
    `Session.agree(key)`."""
    from tuitune.core.session.kinds.table import handler  # loaded with the first change

    return handler(key.kind).consent(key, root or HostRoot())


def ssh_client(env: Mapping[str, str] | None = None) -> str | None:
    """The SSH client's address from SSH_CONNECTION, or None when not under SSH."""
    fields = (os.environ if env is None else env).get("SSH_CONNECTION", "").split()
    if len(fields) != 4:
        return None
    try:
        addr = ipaddress.ip_address(fields[0].split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(addr, ipaddress.IPv6Address) and addr.ipv4_mapped is not None:
        addr = addr.ipv4_mapped
    return str(addr)


def _route4(table: str, addr: ipaddress.IPv4Address) -> str | None:
    """Longest-prefix match in /proc/net/route (hex fields are in host byte order)."""
    best: tuple[int, int, str] | None = None  # (prefix length, -metric, iface)
    ip = int.from_bytes(addr.packed, "little")
    for line in table.splitlines()[1:]:
        f = line.split()
        if len(f) < 8:
            continue
        try:
            dest, flags, metric, mask = int(f[1], 16), int(f[3], 16), int(f[6]), int(f[7], 16)
        except ValueError:
            continue
        if not flags & _RTF_UP or ip & mask != dest:
            continue
        cand = (mask.bit_count(), -metric, f[0])
        if best is None or cand[:2] > best[:2]:
            best = cand
    return best[2] if best else None


def _route6(table: str, addr: ipaddress.IPv6Address) -> str | None:
    best: tuple[int, int, str] | None = None
    ip = int(addr)
    for line in table.splitlines():
        f = line.split()
        if len(f) < 10:
            continue
        try:
            dest, plen = int(f[0], 16), int(f[1], 16)
            metric, flags = int(f[5], 16), int(f[8], 16)
        except ValueError:
            continue
        if not flags & _RTF_UP or plen > 128:
            continue
        shift = 128 - plen
        if ip >> shift != dest >> shift:
            continue
        cand = (plen, -metric, f[9])
        if best is None or cand[:2] > best[:2]:
            best = cand
    return best[2] if best else None


def route_interface(root: HostRoot, address: str) -> str | None:
    """The interface of the main-table route to `address` (policy routing is not followed)."""
    try:
        addr = ipaddress.ip_address(address)
    except ValueError:
        return None
    try:
        if isinstance(addr, ipaddress.IPv4Address):
            return _route4(root.read_net("route"), addr)
        return _route6(root.read_net("ipv6_route"), addr)
    except OSError:
        return None


def ssh_interface(root: HostRoot | None = None, env: Mapping[str, str] | None = None) -> str | None:
    """The interface carrying this process's SSH session, if it runs under SSH.

    Call it from a thread in the SSH session's network namespace (the main thread), with the
    host's root: a --netns host never carries the session, so pass it the machine's root."""
    client = ssh_client(env)
    if client is None:
        return None
    return route_interface(root or HostRoot(), client)
