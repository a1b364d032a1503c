"""Interface and network-namespace names, checked before anything is done with them.

A name is typed by a user, read from a profile or a show document, or passed on the command
line; it then becomes part of a path (/sys/class/net/NAME, /run/netns/NAME, a journal or a
notebook file) and of messages. A 5,000-character name made the kernel answer ENAMETOOLONG
from deep inside a read, as a traceback; a newline would split a one-line message. The rules
are the kernel's and iproute2's, plus no control characters anywhere.
"""

from __future__ import annotations

from tuitune.core.cpulist import shown

# include/uapi/linux/if.h: IFNAMSIZ 16, the terminating NUL included.
IFNAMSIZ = 16
# iproute2 makes /run/netns/NAME: a file name (NAME_MAX 255 bytes). tuitune builds longer
# file names from it (netns-NAME in the journal directory, HOST-NAME-IFACE.jsonl for the
# notebook), so it keeps to half of that.
NETNS_NAME_MAX = 128


class BadName(ValueError):
    """A name that cannot be an interface or a namespace; the message says why (one line)."""


def _control(name: str) -> bool:
    return any(ord(ch) < 0x20 or ord(ch) == 0x7F for ch in name)


def ifname_problem(name: object) -> str | None:
    """Why `name` cannot be a network interface's name (net/core/dev.c dev_valid_name), or
    None when it can."""
    if not isinstance(name, str):
        return f"interface name {name!r} is not text"
    if not name:
        return "empty interface name"
    size = len(name.encode("utf-8", "surrogatepass"))
    if size >= IFNAMSIZ:
        return f"interface name {shown(name)} is too long ({size} bytes; at most {IFNAMSIZ - 1})"
    if name in (".", ".."):
        return f"interface name {name!r} is not a device name"
    if "/" in name or ":" in name:
        return f"interface name {shown(name)} holds '/' or ':', which no device name can"
    if _control(name) or any(ch.isspace() for ch in name):
        return f"interface name {shown(name)} holds a space or a control character"
    return None


def netns_problem(name: object) -> str | None:
    """Why `name` cannot be a network namespace of `ip netns` (iproute2's is_valid_netns_name:
    no '/', not '.' or '..'; a bounded file name; no control characters), or None."""
    if not isinstance(name, str):
        return f"network namespace {name!r} is not text"
    if not name:
        return "empty network namespace name"
    size = len(name.encode("utf-8", "surrogatepass"))
    if size > NETNS_NAME_MAX:
        return (
            f"network namespace {shown(name)} is too long ({size} bytes; at most {NETNS_NAME_MAX})"
        )
    if name in (".", ".."):
        return f"network namespace {name!r} is not a namespace name"
    if "/" in name:
        return f"network namespace {shown(name)} holds '/', which no namespace name can"
    if _control(name):
        return f"network namespace {shown(name)} holds a control character"
    return None


def check_ifname(name: str) -> str:
    problem = ifname_problem(name)
    if problem is not None:
        raise BadName(problem)
    return name
