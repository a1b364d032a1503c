"""What a fleet export needs beyond one host's: a device match chosen for many hosts, and the
playbook written to disk.

The match: a file made for one host matches its NIC by whatever `identify` found best for
that host (ID_PATH, else the permanent MAC, else the name). Across a fleet the choice differs:
the MAC is unique to each NIC, so rules matching it fit one host only, while identical servers
put the same card in the same slot and so give it the same ID_PATH. Hence ID_PATH by default
for a fleet, and `--match` to say otherwise: `driver` fits hosts whose one fast NIC sits in
different slots (mixed models, a riser), at the price of also matching any other NIC the same
driver runs there.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import get_args

from tuitune.core import fsutil
from tuitune.core.export.device import (
    NET_ADDR_PERM,
    DeviceMatch,
    MatchKind,
    bound_driver,
    identify,
)
from tuitune.core.host.root import HostRoot, read_value

MATCHES: tuple[MatchKind, ...] = get_args(MatchKind)
DEFAULT_MATCH: MatchKind = "path"
WHY_DEFAULT = (
    "ID_PATH (the bus position) by default: identical servers hold the same card in the same "
    "slot, so one rule fits them all, while a MAC is each card's own (a rule by MAC fits one "
    "host) and a name may go to another device; --match mac|name|driver chooses otherwise"
)


class NoMatch(ValueError):
    """The interface has nothing to be matched by in the way asked (one line)."""


def choose_match(
    root: HostRoot, ifname: str, kind: MatchKind, driver: str | None = None
) -> DeviceMatch:
    """The match asked for. `driver` is the driver ethtool names (udev's ID_NET_DRIVER), when
    the caller could ask the device; else the one bound in sysfs."""
    found = identify(root, ifname)
    if kind == "path":
        if found.kind != "path":
            raise NoMatch(
                f"{ifname} has no ID_PATH (not on a bus udev can name): use --match mac or name"
            )
        return found
    if kind == "mac":
        base = f"class/net/{ifname}"
        assign = read_value(root, root.sys_path(f"{base}/addr_assign_type"), "addr_assign_type")
        address = read_value(root, root.sys_path(f"{base}/address"), "address")
        if assign != NET_ADDR_PERM or not isinstance(address, str) or not address.strip("0:"):
            raise NoMatch(f"{ifname} has no permanent MAC (random or set by software)")
        return DeviceMatch("mac", address.lower())
    if kind == "driver":
        return _by_driver(root, ifname, driver or bound_driver(root, ifname))
    return DeviceMatch(
        "name",
        ifname,
        warning=f"matching by name: on each host the rules apply to whatever device is called "
        f"{ifname} when it appears, so every host must name that NIC the same",
    )


def _by_driver(root: HostRoot, ifname: str, driver: str | None) -> DeviceMatch:
    if driver is None:
        raise NoMatch(f"{ifname} names no driver: use --match path, mac or name")
    try:
        names = sorted(os.listdir(root.sys_path("class/net")))
    except OSError:
        names = [ifname]
    same = [n for n in names if n != ifname and bound_driver(root, n) == driver]
    here = f" (here also {', '.join(same)})" if same else ""
    return DeviceMatch(
        "driver",
        driver,
        warning=f"matching by driver: on each host the files apply to every NIC the {driver} "
        f"driver runs{here}; use it where each host has one such NIC, or all tuned alike",
    )


def write_tree(files: Mapping[str, str | bytes], directory: Path) -> list[Path]:
    """Each file (text, or bytes: a wheel) under `directory` at its relative path, through
    fsutil (no link another user made is followed, a temporary file made O_EXCL and renamed
    in); a file already holding the same bytes is left alone. Returns the paths written."""
    written = []
    by_dir: dict[PurePosixPath, list[tuple[str, str]]] = {}
    for rel in files:
        p = PurePosixPath(rel)
        if p.is_absolute() or ".." in p.parts:
            raise fsutil.UnsafePath(rel, "not a path inside the output directory")
        by_dir.setdefault(p.parent, []).append((p.name, rel))
    for parent, names in by_dir.items():
        with fsutil.open_dir(directory / parent, create=True) as d:
            for name, rel in names:
                given = files[rel]
                data = given if isinstance(given, bytes) else given.encode()
                old = d.lstat(name)
                if old is not None and old.st_size == len(data) and d.read(name, len(data)) == data:
                    continue
                d.write_atomic(name, data, 0o644)
                written.append(directory / rel)
    return written
