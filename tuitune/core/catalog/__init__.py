"""The sysctl catalog: every kernel knob tuitune shows, what it does, and what the reference
documents (tuitune.core.catalog.sources) measured when they turned it.

This module holds the types, the lookup and the value parsing/formatting; the entries themselves
(long help texts) are data, in tuitune/core/catalog/data/sysctl.toml, read once at import by
`load_sysctls`. The non-sysctl knobs (offloads, rings, coalescing, affinity...) are in
tuitune.core.catalog.device.

Nothing here reads or writes /proc: callers read the text elsewhere and hand it to
`parse_value`; `format_value` gives the text to write back.

Keys are dotted sysctl names ("net.ipv4.tcp_rmem"). The catalog holds no interface-specific keys
such as net.ipv4.conf.eth0.forwarding; a VLAN name like eth0.200 would contain a dot, which the
plain dot-to-slash mapping of `path_of` cannot express (sysctl(8) writes such names with "/" as
the separator instead). Keys with "all" or "default" in place of an interface name are fine.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from tuitune.core.catalog.load import DATA_DIR, CatalogDataError, load
from tuitune.core.catalog.sources import SOURCE_IDS

Scope = Literal["netns", "host"]
""""netns": each network namespace has its own copy; "host": one value for the whole kernel."""

Kind = Literal["int", "bool", "int_triple", "choice", "string", "trigger"]
Context = Literal["LAN", "WAN", "general"]
Value = int | bool | tuple[int, int, int] | str

INT_MAX = 2**31 - 1
UINT_MAX = 2**32 - 1


@dataclass(frozen=True, slots=True)
class Advice:
    """One piece of advice about a knob, and the document it comes from."""

    source: str  # id in tuitune.core.catalog.sources.SOURCES
    context: Context  # the situation the advice was given for
    value: str | None  # the value the document used or recommended, as it wrote it
    finding: str  # what it measured or states, in tuitune's own words, with figures


@dataclass(frozen=True, slots=True)
class SysctlEntry:
    key: str  # dotted name "net.ipv4.tcp_rmem"
    kind: Kind
    scope: Scope
    summary: str  # one line, <= 70 chars
    help: str  # a few sentences: what it does, what the documents measured, advice
    sources: tuple[Advice, ...]
    minimum: int | None = None  # applies to each of the three numbers of an int_triple
    maximum: int | None = None
    choices_key: str | None = None  # sysctl whose value lists the valid choices
    unit: str | None = None  # "bytes", "packets", "us", "pages", "connections"
    removed_in: str | None = None  # kernel version that dropped the file
    noop_since: str | None = None  # kernel version since which writing it changes nothing
    writable: bool = True
    readable: bool = True
    # Names of the three numbers of an int_triple, for messages and editors.
    parts: tuple[str, str, str] = ("min", "default", "max")
    # Host-scoped values that newer kernels also show, read-only, inside child namespaces.
    netns_readonly_copy: bool = False
    scope_note: str | None = None  # kernel versions where the scope changed, if known

    @property
    def name(self) -> str:
        """The key without its "net.ipv4." / "net.core." prefix, for messages: "tcp_rmem"."""
        for prefix in ("net.ipv4.", "net.core.", "net."):
            if self.key.startswith(prefix):
                return self.key[len(prefix) :]
        return self.key

    @property
    def path(self) -> str:
        """Path below /proc/sys: "net/ipv4/tcp_rmem"."""
        return path_of(self.key)


def path_of(key: str) -> str:
    """ "net.ipv4.tcp_rmem" -> "net/ipv4/tcp_rmem" (relative to /proc/sys).

    Only for catalog-style keys: a dot inside an interface name (eth0.200) is not supported.
    """
    if not key or "/" in key or key.startswith(".") or key.endswith(".") or ".." in key:
        raise ValueError(f"not a dotted sysctl key: {key!r}")
    return key.replace(".", "/")


# --- kernel versions ----------------------------------------------------------------------------


def version_tuple(release: str) -> tuple[int, ...]:
    """ "6.18.44-fc-v669" -> (6, 18, 44); "4.12" -> (4, 12). Raises ValueError if no version."""
    m = re.match(r"(\d+(?:\.\d+)*)", release.strip())
    if m is None:
        raise ValueError(f"no kernel version in {release!r}")
    return tuple(int(p) for p in m.group(1).split("."))


def _at_least(release: str, version: str) -> bool:
    have, want = version_tuple(release), version_tuple(version)
    width = max(len(have), len(want))
    return have + (0,) * (width - len(have)) >= want + (0,) * (width - len(want))


def removed_on(e: SysctlEntry, release: str) -> bool:
    """True if the kernel `release` (as in `uname -r`) no longer has this sysctl."""
    return e.removed_in is not None and _at_least(release, e.removed_in)


def noop_on(e: SysctlEntry, release: str) -> bool:
    """True if on kernel `release` this sysctl is still accepted but changes nothing."""
    return e.noop_since is not None and _at_least(release, e.noop_since)


# --- parsing and formatting ---------------------------------------------------------------------

# ASCII digits only, like the kernel's parser; 20 at most (a 64-bit value), so int() never
# meets 5,000 digits (its own ValueError, a message about Python, not the sysctl).
_INT = re.compile(r"[+-]?0*[0-9]{1,20}")
_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")
_VERSION = re.compile(r"[0-9]+(?:\.[0-9]+)*")  # a kernel version as the catalog writes it


def _bounds_text(e: SysctlEntry) -> str:
    if e.minimum is not None and e.maximum is not None:
        return f"between {e.minimum} and {e.maximum}"
    if e.minimum is not None:
        return f">= {e.minimum}"
    return f"<= {e.maximum}"


def _check_bounds(e: SysctlEntry, v: int, what: str = "") -> int:
    low_bad = e.minimum is not None and v < e.minimum
    high_bad = e.maximum is not None and v > e.maximum
    if low_bad or high_bad:
        unit = f" {e.unit}" if e.unit else ""
        label = f"{e.name} {what}".rstrip()
        raise ValueError(f"{label} must be {_bounds_text(e)}{unit}, got {v}")
    return v


def _triple_text(e: SysctlEntry) -> str:
    return " ".join(e.parts)


def _check_triple(e: SysctlEntry, t: tuple[int, int, int]) -> tuple[int, int, int]:
    for part, v in zip(e.parts, t, strict=True):
        _check_bounds(e, v, f"{part} value")
    if not t[0] <= t[1] <= t[2]:
        a, b, c = e.parts
        raise ValueError(f"{e.name} needs {a} <= {b} <= {c}, got {t[0]} {t[1]} {t[2]}")
    return t


def _strip_quotes(text: str) -> str:
    s = text.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        s = s[1:-1].strip()
    return s


def parse_value(e: SysctlEntry, text: str, *, choices: Collection[str] | None = None) -> Value:
    """Parse the text of a sysctl (as read from /proc or typed by the user) for entry `e`.

    Returns int (int, trigger), bool (bool: from "0"/"1" only), a 3-tuple (int_triple) or str
    (choice, string). Raises ValueError with a message fit for the user. For a "choice", pass
    `choices` (e.g. the split value of `e.choices_key`) to also check membership; the kernel may
    accept a name not listed yet (it loads the module), so that check is the caller's choice.
    """
    s = _strip_quotes(text)
    if e.kind == "bool":
        if s not in ("0", "1"):
            raise ValueError(f"{e.name} needs 0 or 1, got {text!r}")
        return s == "1"
    if e.kind in ("int", "trigger"):
        if not _INT.fullmatch(s):
            if e.kind == "trigger":
                raise ValueError(
                    f"{e.name} is a write-only trigger: give an integer such as 1, got {text!r}"
                )
            raise ValueError(f"{e.name} needs an integer, got {text!r}")
        return _check_bounds(e, int(s))
    if e.kind == "int_triple":
        words = s.split()
        if len(words) != 3 or not all(_INT.fullmatch(w) for w in words):
            raise ValueError(f"{e.name} needs three integers {_triple_text(e)}, got {text!r}")
        a, b, c = (int(w) for w in words)
        return _check_triple(e, (a, b, c))
    if e.kind == "choice":
        if not _TOKEN.fullmatch(s):
            raise ValueError(f"{e.name} needs one name such as 'cubic', got {text!r}")
        if choices is not None and s not in choices:
            listed = ", ".join(sorted(choices)) or "none"
            raise ValueError(f"{e.name}: {s!r} is not available here (available: {listed})")
        return s
    # "string": writable strings are one name; read-only ones may be a list of names.
    if e.writable:
        if not _TOKEN.fullmatch(s):
            raise ValueError(f"{e.name} needs one name without spaces, got {text!r}")
        return s
    return " ".join(s.split())


def format_value(e: SysctlEntry, value: Value) -> str:
    """The text to write for `value` (the inverse of `parse_value`); validates like it.

    Triples are written with single spaces, which the kernel and sysctl.conf both accept.
    Whether the entry may be written at all (`e.writable`) is for the writer to check.
    """
    if e.kind == "bool":
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, int) and value in (0, 1):
            return str(value)
        raise ValueError(f"{e.name} needs a boolean (or 0/1), got {value!r}")
    if e.kind in ("int", "trigger"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{e.name} needs an integer, got {value!r}")
        return str(_check_bounds(e, value))
    if e.kind == "int_triple":
        if (
            not isinstance(value, tuple)
            or len(value) != 3
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        ):
            raise ValueError(f"{e.name} needs three integers {_triple_text(e)}, got {value!r}")
        a, b, c = _check_triple(e, value)
        return f"{a} {b} {c}"
    if not isinstance(value, str):
        raise ValueError(f"{e.name} needs a name, got {value!r}")
    parsed = parse_value(e, value)
    assert isinstance(parsed, str)
    return parsed


def split_choices(text: str) -> tuple[str, ...]:
    """ "reno bbr cubic" (the text of a choices_key) -> ("reno", "bbr", "cubic")."""
    return tuple(text.split())


# --- the catalog --------------------------------------------------------------------------------


def check_advice(advice: tuple[Advice, ...]) -> None:
    """ValueError unless every Advice names a known source; shared with the device help."""
    for n, a in enumerate(advice, 1):
        if a.source not in SOURCE_IDS:
            known = ", ".join(sorted(SOURCE_IDS))
            raise ValueError(f"sources #{n}: unknown source {a.source!r} (known: {known})")


def _check_entry(e: SysctlEntry) -> None:
    path_of(e.key)
    for what, version in (("removed_in", e.removed_in), ("noop_since", e.noop_since)):
        if version is not None and not _VERSION.fullmatch(version):
            raise ValueError(f"{what}: needs a kernel version such as '4.14', got {version!r}")
    if e.minimum is not None and e.maximum is not None and e.minimum > e.maximum:
        raise ValueError(f"minimum {e.minimum} is above maximum {e.maximum}")
    if (e.kind == "choice") != (e.choices_key is not None):
        raise ValueError("choices_key is for kind 'choice', and kind 'choice' needs one")
    check_advice(e.sources)


def load_sysctls(path: Path = DATA_DIR / "sysctl.toml") -> tuple[SysctlEntry, ...]:
    """The entries of a sysctl data file; CatalogDataError naming the file and entry if bad."""
    entries = load(path, "sysctl", SysctlEntry, id_field="key", check=_check_entry)
    keys = {e.key for e in entries}
    for e in entries:
        if e.choices_key is not None and e.choices_key not in keys:
            raise CatalogDataError(
                f"{path}: sysctl {e.key!r}: choices_key {e.choices_key!r} is not in the file"
            )
    return entries


SYSCTLS: tuple[SysctlEntry, ...] = load_sysctls()
_BY_KEY: dict[str, SysctlEntry] = {e.key: e for e in SYSCTLS}


def entry(key: str) -> SysctlEntry:
    """The catalog entry for a dotted key; KeyError naming close matches if there is none."""
    try:
        return _BY_KEY[key]
    except KeyError:
        pass
    dotted = key.strip().replace("/", ".")
    if dotted in _BY_KEY:
        return _BY_KEY[dotted]
    near = difflib.get_close_matches(dotted, _BY_KEY, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise KeyError(f"{key!r} is not in tuitune's sysctl catalog{hint}") from None


def keys() -> tuple[str, ...]:
    return tuple(_BY_KEY)
