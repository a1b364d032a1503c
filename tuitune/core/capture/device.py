"""The ethtool state of a captured interface (sysfs does not hold it), as JSON in the capture
(`ethtool/IFACE.json`), and the device reader a --root tree's HostReader makes of it.

Also what a tree's sysfs cannot say about the link but netlink can (its kind, the burned-in
address, the MTU bounds): `complete` fills those into the Link read from sysfs, so that
`show --json --root CAPTURE` says what `show --json` said live.

The file is another user's: read through `untrusted` (bounded, no link of others), each value
typed by the record codec against these classes' own hints.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TypeVar

from tuitune.core.docfile import DocumentError
from tuitune.core.host.conns import Connection, checked_connections
from tuitune.core.host.ethtool import EthtoolWriteError
from tuitune.core.host.ethtool_device import IoctlRead, IoctlWrite
from tuitune.core.host.ethtool_types import (
    Channels,
    Coalesce,
    DriverInfo,
    Feature,
    FeatureChange,
    Pause,
    Rings,
)
from tuitune.core.host.module_eeprom import Optics
from tuitune.core.host.netdev import Link
from tuitune.core.host.pmqos import LatencyRequest
from tuitune.core.host.qdisc import Qdisc
from tuitune.core.host.rss import RssState
from tuitune.core.names import ifname_problem, netns_problem
from tuitune.core.record.codec import decode, encode
from tuitune.core.untrusted import Refused, parse_json, read_text
from tuitune.core.values import Unavailable

DEVICE_MAX = 4 << 20  # an ethtool -S of a few thousand counters is ~200 KB
DIR = "ethtool"


@dataclass(frozen=True, slots=True)
class LinkExtra:
    """What netlink says of the link that its sysfs directory does not."""

    kind: str | None
    perm_address: str | None
    min_mtu: int | None
    max_mtu: int | None


@dataclass(frozen=True, slots=True)
class QueueCounters:
    """The per-queue counters read at the start and the end of the capture's recording
    (`HostReader.queue_stats`), for `show --root`'s per-queue rates."""

    before: tuple[tuple[str, int], ...]
    after: tuple[tuple[str, int], ...]
    seconds: float
    source: str  # "ethtool -S", or the netdev qstats with it


@dataclass(frozen=True, slots=True)
class DeviceCapture:
    driver: DriverInfo | Unavailable
    features: tuple[Feature, ...] | Unavailable
    rings: Rings | Unavailable
    coalesce: Coalesce | Unavailable
    channels: Channels | Unavailable
    pause: Pause | Unavailable
    stats: tuple[tuple[str, int], ...] | Unavailable
    link: LinkExtra
    # The private flags' ioctls of the platform view (core/host/platform.py's read_driver).
    priv_flags: tuple[tuple[str, bool], ...] | Unavailable
    qdiscs: tuple[Qdisc, ...] | Unavailable  # netlink's, as `show` reads them live
    rss: RssState | None = None  # the RSS table and hash fields (ioctls); None: not captured
    queues: QueueCounters | None = None  # None: not captured (no recording, no statistics)
    # The TCP connections on the interface's addresses (inet_diag); None: not captured.
    connections: tuple[Connection, ...] | Unavailable | None = None
    # The transceiver's EEPROM as decoded (`ethtool -m`, an ioctl); None: not captured.
    optics: Optics | Unavailable | None = None
    # The PM QoS latency request in force (/dev/cpu_dma_latency, not in sysfs): "none" or
    # microseconds as digits, or the state the read was; None: not captured (older captures).
    pm_qos_request: str | Unavailable | None = None
    # Each kind's own read of the platform view (host/platform.py's `KindRead`), as its value
    # keeps it (`kept`), by kind. In the file, each is a key of its own after priv_flags
    # ("fec": "active rs (configured auto)"), where the first captures put theirs.
    kinds: Mapping[str, str | Unavailable] = field(default_factory=dict)


_FIELDS = frozenset(f.name for f in dataclasses.fields(DeviceCapture))
_KEPT = str | Unavailable


def capture_json(dev: DeviceCapture) -> bytes:
    out: dict[str, Any] = {}
    for name, value in encode(replace(dev, kinds={})).items():
        if name != "kinds":
            out[name] = value
        if name == "priv_flags":
            out.update((kind, encode(kept)) for kind, kept in dev.kinds.items())
    return json.dumps(out, indent=1).encode()


def _kinds(doc: object, name: str) -> dict[str, str | Unavailable]:
    """The kinds' reads: every key that is none of DeviceCapture's, each a text or a state
    (one that is neither is that kind's state, the rest of the file still read)."""
    out: dict[str, str | Unavailable] = {}
    for kind, value in doc.items() if isinstance(doc, dict) else ():
        if kind in _FIELDS or kind == "_" or not isinstance(kind, str):
            continue
        try:
            out[kind] = decode(value, _KEPT, f"{name}: {kind}")
        except Refused as exc:
            out[kind] = Unavailable("error", str(exc))
    return out


# A capture is a copy of a host: nothing on it is changed. Its devices refuse every write in
# the words a kernel refusal has (a state on the row, never a traceback), so that they are the
# one `EthtoolLike` the kind handlers take (core/host/ethtool_device.py).
READ_ONLY = Unavailable("unsupported", "a capture is a copy of a host: nothing on it is changed")
T = TypeVar("T")


class _Refuses:
    """The write side of `EthtoolLike`: every set_* is refused (READ_ONLY)."""

    def set_features(self, wanted: Mapping[str, bool]) -> FeatureChange:
        raise EthtoolWriteError("features", READ_ONLY)

    def set_rings(
        self,
        rx: int | None = None,
        tx: int | None = None,
        rx_mini: int | None = None,
        rx_jumbo: int | None = None,
    ) -> None:
        raise EthtoolWriteError("rings", READ_ONLY)

    def set_channels(
        self,
        rx: int | None = None,
        tx: int | None = None,
        other: int | None = None,
        combined: int | None = None,
    ) -> None:
        raise EthtoolWriteError("channels", READ_ONLY)

    def set_pause(
        self, autoneg: bool | None = None, rx: bool | None = None, tx: bool | None = None
    ) -> None:
        raise EthtoolWriteError("pause", READ_ONLY)

    def set_coalesce(self, values: Mapping[str, int]) -> None:
        raise EthtoolWriteError("coalesce", READ_ONLY)

    def set_priv_flags(self, wanted: Mapping[str, bool]) -> None:
        raise EthtoolWriteError("private flags", READ_ONLY)

    def ioctl_write(self, op: IoctlWrite) -> None:
        raise EthtoolWriteError(op.what, READ_ONLY)


class CapturedDevice(_Refuses):
    """`EthtoolLike` from a capture: each read returns what the capture holds; each write is
    refused."""

    def __init__(self, dev: DeviceCapture) -> None:
        self.dev = dev

    def driver_info(self) -> DriverInfo | Unavailable:
        return self.dev.driver

    def features(self) -> tuple[Feature, ...] | Unavailable:
        return self.dev.features

    def rings(self) -> Rings | Unavailable:
        return self.dev.rings

    def coalesce(self) -> Coalesce | Unavailable:
        return self.dev.coalesce

    def channels(self) -> Channels | Unavailable:
        return self.dev.channels

    def pause(self) -> Pause | Unavailable:
        return self.dev.pause

    def stats(self) -> tuple[tuple[str, int], ...] | Unavailable:
        return self.dev.stats

    def priv_flags(self) -> tuple[tuple[str, bool], ...] | Unavailable:
        return self.dev.priv_flags

    def ioctl_read(self, op: IoctlRead[T]) -> T | Unavailable:
        """A kind's own command: what the capture kept of it, as the kind reads it."""
        return op.recorded(self.dev.kinds.get(op.kind, NOT_CAPTURED))

    def close(self) -> None:
        pass

    def complete(self, link: Link) -> Link:
        x = self.dev.link
        return replace(
            link,
            kind=x.kind,
            perm_address=x.perm_address,
            min_mtu=x.min_mtu,
            max_mtu=x.max_mtu,
        )


class NotCaptured(_Refuses):
    """An interface of a capture whose ethtool state was not captured (only the one named)."""

    def __init__(self, why: Unavailable) -> None:
        self.why = why

    def driver_info(self) -> DriverInfo | Unavailable:
        return self.why

    def features(self) -> tuple[Feature, ...] | Unavailable:
        return self.why

    def rings(self) -> Rings | Unavailable:
        return self.why

    def coalesce(self) -> Coalesce | Unavailable:
        return self.why

    def channels(self) -> Channels | Unavailable:
        return self.why

    def pause(self) -> Pause | Unavailable:
        return self.why

    def stats(self) -> tuple[tuple[str, int], ...] | Unavailable:
        return self.why

    def priv_flags(self) -> tuple[tuple[str, bool], ...] | Unavailable:
        return self.why

    def ioctl_read(self, op: IoctlRead[T]) -> T | Unavailable:
        return self.why

    def close(self) -> None:
        pass


NOT_CAPTURED = Unavailable("missing", "not recorded in this host tree")


def load_device(tree: Path, ifname: str) -> CapturedDevice | NotCaptured:
    """The captured device `ifname` of `tree`; a file that is not one is a state naming it."""
    if ifname_problem(ifname) is not None:
        return NotCaptured(NOT_CAPTURED)
    name = f"{DIR}/{ifname}.json"
    try:
        text = read_text(tree / DIR / f"{ifname}.json", DEVICE_MAX, follow=False)
        if text is None:
            return NotCaptured(NOT_CAPTURED)
        doc = parse_json(text, name)
        dev = replace(decode(doc, DeviceCapture, name), kinds=_kinds(doc, name))
    except (OSError, DocumentError) as exc:
        return NotCaptured(Unavailable("error", str(exc)))
    if isinstance(dev.connections, tuple):
        dev = replace(dev, connections=checked_connections(dev.connections, name))
    if isinstance(dev.pm_qos_request, str) and not _REQUEST.match(dev.pm_qos_request):
        bad = Unavailable("error", f"{name}: pm_qos_request: not a latency")
        dev = replace(dev, pm_qos_request=bad)
    return CapturedDevice(dev)


_REQUEST = re.compile(r"^(none|[0-9]{1,10})$")


def request_text(req: LatencyRequest) -> str | Unavailable:
    """The request as the device file keeps it."""
    return "none" if req is None else req if isinstance(req, Unavailable) else str(req)


def captured_request(tree: Path, ifname: str, otherwise: LatencyRequest) -> LatencyRequest:
    """The capture's PM QoS request for the platform view; `otherwise` where it holds none
    (an older capture, or no device file)."""
    got = load_device(tree, ifname)
    req = got.dev.pm_qos_request if isinstance(got, CapturedDevice) else None
    if req is None:
        return otherwise
    if isinstance(req, Unavailable):
        return req
    return None if req == "none" else int(req)


def captured_netns(tree: Path) -> str | None:
    """The namespace a capture was taken in (its manifest's), None for none or no capture."""
    try:
        text = read_text(tree / "manifest.json", DEVICE_MAX, follow=False)
        doc = parse_json(text, "manifest.json") if text is not None else None
    except (OSError, DocumentError):
        return None
    netns = doc.get("netns") if isinstance(doc, dict) else None
    return netns if isinstance(netns, str) and netns_problem(netns) is None else None


def device_reader(tree: Path) -> Callable[[str], CapturedDevice | NotCaptured] | None:
    """The device reader of a capture (None: `tree` holds no ethtool state)."""
    if not (tree / DIR).is_dir():
        return None
    return lambda ifname: load_device(tree, ifname)
