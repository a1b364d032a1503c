"""What a saved state asks for (`Request`s of a `Profile`), and the checks both of its formats
(TOML profiles, `show --json` documents) share: names and texts taken from a file are on one
line, of a bounded length and of the shape their kind has, before anything uses them.

A file is written by someone else: every message quotes what it holds with `shown`, which
never spans lines or grows without bound, whatever the file holds.
"""

from __future__ import annotations

import json
import re
import reprlib
from dataclasses import dataclass
from typing import Any

from tuitune.core.host.ethtool import COALESCE_IOCTL_NAMES
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME
from tuitune.core.names import ifname_problem
from tuitune.core.session.settings import Kind

ALL_QUEUES = "*"
# ethtool -C names: netlink's, and the ioctl fallback's (all 22 fields of its struct)
COALESCE_NAMES = frozenset(COALESCE_BY_NAME) | frozenset(COALESCE_IOCTL_NAMES)
MAX_TEXT = 65536  # a value's text: a CPU list of every other CPU of 8192 is ~20 KB

_FEATURE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # kernel and ethtool -K names
_QUEUE = re.compile(r"(rx|tx)-(0|[1-9][0-9]{0,4})")
_SYSCTL = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:/@+-]{0,255}")

_repr = reprlib.Repr()
_repr.maxstring = 60
_repr.maxother = 60
_repr.maxlevel = 3


class ProfileError(ValueError):
    """The file is not a profile or a show document, or holds something unreadable."""


@dataclass(frozen=True, slots=True)
class Request:
    kind: Kind
    name: str  # sysctl key, feature (or ethtool -K short name), field, queue, IRQ queue name
    text: str  # the value as text, checked later by the setting's own validation
    origin: str  # where it came from, for messages: "[interface.rings] rx"


@dataclass(frozen=True, slots=True)
class Profile:
    ifname: str | None  # the interface the file names, if any
    requests: tuple[Request, ...]
    source: str  # "profile" or "show --json"
    # The network namespace a show document was saved in (host.netns), checked as a name:
    # applied without --netns, the message can say which --netns it wants.
    netns: str | None = None

    @property
    def needs_interface(self) -> bool:
        host_wide = ("sysctl", "proc_affinity", "cpu_governor", "cpu_epp", "cstate_disable")
        return any(r.kind not in (*host_wide, "cpu_boost", "module_param") for r in self.requests)


def shown(value: object) -> str:
    """A value from a file, quoted for a message: one line, at most ~60 characters, and safe
    for any nesting (reprlib stops at a few levels; repr would recurse into all of them).
    true, false and null are spelled as in the file."""
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    try:
        return _repr.repr(value)
    except (RecursionError, ValueError):  # ValueError: an int of more than 4300 digits
        return f"<{type(value).__name__}>"


def plain(name: str) -> str:
    """A name from a file as messages print it: as it is when it is short and printable."""
    return name if len(name) <= 60 and name.isprintable() else shown(name)


def is_text(value: str, limit: int = MAX_TEXT) -> bool:
    """One line of printable characters (a tab allowed), at most `limit` characters."""
    return len(value) <= limit and all(c.isprintable() or c == "\t" for c in value)


def check_name(kind: str, name: object, where: str) -> str:
    """A name a file gives for `kind` ("feature", "queue", "irq", "sysctl", "field"), or a
    ProfileError saying what is wrong with it."""
    if not isinstance(name, str):
        raise ProfileError(f"{where}: {shown(name)} is not a name")
    ok = {
        "feature": lambda: _FEATURE.fullmatch(name) is not None,
        "field": lambda: _FEATURE.fullmatch(name) is not None,
        "queue": lambda: _QUEUE.fullmatch(name) is not None,
        "sysctl": lambda: _SYSCTL.fullmatch(name) is not None,
        # /proc/interrupts names are the driver's free text: printable, no outer spaces.
        "irq": lambda: 0 < len(name) <= 128 and name.isprintable() and name == name.strip(),
    }[kind]()
    if not ok:
        shape = {
            "feature": "letters, digits and '_ . -'",
            "field": "letters, digits and '_ . -'",
            "queue": "rx-N or tx-N",
            "sysctl": "a dotted sysctl key",
            "irq": "an IRQ name as /proc/interrupts shows it",
        }[kind]
        raise ProfileError(f"{where}: {shown(name)} is not a {kind} name ({shape})")
    return name


def check_ifname(name: object, where: str) -> str:
    """An interface name as the kernel accepts one (core/names.py: dev_valid_name, printable,
    so that messages naming it stay on one line)."""
    problem = ifname_problem(name)
    if problem is not None:
        raise ProfileError(f"{where}: {problem}")
    assert isinstance(name, str)  # ifname_problem says so otherwise
    return name


def one_line(message: str) -> str:
    """A message for the terminal: control characters a name or value slipped in are shown
    escaped, so one problem is always one line."""
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in message)


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"key {shown(key)} appears twice in one object")
        out[key] = value
    return out


def _no_nan(word: str) -> object:
    raise ValueError(f"{word} is not a number JSON allows")


def strict_json(text: str) -> Any:
    """JSON as a document tuitune trusts it: a key twice in one object, or NaN and the
    infinities, raise ValueError (json.loads would keep the last key and accept NaN)."""
    return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_nan)
