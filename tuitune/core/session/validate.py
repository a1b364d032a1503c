"""Typed text -> canonical value, with a message fit for the user when it is not valid.

Pure functions: the limits (ring maxima, online CPUs, MTU bounds) are read elsewhere and passed
in, so every message can be tested without a kernel. Nothing is ever written from here.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.session.settings import NO_CPUS, Key

U32_MAX = 0xFFFFFFFF
_WHOLE = re.compile(r"[+-]?[0-9]+")  # not \d: "١٥٠٠" is no MTU a user meant to type
_ON = ("on", "true", "yes", "1")
_OFF = ("off", "false", "no", "0")


MESSAGE_MAX = 200  # a message repeats what was typed: a pasted 5,000 characters stay one line


def one_line(message: str, limit: int = MESSAGE_MAX) -> str:
    """`message` on one line of bounded length: the middle of a long one elided."""
    text = " ".join(message.splitlines())
    if len(text) <= limit:
        return text
    half = (limit - 5) // 2
    return f"{text[:half]} ... {text[-half:]}"


class InvalidValue(ValueError):
    """What the user typed cannot be written; the message says why. Nothing was written."""

    def __init__(self, key: Key, message: str) -> None:
        message = one_line(message)
        super().__init__(message)
        self.key = key
        self.message = message


class BeyondDevice(InvalidValue):
    """A value this device cannot take though another one could (a channel count above its
    maximum): a profile written on a bigger device skips it and applies the rest."""


def _clean(key: Key, text: str, example: str) -> str:
    if not isinstance(text, str):
        raise InvalidValue(key, f"{key.label}: expected text such as {example}, got {text!r}")
    s = text.strip()
    if not s:
        raise InvalidValue(key, f"{key.label}: empty; enter a value such as {example}")
    return s


def parse_count(
    key: Key, text: str, *, minimum: int = 0, maximum: int | None = U32_MAX, unit: str = ""
) -> str:
    """A whole number within [minimum, maximum] (maximum None: no upper bound)."""
    example = str(minimum if maximum is None else min(max(minimum, 1), maximum))
    s = _clean(key, text, example)
    if not _WHOLE.fullmatch(s):
        raise InvalidValue(key, f"{key.label}: {s!r} is not a whole number")
    if len(s.lstrip("+-").lstrip("0")) > 20:  # beyond any 64-bit value; int() stops at 4300
        sign = "below the minimum" if s.startswith("-") else "above the maximum"
        raise InvalidValue(key, f"{key.label}: {s[:12]}... ({len(s)} digits) is {sign}")
    v = int(s)
    if v < 0 and minimum >= 0:
        raise InvalidValue(key, f"{key.label}: cannot be negative ({v})")
    suffix = f" {unit}" if unit else ""
    if v < minimum:
        raise InvalidValue(key, f"{key.label}: {v} is below the minimum {minimum}{suffix}")
    if maximum is not None and v > maximum:
        raise InvalidValue(key, f"{key.label}: {v} is above the maximum {maximum}{suffix}")
    return str(v)


def parse_switch(key: Key, text: str) -> str:
    """on/off (also true/false, yes/no, 1/0) -> "on" or "off"."""
    s = _clean(key, text, "on or off").lower()
    if s in _ON:
        return "on"
    if s in _OFF:
        return "off"
    raise InvalidValue(key, f"{key.label}: {s!r} is not on or off")


def parse_power_of_two(key: Key, text: str, maximum: int) -> str:
    """rps_flow_cnt: the kernel rounds any count up to a power of two; ask for one exactly, so
    that what is written is what reads back."""
    v = int(parse_count(key, text, maximum=maximum))
    if v and v & (v - 1):
        up = 1 << v.bit_length()
        raise InvalidValue(
            key, f"{key.label}: {v} is not a power of two (the kernel would make it {up})"
        )
    return str(v)


@dataclass(frozen=True, slots=True)
class HostCpus:
    """What a typed CPU list is checked against (see `parse_cpus`): the host's online and
    present CPUs and nr_cpu_ids."""

    online: frozenset[int]
    present: frozenset[int]
    possible: int | None

    def parse(self, key: Key, text: str, *, allow_empty: bool, current: str | None) -> str:
        return parse_cpus(
            key,
            text,
            online=self.online,
            present=self.present,
            allow_empty=allow_empty,
            current=current,
            possible=self.possible,
        )


def parse_cpus(
    key: Key,
    text: str,
    *,
    online: frozenset[int],
    present: frozenset[int],
    allow_empty: bool,
    current: str | None = None,
    possible: int | None = None,
) -> str:
    """A CPU list such as "0-3,8". Every CPU must exist and be online. `allow_empty`: "none"
    (RPS/XPS off) is a valid answer; an IRQ always needs at least one CPU. The `current`
    value is always accepted as it is: a saved state may hold an offline CPU (the kernel's
    default affinity lists every possible CPU), and keeping a value changes nothing.
    `possible`: the host's CPU count (nr_cpu_ids), which bounds the list before it is expanded
    and gives the kernel's "N" (last CPU) and "all" their meaning."""
    example = "0-3,8" if not allow_empty else "0-3,8 or none"
    s = _clean(key, text, example)
    if s.lower() == NO_CPUS:
        if allow_empty:
            return NO_CPUS
        raise InvalidValue(key, f"{key.label}: needs at least one CPU")
    try:
        cpus = parse_cpulist(s, possible)
        kept = current is not None and current != NO_CPUS and cpus == parse_cpulist(current)
    except CpuListError as exc:
        raise InvalidValue(key, f"{key.label}: {exc}") from None
    if kept:
        return format_cpulist(cpus)
    here = format_cpulist(online) or "none"
    missing = sorted(cpus - present - online)
    if missing:
        word = "CPU" if len(missing) == 1 else "CPUs"
        raise InvalidValue(
            key,
            f"{key.label}: {word} {format_cpulist(missing)} not on this host (online CPUs: {here})",
        )
    offline = sorted(cpus - online)
    if offline:
        word = "CPU" if len(offline) == 1 else "CPUs"
        verb = "is" if len(offline) == 1 else "are"
        raise InvalidValue(
            key, f"{key.label}: {word} {format_cpulist(offline)} {verb} offline (online: {here})"
        )
    return format_cpulist(cpus)


def parse_sysctl(
    key: Key, entry: catalog.SysctlEntry, text: str, choices: Collection[str] | None
) -> str:
    """A sysctl value through the catalog's own parser (types, bounds, triples, choices)."""
    s = _clean(key, text, _sysctl_example(entry))
    try:
        value = catalog.parse_value(entry, s, choices=choices)
        return catalog.format_value(entry, value)
    except ValueError as exc:
        msg = str(exc)
        # The catalog names the knob briefly ("tcp_rmem needs..."); say the full key once.
        if msg.startswith(entry.name):
            raise InvalidValue(key, key.label + msg[len(entry.name) :]) from None
        raise InvalidValue(key, f"{key.label}: {msg}") from None


def canonical_sysctl(entry: catalog.SysctlEntry, raw: str) -> str:
    """The kernel's text as the catalog would write it (a malformed read stays as it is)."""
    try:
        return catalog.format_value(entry, catalog.parse_value(entry, raw))
    except ValueError:
        return raw


def _sysctl_example(entry: catalog.SysctlEntry) -> str:
    if entry.kind == "bool":
        return "0 or 1"
    if entry.kind == "int_triple":
        return "'4096 131072 6291456'"
    if entry.kind in ("choice", "string"):
        return "a name such as 'cubic'"
    return "a whole number"
