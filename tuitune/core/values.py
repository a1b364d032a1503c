"""Values that the kernel can refuse to give: a refusal is a state, never an exception."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import Literal

UnavailableKind = Literal["unsupported", "permission", "missing", "error"]


@dataclass(frozen=True, slots=True)
class Unavailable:
    """Why a value could not be read (or written). Shown to the user as-is."""

    kind: UnavailableKind
    reason: str  # e.g. "not supported by veth", "needs root", "missing on this kernel"

    def __str__(self) -> str:
        return self.reason


# What the kernel's errno means, the one table: per errno, the state it leaves a value in and
# its words, when reading (`read`), when writing a setting (`write`: the kernel's refusal of a
# value, core/session/kinds) and when a driver refused an ethtool write (`driver`: it is
# named). Placeholders: {what} the thing, {by} " by DRIVER" or nothing, {driver}, {ifname},
# {value} " VALUE" or nothing. A missing entry: the errno's own text (strerror).
Words = tuple[UnavailableKind, str]
When = Literal["read", "write", "driver"]
_UNSUPPORTED: dict[When, Words] = {
    "read": ("unsupported", "{what}: not supported{by}"),
    "write": ("unsupported", "{what}: not supported here"),
    "driver": ("unsupported", "{what}: not supported by {driver}"),
}
_PERMISSION: dict[When, Words] = {
    "read": ("permission", "{what}: needs root"),
    "write": ("permission", "{what}: changing it needs root"),
    "driver": ("permission", "{what}: changing it needs root (CAP_NET_ADMIN)"),
}
_GONE: dict[When, Words] = {
    "read": ("missing", "{what}: not present"),
    "write": ("missing", "{what}: not present (gone?)"),
    "driver": ("missing", "{what}: interface {ifname} is gone"),
}
ERRNO_WORDS: dict[int, dict[When, Words]] = {
    errno.EOPNOTSUPP: _UNSUPPORTED,
    errno.ENOTSUP: _UNSUPPORTED,
    errno.EPERM: _PERMISSION,
    errno.EACCES: _PERMISSION,
    errno.ENOENT: {"read": _GONE["read"], "write": _GONE["write"]},  # driver: as read
    errno.ENODEV: _GONE,
    errno.ENXIO: _GONE,
    # EINVAL on a read is a driver without the operation (from_oserror: only with a driver).
    errno.EINVAL: {
        "read": _UNSUPPORTED["read"],
        "write": ("error", "{what}: the kernel rejected{value}"),
        "driver": ("error", "{what}: {driver} rejected the new values"),
    },
    errno.ERANGE: {"write": ("error", "{what}: the kernel rejected{value}")},
    errno.ENOMEM: {"write": ("error", "{what}: the kernel could not allocate memory for{value}")},
    errno.EBUSY: {
        "write": ("error", "{what}: busy, try again"),
        "driver": ("error", "{what}: {driver} is busy, try again"),
    },
}


def errno_state(exc: OSError, when: When, what: str, **words: str) -> Unavailable | None:
    """The table's state for `exc` `when` ("read", "write", "driver"), None when it has no
    words for it."""
    entry = ERRNO_WORDS.get(exc.errno or 0, {}).get(when)
    if entry is None:
        return None
    kind, text = entry
    fill = {"by": "", "driver": "", "ifname": "", "value": "", **words}
    return Unavailable(kind, text.format(what=what, **fill))


def from_oserror(exc: OSError, what: str, driver: str | None = None) -> Unavailable:
    """Map a kernel refusal to a user-facing state. `what` names the thing asked for."""
    if exc.errno == errno.EINVAL and driver is None:
        state = None
    else:
        state = errno_state(exc, "read", what, by=f" by {driver}" if driver else "")
    return state or Unavailable("error", f"{what}: {exc.strerror or exc}")
