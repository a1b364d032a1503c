"""Every value is checked here before it lands in a file.

The files tuitune writes are read by udev (where `$` and `%` substitute and `"` ends a
value), by systemd (where `%` is a specifier), by sysctl (one key per line) and by /bin/sh
(the irqbalance policy script). Rather than escape for each of them, a value may only hold the
characters its kind needs (an interface name: letters, digits, `_ . -`), so nothing a user
typed or a device reported can add a rule key, a line or a command. A value that does not fit
raises `UnsafeValue` with a message naming the setting and the offending characters.

Pure functions over values, so a leaf: the exporters (core/export/) and the kind handlers
(their own export lines, e.g. kinds/rss.py's `udev_lines`) both import it; it imports no
handler, not the kind table and nothing of core/export (whose package imports the table).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.qdisc_spec import Spec, check_value
from tuitune.core.session.settings import (
    CHANNEL_FIELDS,
    NO_CPUS,
    PAUSE_FIELDS,
    RING_FIELDS,
    Key,
)

T = TypeVar("T")
U32_MAX = 0xFFFFFFFF


class Token:
    """A token pattern and the character class it is made of (to name what does not fit)."""

    def __init__(self, chars: str, pattern: str) -> None:
        self.chars = re.compile(f"[{chars}]")
        self.full = re.compile(pattern.replace("C", f"[{chars}]"))


_IFNAME = Token("A-Za-z0-9_.-", "C{1,15}")
_NETNS = Token("A-Za-z0-9_.-", "C{1,64}")
_SYSCTL_PART = Token("a-z0-9_", "C+")
_SYSCTL_VALUE = Token("A-Za-z0-9_.: -", "[A-Za-z0-9_.:-]+( [A-Za-z0-9_.:-]+)*")
_FEATURE = Token("a-z0-9_-", "[a-z0-9]C*")
_FIELD = Token("a-z0-9-", "[a-z0-9]C*")
# Private flag names are the driver's (i40e's "LinkPolling", mlx5's "rx_cqe_moder").
_PRIV_FLAG = Token("A-Za-z0-9_.-", "[A-Za-z0-9]C{0,31}")
_QUEUE = Token("a-z0-9-", r"(rx|tx)-\d{1,5}")
_IRQ_QUEUE = Token("A-Za-z0-9_.:@+-", "C{1,64}")
_ID_PATH = Token("A-Za-z0-9_.:+-", "C{1,200}")
_DRIVER = Token("A-Za-z0-9_.-", "C{1,64}")
_MAC = Token("0-9a-f:", "[0-9a-f]{2}(:[0-9a-f]{2}){5,31}")
_PATH = Token("A-Za-z0-9_./+-", "/C*")
_COUNT = Token("0-9", r"\d{1,10}")
_QDISC = Token("a-z0-9_ ", "[a-z0-9_]+( [a-z0-9_]+){0,24}")
_CPUS = Token("0-9,:/-", "C+")  # the kernel's list syntax, 0-7:1/2 too
# Per-interface sysctl trees: the part after the prefix is an interface name, dots and all.
IFACE_SYSCTL_TREES = ("net.ipv4.conf.", "net.ipv6.conf.", "net.ipv4.neigh.", "net.ipv6.neigh.")

_NAMED = {
    "\n": "a newline",
    "\r": "a carriage return",
    "\t": "a tab",
    " ": "a space",
    '"': "a double quote",
    "'": "a quote",
    "`": "a backquote",
    "$": "'$'",
    "%": "'%'",
    "\\": "a backslash",
    "#": "'#'",
    ";": "';'",
    "=": "'='",
}


class UnsafeValue(ValueError):
    """A value that cannot be written into a file safely; the message says which and why."""


def _what_is_wrong(value: str, allowed: re.Pattern[str]) -> str:
    """Name the characters that do not belong, for a message a user can act on."""
    bad: list[str] = []
    for ch in value:
        if allowed.fullmatch(ch) or ch in bad:
            continue
        bad.append(ch)
    names = [_NAMED.get(ch, repr(ch)) for ch in bad]
    if not names:
        return "not of the expected form"
    return "holds " + ", ".join(names)


def _check(what: str, value: object, token: Token, form: str) -> str:
    what = comment(what)  # a label may hold the hostile value itself
    if not isinstance(value, str):
        raise UnsafeValue(f"{what}: {value!r} is not text")
    if token.full.fullmatch(value):
        return value
    if not value:
        raise UnsafeValue(f"{what}: empty")
    why = _what_is_wrong(value, token.chars)
    raise UnsafeValue(f"{what}: {value!r} {why}; only {form} can go into the files safely")


def ifname(name: str) -> str:
    if name in (".", ".."):
        raise UnsafeValue(f"interface name {name!r} is not a device name")
    form = "letters, digits, '_', '.' and '-' (15 at most)"
    return _check("interface name", name, _IFNAME, form)


def netns(name: str) -> str:
    return _check("network namespace", name, _NETNS, "letters, digits, '_', '.' and '-'")


def sysctl_key(name: str) -> str:
    """A dotted sysctl key as the journal holds it; per-interface keys may hold an interface
    name with dots (net.ipv4.conf.eth0.200.forwarding)."""
    for tree in IFACE_SYSCTL_TREES:
        if name.startswith(tree):
            dev, _, leaf = name[len(tree) :].rpartition(".")
            if dev not in ("all", "default"):
                ifname(dev)
            _check(f"sysctl {name!r}", leaf, _SYSCTL_PART, "lower-case letters, digits and '_'")
            return name
    parts = name.split(".") if isinstance(name, str) else [name]
    if len(parts) < 2:
        raise UnsafeValue(f"sysctl key {name!r} is not a dotted key such as net.core.rmem_max")
    for part in parts:
        _check(f"sysctl key {name!r}", part, _SYSCTL_PART, "lower-case letters, digits and '_'")
    return name


def sysctl_value(key: str, value: str) -> str:
    """The value in the catalog's canonical form (triples single-spaced), one line."""
    try:
        entry: catalog.SysctlEntry | None = catalog.entry(key)
    except KeyError:
        entry = None
    if entry is not None:
        try:
            value = catalog.format_value(entry, catalog.parse_value(entry, value))
        except ValueError as exc:
            raise UnsafeValue(f"{key}: {exc}") from None
    return _check(key, value, _SYSCTL_VALUE, "letters, digits, '_ . : -' and single spaces")


def feature(key: Key) -> str:
    return _check(key.label, key.name, _FEATURE, "lower-case letters, digits, '_' and '-'")


def field_name(key: Key) -> str:
    """The ethtool field of a ring/channels/pause/coalesce key, from the known sets."""
    known = {"ring": RING_FIELDS, "channels": CHANNEL_FIELDS, "pause": PAUSE_FIELDS}.get(key.kind)
    if known is not None and key.name not in known:
        raise UnsafeValue(f"{key.label}: {key.name!r} is not one of {', '.join(known)}")
    return _check(key.label, key.name, _FIELD, "lower-case letters, digits and '-'")


def priv_flag(key: Key) -> str:
    return _check(key.label, key.name, _PRIV_FLAG, "letters, digits, '_', '.' and '-'")


def switch(key: Key, value: str) -> str:
    if value not in ("on", "off"):
        raise UnsafeValue(f"{key.label}: {value!r} is not on or off")
    return value


def number(what: str, value: str) -> str:
    return _check(what, value, _COUNT, "a whole number")


def count(key: Key, value: str, maximum: int = U32_MAX) -> str:
    number(key.label, value)
    if int(value) > maximum:
        raise UnsafeValue(f"{key.label}: {value} is above {maximum}")
    return str(int(value))


def cpus(key: Key, value: str, allow_empty: bool = True) -> frozenset[int]:
    if value == NO_CPUS and allow_empty:
        return frozenset()
    try:
        found = parse_cpulist(_check(key.label, value, _CPUS, "a CPU list"))
    except CpuListError as exc:
        raise UnsafeValue(f"{key.label}: {exc}") from None
    if not found and not allow_empty:
        raise UnsafeValue(f"{key.label}: needs at least one CPU")
    if max(found, default=0) >= 8192:
        raise UnsafeValue(f"{key.label}: CPU {max(found)} is beyond any host")
    return found


def cpu_list(key: Key, value: str) -> str:
    return format_cpulist(cpus(key, value, allow_empty=False))


def qdisc(key: Key, value: str) -> Spec | None:
    """A root qdisc value (qdisc_spec.py): its words and their order, or UnsafeValue."""
    _check(key.label, value, _QDISC, "a qdisc as tuitune writes it")
    try:
        return check_value(value)
    except ValueError as exc:
        raise UnsafeValue(f"{key.label}: {exc}") from None


def queue(key: Key) -> str:
    return _check(key.label, key.name, _QUEUE, "rx-N or tx-N")


def irq_queue(key: Key) -> str:
    """The queue name an IRQ is stored by ("eth2-TxRx-3", "mlx5_comp0@pci:0000:3b:00.0")."""
    if key.queue is None:
        raise UnsafeValue(f"{key.label}: no queue name to store it by (IRQ numbers change)")
    return _check(key.label, key.queue, _IRQ_QUEUE, "letters, digits and '_ . : @ + -'")


def id_path(value: str) -> str:
    return _check("ID_PATH", value, _ID_PATH, "letters, digits and '_ . : + -'")


def driver(value: str) -> str:
    return _check("driver", value, _DRIVER, "letters, digits, '_', '.' and '-'")


def mac(value: str) -> str:
    return _check("MAC address", value.lower(), _MAC, "a MAC address such as 00:1b:21:0a:0b:0c")


def abs_path(what: str, value: str) -> str:
    return _check(what, value, _PATH, "an absolute path of letters, digits and '_ . / + -'")


class Checker:
    """Runs checks and keeps every problem, so one message lists them all."""

    def __init__(self) -> None:
        self.problems: list[str] = []

    def __call__(self, fn: Callable[..., T], *args: object) -> T | None:
        try:
            return fn(*args)
        except UnsafeValue as exc:
            if str(exc) not in self.problems:
                self.problems.append(str(exc))
            return None


def comment(text: str) -> str:
    """Text for a `#` comment: one line of printable characters (a hostname or an original
    value the kernel gave may hold anything)."""
    return "".join(ch if ch.isprintable() and ch not in "\r\n" else "?" for ch in str(text))[:200]
