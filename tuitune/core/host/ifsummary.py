"""One line per interface for the picker: driver, speed, state; the default-route one first."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from tuitune.core.host.netdev import default_route_interface, list_interfaces, read_link
from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable


@dataclass(frozen=True, slots=True)
class InterfaceSummary:
    name: str
    driver: str  # the bound driver ("ixgbe", "virtio_net"), else the link kind ("veth")
    speed_mbps: int | None
    operstate: str
    carrier: bool | None
    default_route: bool


def _driver(root: HostRoot, name: str, kind: str | None) -> str:
    link = root.sys_path(f"class/net/{name}/device/driver")
    try:
        return os.path.basename(os.readlink(link))
    except OSError:
        pass
    if kind:
        return kind
    if name == "lo":
        return "loopback"
    try:
        for line in root.read_sys(f"class/net/{name}/uevent").splitlines():
            if line.startswith("DEVTYPE="):
                return line.partition("=")[2]
    except OSError:
        pass
    return "virtual"


def interface_summaries(root: HostRoot, ipr: Any | None = None) -> list[InterfaceSummary]:
    default = default_route_interface(root)
    out = []
    for name in list_interfaces(root):
        try:
            link = read_link(root, name, ipr)
        except Exception:  # vanished between listing and reading: leave it out
            continue
        speed = link.speed_mbps
        out.append(
            InterfaceSummary(
                name=name,
                driver=_driver(root, name, link.kind),
                speed_mbps=None if isinstance(speed, Unavailable) or speed <= 0 else speed,
                operstate=link.operstate,
                carrier=link.carrier,
                default_route=name == default,
            )
        )
    # Default route first, then physical NICs before virtual ones, loopback last.
    out.sort(key=lambda s: (not s.default_route, s.name == "lo", s.name))
    return out
