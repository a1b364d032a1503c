"""What a refusal means when tuitune holds the privilege: the kernel's errno in words.

EPERM reads "needs root" only when tuitune lacks the privilege (a plain user, or root with
CAP_NET_ADMIN dropped). With it, EPERM is the kernel refusing the value itself: in a child
network namespace, a congestion control outside net.ipv4.tcp_allowed_congestion_control
(net/ipv4/tcp_cong.c, tcp_set_default_congestion_control: only the initial namespace may set a
restricted algorithm as the default).
"""

from __future__ import annotations

import errno
import functools
import os

from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

CAP_NET_ADMIN = 12
CONGESTION = "net.ipv4.tcp_congestion_control"
ALLOWED_CC = "net.ipv4.tcp_allowed_congestion_control"


@functools.cache
def privileged() -> bool:
    """Root with CAP_NET_ADMIN in effect (the process's capability set; it does not change
    while tuitune runs)."""
    if os.geteuid() != 0:
        return False
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return bool(int(line.split()[1], 16) >> CAP_NET_ADMIN & 1)
    except (OSError, ValueError, IndexError):
        pass
    return True  # no /proc/self/status to say otherwise: root is root


def errno_words(code: int | None) -> str:
    """ "EPERM: operation not permitted"."""
    if code is None:
        return "refused"
    name = errno.errorcode.get(code, str(code))
    return f"{name}: {os.strerror(code).lower()}"


def value_refused(key: Key, code: int | None, value: str | None, allowed: str | None) -> str:
    """The one line for a refusal by the kernel of `value` itself (not of tuitune's right to
    write): what it said and, where known, what it means."""
    shown = f" {value}" if value is not None else ""
    said = f"{key.label}: the kernel refused{shown} ({errno_words(code)})"
    if key.kind == "sysctl" and key.name == CONGESTION and code == errno.EPERM:
        listed = " ".join((allowed or "").split()) or "none"
        return (
            f"{said}: not in {ALLOWED_CC} ({listed}); outside the host's own network "
            "namespace only those may be set"
        )
    return said


def privileged_refusal(key: Key, code: int, value: str | None) -> Unavailable | None:
    """The state for EPERM/EACCES when tuitune holds the privilege, else None (then "needs
    root" is the right reading)."""
    if not privileged():
        return None
    if code == errno.EACCES:  # a file the kernel keeps read-only, even for root
        return Unavailable("permission", f"{key.label}: read-only here ({errno_words(code)})")
    return Unavailable("error", value_refused(key, code, value, None))
