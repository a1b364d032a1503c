"""Reading sysctls under a proc root. Per-netns keys read on a netns thread see that netns."""

from __future__ import annotations

from tuitune.core.host.root import HostRoot
from tuitune.core.values import Unavailable


def sysctl_path(key: str) -> str:
    """ "net.ipv4.tcp_rmem" -> "sys/net/ipv4/tcp_rmem" (catalog keys hold no interface names)."""
    return "sys/" + key.replace(".", "/")


def read_sysctl(root: HostRoot, key: str) -> str | Unavailable:
    text = root.read_file(root.proc_path(sysctl_path(key)), key)
    if isinstance(text, Unavailable):
        if text.kind == "missing":
            return Unavailable("missing", f"{key}: not on this kernel")
        return text
    # The kernel separates triples with tabs; one space reads the same and exports cleanly.
    return " ".join(text.split())
