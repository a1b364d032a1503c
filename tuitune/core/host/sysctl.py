"""Reading sysctls under a proc root. Per-netns keys read on a netns thread see that netns."""

from __future__ import annotations

from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable, from_oserror


def sysctl_path(key: str) -> str:
    """ "net.ipv4.tcp_rmem" -> "sys/net/ipv4/tcp_rmem" (catalog keys hold no interface names)."""
    return "sys/" + key.replace(".", "/")


def read_sysctl(root: HostRoot, key: str) -> str | Unavailable:
    try:
        text = root.read_proc(sysctl_path(key))
    except FileNotFoundError:
        return Unavailable("missing", f"{key}: not on this kernel")
    except OSError as exc:
        return from_oserror(exc, key)
    # The kernel separates triples with tabs; one space reads the same and exports cleanly.
    return " ".join(text.split())
