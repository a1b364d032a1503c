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


def from_oserror(exc: OSError, what: str, driver: str | None = None) -> Unavailable:
    """Map a kernel refusal to a user-facing state. `what` names the thing asked for."""
    code = exc.errno
    if code in (errno.EOPNOTSUPP, errno.ENOTSUP, errno.EINVAL) and driver is not None:
        return Unavailable("unsupported", f"{what}: not supported by {driver}")
    if code in (errno.EOPNOTSUPP, errno.ENOTSUP):
        return Unavailable("unsupported", f"{what}: not supported")
    if code in (errno.EPERM, errno.EACCES):
        return Unavailable("permission", f"{what}: needs root")
    if code in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
        return Unavailable("missing", f"{what}: not present")
    return Unavailable("error", f"{what}: {exc.strerror or exc}")
