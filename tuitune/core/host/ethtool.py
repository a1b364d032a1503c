"""Read and tune one interface through ethtool: driver info, features, rings, coalescing,
channels, pause and NIC statistics.

Reads never raise for a kernel refusal: they return an `Unavailable` (e.g. "rings: not
supported by veth"). Writes validate first (nothing is written when a value is bad) and raise
`EthtoolWriteError(what, state)` whose `state` is an `Unavailable` with a plain-words reason.

An `Ethtool` works in the network namespace of the thread that first uses it (its sockets are
opened lazily and kept) and is meant for one thread, e.g. a `KernelThread`.
"""

from __future__ import annotations

import errno
import fnmatch
import struct
from collections.abc import Mapping
from typing import TYPE_CHECKING, TypeVar

from tuitune.core.closing import Closing
from tuitune.core.host import ethtool_driver as drv
from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME, EthtoolNetlink, NetlinkError
from tuitune.core.host.ethtool_types import (
    COALESCE_FLAGS,
    COALESCE_IOCTL_NAMES,
    LEGACY_FEATURE_ALIASES,
    U32_MAX,
    Channels,
    Coalesce,
    DriverInfo,
    Feature,
    FeatureChange,
    Pause,
    Rings,
    short_name,
)

# The value types stay importable from here, where every caller has always found them.
__all__ = [
    "COALESCE_FLAGS",
    "COALESCE_IOCTL_NAMES",
    "LEGACY_FEATURE_ALIASES",
    "U32_MAX",
    "Channels",
    "Coalesce",
    "DriverInfo",
    "Ethtool",
    "EthtoolWriteError",
    "Feature",
    "FeatureChange",
    "Pause",
    "Rings",
    "requested_snapshot",
    "short_name",
]
from tuitune.core.values import Unavailable, errno_state, from_oserror

if TYPE_CHECKING:
    from tuitune.core.host.ethtool_device import IoctlRead, IoctlWrite
    from tuitune.core.host.rss import RssTable

T = TypeVar("T")


class EthtoolWriteError(Exception):
    """A write that was refused (by validation or the kernel); `state` says why."""

    def __init__(self, what: str, state: Unavailable) -> None:
        super().__init__(state.reason)
        self.what = what
        self.state = state


def _invalid(what: str, reason: str) -> EthtoolWriteError:
    return EthtoolWriteError(what, Unavailable("error", f"{what}: {reason}"))


def _check_count(what: str, field: str, value: object, maximum: int | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _invalid(what, f"{field} must be a whole number, not {value!r}")
    if value < 0:
        raise _invalid(what, f"{field} cannot be negative ({value})")
    limit = U32_MAX if maximum is None else maximum
    if value > limit:
        raise _invalid(what, f"{field} {value} is above the maximum {limit}")
    return value


def _check_bool(what: str, field: str, value: object) -> bool:
    if not isinstance(value, bool):
        raise _invalid(what, f"{field} must be true or false, not {value!r}")
    return value


def requested_snapshot(features: tuple[Feature, ...]) -> dict[str, bool]:
    """What to record to restore features exactly later: the requested bit of every
    changeable feature (a fixed feature's requested bit means nothing and cannot be set)."""
    return {f.name: f.requested for f in features if not f.fixed}


def _bit(mask: int, i: int) -> bool:
    return bool(mask >> i & 1)


class Ethtool(Closing):
    """ethtool reads and writes for one interface. Not thread-safe: use from one thread."""

    def __init__(self, ifname: str, *, netlink: bool = True) -> None:
        """`netlink=False` reads coalescing through the ioctl only (as on old kernels)."""
        self.ifname = ifname
        self._io = io.EthtoolIoctl(ifname)
        self._nl = EthtoolNetlink(ifname)
        self._label: str | None = None  # driver name for messages ("not supported by veth")
        self._feature_names: tuple[str, ...] | None = None
        self._features_cache: tuple[bytes, tuple[Feature, ...]] | None = None
        self._stats_names: tuple[bytes, tuple[str, ...]] | None = None
        self._netlink_missing = not netlink

    def close(self) -> None:
        self._io.close()
        self._nl.close()

    @property
    def ioctl(self) -> io.EthtoolIoctl:
        """The SIOCETHTOOL handle, for commands with no method here (RSS: rss.py)."""
        return self._io

    def rss_contexts(self, rings: int | None) -> dict[int, RssTable]:
        """Every additional RSS context, by id, as the kernel lists them (rss_netlink.py);
        OSError when it cannot (before Linux 6.12)."""
        from tuitune.core.host.rss_netlink import list_contexts

        return list_contexts(self.ifname, rings)

    @property
    def driver_label(self) -> str:
        """The driver's name for messages ("not supported by veth")."""
        return self._driver_label()

    # ---- helpers -----------------------------------------------------------------------

    def _driver_label(self) -> str:
        if self._label is None:
            info = self.driver_info()
            self._label = info.driver if isinstance(info, DriverInfo) else self.ifname
        return self._label

    def _unavailable(self, exc: OSError, what: str) -> Unavailable:
        return from_oserror(exc, what, self._driver_label())

    def _write_error(self, exc: OSError, what: str) -> EthtoolWriteError:
        label = self._driver_label()
        state = errno_state(exc, "driver", what, driver=label, ifname=self.ifname)
        state = state or from_oserror(exc, what, label)
        extack = exc.extack if isinstance(exc, NetlinkError) else None
        if extack:
            state = Unavailable(state.kind, f"{state.reason} ({extack})")
        return EthtoolWriteError(what, state)

    # ---- reads -------------------------------------------------------------------------

    def driver_info(self) -> DriverInfo | Unavailable:
        try:
            f = self._io.get(io.DRVINFO, io.ETHTOOL_GDRVINFO)
        except OSError as exc:
            return from_oserror(exc, "driver info", self._label or self.ifname)
        s = [io.decode_cstr(v) if isinstance(v, bytes) else "" for v in f[1:6]]
        n = [v if isinstance(v, int) else 0 for v in f[7:12]]
        info = DriverInfo(s[0], s[1], s[2], s[4], s[3], *n)
        self._label = info.driver or self.ifname
        return info

    def _names(self) -> tuple[str, ...]:
        if self._feature_names is None:
            count = self._io.sset_count(io.ETH_SS_FEATURES) or 0
            raw = self._io.strings_raw(io.ETH_SS_FEATURES, count)
            self._feature_names = io.decode_strings(raw, len(raw) // io.ETH_GSTRING_LEN)
        return self._feature_names

    def _read_features(self) -> tuple[tuple[Feature, ...], int]:
        """All named features and the number of u32 blocks SFEATURES needs. Raises OSError."""
        names = self._names()
        words = (len(names) + 31) // 32
        raw, needed = self._io.gfeatures(words)
        if needed != words:  # the kernel's set grew since the names were read
            self._feature_names = None
            names = self._names()
            words = needed
            raw, needed = self._io.gfeatures(words)
        cached = self._features_cache
        if cached is not None and cached[0] == raw:
            return cached[1], words  # unchanged since the last read (the usual case)
        avail, req, act, never = io.unpack_gfeatures(raw, words)
        feats = tuple(
            Feature(n, i, _bit(avail, i), _bit(req, i), _bit(act, i), _bit(never, i))
            for i, n in enumerate(names)
            if n  # empty strings mark unused bits
        )
        self._features_cache = (raw, feats)
        return feats, words

    def features(self) -> tuple[Feature, ...] | Unavailable:
        try:
            return self._read_features()[0]
        except OSError as exc:
            return self._unavailable(exc, "features")

    def _counts(self, layout: struct.Struct, cmd: int, what: str) -> list[int] | Unavailable:
        """ethtool_ringparam or ethtool_channels as read now (cmd, four maxima, four counts):
        the four counts, then their maxima, as Rings and Channels take them."""
        try:
            f = self._io.get(layout, cmd)
        except OSError as exc:
            return self._unavailable(exc, what)
        v = [x if isinstance(x, int) else 0 for x in f]
        return v[5:9] + v[1:5]

    def rings(self) -> Rings | Unavailable:
        v = self._counts(io.RINGPARAM, io.ETHTOOL_GRINGPARAM, "rings")
        return v if isinstance(v, Unavailable) else Rings(*v)

    def channels(self) -> Channels | Unavailable:
        v = self._counts(io.CHANNELS, io.ETHTOOL_GCHANNELS, "channels")
        return v if isinstance(v, Unavailable) else Channels(*v)

    def pause(self) -> Pause | Unavailable:
        try:
            f = self._io.get(io.PAUSEPARAM, io.ETHTOOL_GPAUSEPARAM)
        except OSError as exc:
            return self._unavailable(exc, "pause")
        return Pause(bool(f[1]), bool(f[2]), bool(f[3]))

    def priv_flags(self) -> tuple[tuple[str, bool], ...] | Unavailable:
        """The driver's private flags (`ethtool --show-priv-flags`), in its bit order."""
        try:
            flags = drv.read_priv_flags(self._io)
        except OSError as exc:
            return self._unavailable(exc, "private flags")
        if flags is None:
            label = self._driver_label()
            return Unavailable("unsupported", f"private flags: none on {label}")
        return tuple(f for f in flags if f[0])

    def ioctl_read(self, op: IoctlRead[T]) -> T | Unavailable:
        """A kind's own command (its handler's `op`: ethtool_device.py's IoctlRead)."""
        try:
            return op.run(self._io)
        except OSError as exc:
            return self._unavailable(exc, op.what)

    def _coalesce_ioctl(self) -> tuple[int, ...]:
        f = self._io.get(io.COALESCE, io.ETHTOOL_GCOALESCE)
        return tuple(x if isinstance(x, int) else 0 for x in f)

    def coalesce(self) -> Coalesce | Unavailable:
        if not self._netlink_missing:
            try:
                return Coalesce(self._nl.coalesce_get(), "netlink")
            except NetlinkError as exc:
                if exc.errno not in (errno.EOPNOTSUPP, errno.ENOTSUP):
                    return self._unavailable(exc, "coalesce")
                # The driver lacks it, or this kernel's netlink lacks the command: the ioctl
                # below decides which.
            except OSError:
                self._netlink_missing = True  # no ethtool netlink family on this kernel
        try:
            values = self._coalesce_ioctl()
        except OSError as exc:
            return self._unavailable(exc, "coalesce")
        return Coalesce(tuple(zip(COALESCE_IOCTL_NAMES, values[1:], strict=True)), "ioctl")

    def stats(self) -> tuple[tuple[str, int], ...] | Unavailable:
        """NIC statistics (`ethtool -S`), names in driver order."""
        try:
            for _ in range(3):  # the set changes with the queue count; retry if it moved
                count = self._io.sset_count(io.ETH_SS_STATS)
                if count is None:
                    label = self._driver_label()
                    return Unavailable("unsupported", f"stats: not supported by {label}")
                raw = self._io.strings_raw(io.ETH_SS_STATS, count)
                if self._stats_names is None or self._stats_names[0] != raw:
                    n = len(raw) // io.ETH_GSTRING_LEN
                    self._stats_names = (raw, io.decode_strings(raw, n))
                names = self._stats_names[1]
                values = self._io.gstats(count)
                if len(values) == len(names):
                    return tuple(zip(names, values, strict=True))
        except OSError as exc:
            return self._unavailable(exc, "stats")
        return Unavailable("error", "stats: the counter set kept changing while being read")

    # ---- writes ------------------------------------------------------------------------

    def set_features(self, wanted: Mapping[str, bool]) -> FeatureChange:
        """Set many features in one ETHTOOL_SFEATURES call.

        Keys are kernel feature names (as `features()` reports them) or `ethtool -K` short
        names (tx, sg, tso, gso, gro, ...), which stand for their changeable members; a full
        name wins over an alias covering it. Fixed features are never written: one asked to
        differ from its active state is reported in `refused`, like a wish the kernel did not
        honour. Unknown names and non-bool values raise before anything is written.

        To restore a device exactly, pass `requested_snapshot(features)` taken before.
        """
        what = "features"
        try:
            before, words = self._read_features()
        except OSError as exc:
            raise self._write_error(exc, what) from exc
        by_name = {f.name: f for f in before}
        targets: dict[str, bool] = {}
        explicit: dict[str, bool] = {}
        for key, value in wanted.items():
            _check_bool(what, key, value)
            if key in by_name:
                explicit[key] = value
            elif key in LEGACY_FEATURE_ALIASES:
                pattern = LEGACY_FEATURE_ALIASES[key]
                members = [f for f in before if fnmatch.fnmatchcase(f.name, pattern)]
                # Like ethtool: an alias moves its changeable members; only when it has none
                # do the fixed ones count (and then show up as refused).
                changeable = [f for f in members if not f.fixed] or members
                targets.update((f.name, value) for f in changeable)
            else:
                raise _invalid(what, f"unknown feature {key!r} on {self.ifname}")
        targets.update(explicit)
        valid = requested = 0
        for name, value in targets.items():
            f = by_name[name]
            if not f.fixed:
                valid |= 1 << f.index
                requested |= int(value) << f.index
        flags = 0
        if valid:
            try:
                flags = self._io.sfeatures(words, valid, requested)
            except OSError as exc:
                raise self._write_error(exc, what) from exc
        try:
            after, _ = self._read_features()
        except OSError as exc:
            raise self._write_error(exc, what) from exc
        now = {f.name: f.active for f in after}
        return FeatureChange(
            refused=tuple(n for n, v in targets.items() if now.get(n) != v),
            changed=tuple(
                (f.name, now[f.name]) for f in before if f.name in now and now[f.name] != f.active
            ),
            features=after,
            kernel_wish=bool(flags & io.ETHTOOL_F_WISH),
        )

    def _read_for_write(self, layout: struct.Struct, cmd: int, what: str) -> list[int]:
        try:
            f = self._io.get(layout, cmd)
        except OSError as exc:
            raise self._write_error(exc, what) from exc
        return [x if isinstance(x, int) else 0 for x in f]

    def _counts_for_write(
        self, layout: struct.Struct, cmd: int, what: str, asked: dict[str, int | None]
    ) -> list[int] | None:
        """The first half of a read-modify-write of ethtool_ringparam or ethtool_channels (both
        are cmd, four maxima, then the four current counts): the struct read now with each
        asked count (`asked` in the struct's order) checked against its maximum and set. None
        when nothing is asked."""
        if all(v is None for v in asked.values()):
            return None
        v = self._read_for_write(layout, cmd, what)
        for i, (field, value) in enumerate(asked.items()):
            if value is not None:
                v[5 + i] = _check_count(what, field, value, v[1 + i])
        return v

    def _write(self, layout: struct.Struct, values: list[int], what: str) -> None:
        try:
            self._io.set(layout, tuple(values))
        except OSError as exc:
            raise self._write_error(exc, what) from exc

    def set_rings(
        self,
        rx: int | None = None,
        tx: int | None = None,
        rx_mini: int | None = None,
        rx_jumbo: int | None = None,
    ) -> None:
        """Read-modify-write of the ring sizes; None keeps the current value."""
        asked = {"rx": rx, "rx-mini": rx_mini, "rx-jumbo": rx_jumbo, "tx": tx}
        v = self._counts_for_write(io.RINGPARAM, io.ETHTOOL_GRINGPARAM, "rings", asked)
        if v is None:
            return
        v[0] = io.ETHTOOL_SRINGPARAM
        self._write(io.RINGPARAM, v, "rings")

    def set_channels(
        self,
        rx: int | None = None,
        tx: int | None = None,
        other: int | None = None,
        combined: int | None = None,
    ) -> None:
        """Read-modify-write of the channel counts; None keeps the current value."""
        asked = {"rx": rx, "tx": tx, "other": other, "combined": combined}
        v = self._counts_for_write(io.CHANNELS, io.ETHTOOL_GCHANNELS, "channels", asked)
        if v is None:
            return
        # The kernel's own rule: at least one queue able to receive and one able to send.
        if v[8] == 0 and (v[5] == 0 or v[6] == 0):
            raise _invalid("channels", "needs at least one rx and one tx (or combined) channel")
        v[0] = io.ETHTOOL_SCHANNELS
        self._write(io.CHANNELS, v, "channels")

    def set_pause(
        self, autoneg: bool | None = None, rx: bool | None = None, tx: bool | None = None
    ) -> None:
        asked = {"autoneg": autoneg, "rx": rx, "tx": tx}
        for field, value in asked.items():
            if value is not None:
                _check_bool("pause", field, value)
        if all(v is None for v in asked.values()):
            return
        v = self._read_for_write(io.PAUSEPARAM, io.ETHTOOL_GPAUSEPARAM, "pause")
        for i, value in enumerate(asked.values(), start=1):
            if value is not None:
                v[i] = int(value)
        v[0] = io.ETHTOOL_SPAUSEPARAM
        self._write(io.PAUSEPARAM, v, "pause")

    def set_coalesce(self, values: Mapping[str, int]) -> None:
        """Set coalescing parameters by `ethtool -C` name; only those given are sent."""
        what = "coalesce"
        for name in values:
            if name not in COALESCE_BY_NAME:
                raise _invalid(what, f"unknown parameter {name!r}")
        checked = {
            name: (
                int(_check_bool(what, name, value))
                if name in COALESCE_FLAGS and isinstance(value, bool)
                else _check_count(what, name, value, 1 if name in COALESCE_FLAGS else None)
            )
            for name, value in values.items()
        }
        if not checked:
            return
        current = self.coalesce()
        if isinstance(current, Unavailable):
            raise EthtoolWriteError(what, current)
        unsupported = [n for n in checked if current.get(n) is None]
        if unsupported:
            label = self._driver_label()
            reason = f"{what}: {', '.join(unsupported)} not supported by {label}"
            raise EthtoolWriteError(what, Unavailable("unsupported", reason))
        if current.source == "netlink":
            try:
                self._nl.coalesce_set(checked)
            except OSError as exc:
                raise self._write_error(exc, what) from exc
            return
        v = self._read_for_write(io.COALESCE, io.ETHTOOL_GCOALESCE, what)
        for name, value in checked.items():
            v[1 + COALESCE_IOCTL_NAMES.index(name)] = value
        v[0] = io.ETHTOOL_SCOALESCE
        self._write(io.COALESCE, v, what)

    def set_priv_flags(self, wanted: Mapping[str, bool]) -> None:
        """Read-modify-write of the private flags by name; the others keep their bit."""
        what = "private flags"
        try:
            flags = drv.read_priv_flags(self._io)
        except OSError as exc:
            raise self._write_error(exc, what) from exc
        if flags is None:
            label = self._driver_label()
            raise EthtoolWriteError(what, Unavailable("unsupported", f"{what}: none on {label}"))
        names = {n for n, _ in flags if n}
        for name, value in wanted.items():
            _check_bool(what, name, value)
            if name not in names:
                raise _invalid(what, f"unknown flag {name!r} on {self.ifname}")
        mask = drv.priv_mask(tuple((n, wanted.get(n, on) if n else on) for n, on in flags))
        try:
            drv.write_priv_flags(self._io, mask)
        except OSError as exc:
            raise self._write_error(exc, what) from exc

    def ioctl_write(self, op: IoctlWrite) -> None:
        """A kind's own command (its handler's `op`); what `op` refuses never reaches the
        kernel."""
        why = op.refused()
        if why is not None:
            raise _invalid(op.what, why)
        try:
            op.run(self._io)
        except OSError as exc:
            raise self._write_error(exc, op.what) from exc
