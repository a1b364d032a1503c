"""Test fakes built from real `ethtool` captures (shared/fixtures/ethtool/*.txt).

The product never parses `ethtool` output: it reads the kernel through ioctl/netlink
(tuitune.core.host.ethtool). Tests, however, need the state of NICs this machine does not have
(mlx5, ixgbe, i40e, ena, ...) and of features veth lacks (rings, coalescing, pause). This module
turns captured `ethtool` text into the product's own values, and `FakeEthtool` serves them
through the same read methods as `Ethtool`.

Parsers (each raises ValueError on text that is not its kind of output, naming what it looks
like instead):

    parse_driver_info  `ethtool -i`   -> DriverInfo
    parse_features     `ethtool -k`   -> tuple[Feature, ...]
    parse_rings        `ethtool -g`   -> Rings
    parse_coalesce     `ethtool -c`   -> Coalesce
    parse_channels     `ethtool -l`   -> Channels
    parse_pause        `ethtool -a`   -> Pause
    parse_stats        `ethtool -S`   -> tuple[tuple[str, int], ...]
    parse_settings     `ethtool IF`   -> dict[str, str] (link settings; not a product read)
    parse_rxfh         `ethtool -x`   -> Indirection (RSS table; not a product read)

Truncated or partial captures parse what is there; what is missing defaults as each parser's
docstring says. A capture that is only ethtool's refusal ("netlink error: Operation not
supported") is not parsed (ValueError); `FakeEthtool` turns it into an `Unavailable`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal, TypeGuard, TypeVar

from tuitune.core.host.ethtool import (
    LEGACY_FEATURE_ALIASES,
    Channels,
    Coalesce,
    DriverInfo,
    Feature,
    Pause,
    Rings,
)
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME
from tuitune.core.values import Unavailable, UnavailableKind

T = TypeVar("T")

CaptureKind = Literal[
    "driver", "features", "rings", "coalesce", "channels", "pause", "stats", "settings", "rxfh"
]
# Kinds served by a read method of the product's `Ethtool` (kind -> method name).
READ_METHODS: Mapping[str, str] = {
    "driver": "driver_info",
    "features": "features",
    "rings": "rings",
    "coalesce": "coalesce",
    "channels": "channels",
    "pause": "pause",
    "stats": "stats",
}
CAPTURE_KINDS: tuple[CaptureKind, ...] = (
    "driver",
    "features",
    "rings",
    "coalesce",
    "channels",
    "pause",
    "stats",
    "settings",
    "rxfh",
)
# The `what` the product puts in front of an Unavailable reason ("rings: not supported by veth").
WHAT: Mapping[str, str] = {
    "driver": "driver info",
    "features": "features",
    "rings": "rings",
    "coalesce": "coalesce",
    "channels": "channels",
    "pause": "pause",
    "stats": "stats",
    "settings": "link settings",
    "rxfh": "rx flow hash",
}
# The command line that prints each kind (for messages).
COMMAND: Mapping[str, str] = {
    "driver": "ethtool -i",
    "features": "ethtool -k",
    "rings": "ethtool -g",
    "coalesce": "ethtool -c",
    "channels": "ethtool -l",
    "pause": "ethtool -a",
    "stats": "ethtool -S",
    "settings": "ethtool IF",
    "rxfh": "ethtool -x",
}

# ---- capture file names ------------------------------------------------------------------

_OPTION_KINDS: Mapping[str, CaptureKind] = {
    "-i": "driver",
    "-k": "features",
    "-g": "rings",
    "-c": "coalesce",
    "-l": "channels",
    "-a": "pause",
    "-S": "stats",
    "-x": "rxfh",
}
_OPTION_TOKEN = re.compile(r"(?<=_)(-[A-Za-z])(?=_|\.txt$)")
_NOOPT_TOKEN = re.compile(r"(?:^|_)noopt(?=_|\.txt$)")


def capture_kind(filename: str) -> CaptureKind:
    """The kind of capture a fixture file holds, from the option in its name.

    The option is a `_-X_` (or `_-X.txt`) token: `netutils_bnx2_eth0_-c.txt` is `ethtool -c`,
    `ena_ens5_-i_ena1.0.2_centos7.txt` is `ethtool -i`; `noopt` marks plain `ethtool IF`.
    Raises ValueError when the name has no known option, or options of different kinds.
    """
    kinds: set[CaptureKind] = set()
    for token in _OPTION_TOKEN.findall(filename):
        kind = _OPTION_KINDS.get(token)
        if kind is None:
            raise ValueError(f"{filename}: ethtool option {token} has no parser here")
        kinds.add(kind)
    if _NOOPT_TOKEN.search(filename):
        kinds.add("settings")
    if len(kinds) != 1:
        found = ", ".join(sorted(kinds)) or "none"
        raise ValueError(
            f"{filename}: cannot tell the capture kind from the name (found: {found}); "
            "name it with one `_-X_` option token (-i -k -g -c -l -a -S -x) or `_noopt`"
        )
    return kinds.pop()


# ---- shared line handling ----------------------------------------------------------------

# Lines ethtool prints instead of (or among) the values when the kernel refuses.
_REFUSAL = re.compile(
    r"Operation not supported|Operation not permitted|No such device|no stats available"
    r"|^netlink error:|^Cannot get ",
)
_HEADERS: tuple[tuple[str, CaptureKind], ...] = (
    ("Ring parameters for ", "rings"),
    ("Channel parameters for ", "channels"),
    ("Coalesce parameters for ", "coalesce"),
    ("Pause parameters for ", "pause"),
    ("Features for ", "features"),
    ("Settings for ", "settings"),
    ("RX flow hash indirection table for ", "rxfh"),
    ("NIC statistics:", "stats"),
)
_HEADER_IFNAME = re.compile(
    r"^(?:Ring parameters|Channel parameters|Coalesce parameters|Pause parameters|Features"
    r"|Settings|RX flow hash indirection table) for ([^\s:]+)(?::| with )"
)
# One `ethtool -k` line: lower-case kernel or legacy name, on/off, optional notes.
_FEATURE_LINE = re.compile(r"^(\s*)([a-z0-9][a-z0-9_.-]*): (on|off)((?: \[[a-z ]+\])*)$")


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


def _is_refusal(line: str) -> bool:
    return bool(_REFUSAL.search(line.strip()))


def _header_kind(line: str) -> CaptureKind | None:
    for prefix, kind in _HEADERS:
        if line.startswith(prefix):
            return kind
    return None


def _meaningful(text: str) -> list[str]:
    """Non-blank lines that are not ethtool refusals."""
    return [line for line in _lines(text) if line.strip() and not _is_refusal(line)]


def sniff_kind(text: str) -> CaptureKind | None:
    """What kind of `ethtool` output `text` looks like, or None when it is not recognisable.

    A header line ("Ring parameters for eth0:", ...) decides; headerless pastes are told apart
    by keys only one kind has (RX Mini: rings, Combined: channels, Autonegotiate: pause, ...).
    """
    lines = _meaningful(text)
    if not lines:
        return None
    first = lines[0].strip()
    kind = _header_kind(first)
    if kind is not None:
        return kind
    keys = {line.partition(":")[0].strip() for line in lines if ":" in line}
    if first.startswith("driver:"):
        return "driver"
    if keys & {"RX Mini", "RX Jumbo"}:
        return "rings"
    if keys & {"Other", "Combined"}:
        return "channels"
    if "Autonegotiate" in keys:
        return "pause"
    if "Adaptive RX" in first or keys & {"rx-usecs", "tx-usecs", "stats-block-usecs"}:
        return "coalesce"
    if keys & {"Speed", "Duplex", "Link detected"}:
        return "settings"
    if all(_FEATURE_LINE.match(line) for line in lines):
        return "features"
    return None


def _expect(text: str, kind: CaptureKind) -> list[str]:
    """The meaningful lines of `text` after its header; ValueError if it is not `kind`."""
    lines = _meaningful(text)
    found = sniff_kind(text)
    if found == kind and _header_kind(lines[0].strip()) == kind:
        lines = lines[1:]  # a header alone (then ethtool's refusal) is caught below
    if found == kind and lines:
        return lines
    refusals = [line.strip() for line in _lines(text) if line.strip() and _is_refusal(line)]
    if not lines and refusals:
        why = f"it is ethtool's refusal {refusals[0]!r}"
    elif found is not None and found != kind:
        why = f"it looks like `{COMMAND[found]}` output"
    elif lines:
        why = f"first line {lines[0].strip()!r}"
    else:
        why = "it is empty" if found is None else "it has a header and nothing else"
    raise ValueError(f"not `{COMMAND[kind]}` output: {why}")


_SECTION_KEYS = frozenset({"Pre-set maximums", "Current hardware settings"})


def _pairs(lines: list[str], kind: CaptureKind) -> list[tuple[str, str]]:
    """`key: value` pairs (both stripped). A last line without a value is a truncated paste
    and is dropped; any other line without a colon is an error."""
    out: list[tuple[str, str]] = []
    for i, line in enumerate(lines):
        key, sep, value = line.partition(":")
        if not sep:
            raise ValueError(f"`{COMMAND[kind]}` output: unexpected line {line!r}")
        key, value = key.strip(), value.strip()
        if i == len(lines) - 1 and not value and key not in _SECTION_KEYS:
            break  # truncated right after the key ("rx-usecs-low:" at the very end)
        out.append((key, value))
    return out


def _count(kind: CaptureKind, key: str, value: str) -> int:
    """A u32 as ethtool prints it; "n/a" (netlink: not reported) is 0."""
    if value == "n/a":
        return 0
    if not value.isdigit():
        raise ValueError(f"`{COMMAND[kind]}` output: {key} is {value!r}, not a number")
    return int(value)


def _on_off(kind: CaptureKind, key: str, value: str) -> bool:
    if value not in ("on", "off"):
        raise ValueError(f"`{COMMAND[kind]}` output: {key} is {value!r}, not on/off")
    return value == "on"


def header_ifname(text: str) -> str | None:
    """The interface named in a capture's header line, if it has one."""
    for line in _lines(text):
        m = _HEADER_IFNAME.match(line.strip())
        if m:
            return m.group(1)
    return None


# ---- ethtool -i --------------------------------------------------------------------------

# supports-* line -> DriverInfo count it is printed from (ethtool prints "yes" when nonzero).
_SUPPORTS = {
    "supports-priv-flags": "n_priv_flags",
    "supports-statistics": "n_stats",
    "supports-test": "testinfo_len",
    "supports-eeprom-access": "eedump_len",
    "supports-register-dump": "regdump_len",
}


def parse_driver_info(text: str) -> DriverInfo:
    """`ethtool -i` -> DriverInfo.

    Strings are stripped (the mlx4_en capture has trailing spaces after its version). ethtool
    prints only yes/no for the five counts, so "yes" becomes 1 and "no" 0: `info.n_stats > 0`
    means the same as "supports-statistics: yes", but the real count is not known. Missing
    lines (older ethtool has no expansion-rom-version; truncated pastes) default to "" and 0.
    """
    pairs = _pairs(_expect(text, "driver"), "driver")
    strings: dict[str, str] = {}
    counts: dict[str, int] = {field: 0 for field in _SUPPORTS.values()}
    for key, value in pairs:
        if key in _SUPPORTS:
            if value not in ("yes", "no"):
                raise ValueError(f"`ethtool -i` output: {key} is {value!r}, not yes/no")
            counts[_SUPPORTS[key]] = int(value == "yes")
        else:
            strings[key] = value
    if not strings.get("driver"):
        raise ValueError("`ethtool -i` output without a driver name")
    return DriverInfo(
        driver=strings["driver"],
        version=strings.get("version", ""),
        firmware=strings.get("firmware-version", ""),
        erom_version=strings.get("expansion-rom-version", ""),
        bus_info=strings.get("bus-info", ""),
        **counts,
    )


# ---- ethtool -k --------------------------------------------------------------------------

# `ethtool -k` long names of the legacy flags -> the `ethtool -K` short names the product's
# LEGACY_FEATURE_ALIASES maps to kernel feature names (ethtool's off_flag_def).
LEGACY_LONG_NAMES: Mapping[str, str] = {
    "rx-checksumming": "rx",
    "tx-checksumming": "tx",
    "scatter-gather": "sg",
    "tcp-segmentation-offload": "tso",
    "udp-fragmentation-offload": "ufo",
    "generic-segmentation-offload": "gso",
    "generic-receive-offload": "gro",
    "large-receive-offload": "lro",
    "rx-vlan-offload": "rxvlan",
    "tx-vlan-offload": "txvlan",
    "ntuple-filters": "ntuple",
    "receive-hashing": "rxhash",
}


def parse_features(text: str) -> tuple[Feature, ...]:
    """`ethtool -k` -> features named as the product names them (kernel names).

    ethtool prints a legacy flag that stands for exactly one kernel feature under its long
    name ("generic-receive-offload: on" is rx-gro); those are renamed to the kernel name. A
    legacy flag standing for several (tx-checksumming, scatter-gather,
    tcp-segmentation-offload) is a summary line followed by its members, indented; the summary
    is not a kernel feature and is dropped, the members are kept. In a `grep` subset the
    members may be missing: then that group is simply absent.

    Feature fields: available = not "[fixed]"; requested = the "[requested on|off]" note, else
    the active state; never_changed = False; index = position in the parsed tuple (the real
    bit numbers are not in the output).
    """
    lines = _expect(text, "features")
    parsed: list[tuple[str, bool, bool, bool]] = []  # name, active, fixed, requested
    for line in lines:
        m = _FEATURE_LINE.match(line)
        if m is None:
            raise ValueError(f"`ethtool -k` output: unexpected line {line!r}")
        indent, name, state, notes = m.groups()
        active = state == "on"
        fixed = "[fixed]" in notes
        requested = active
        if "[requested on]" in notes:
            requested = True
        elif "[requested off]" in notes:
            requested = False
        if not indent and name in LEGACY_LONG_NAMES:
            kernel = LEGACY_FEATURE_ALIASES[LEGACY_LONG_NAMES[name]]
            if "*" in kernel:
                continue  # group summary; its indented members follow (unless grepped away)
            name = kernel
        parsed.append((name, active, fixed, requested))
    if not parsed:
        raise ValueError("`ethtool -k` output without any feature")
    names = [p[0] for p in parsed]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ValueError(f"`ethtool -k` output: features listed twice: {duplicated}")
    return tuple(
        Feature(name, i, not fixed, requested, active, False)
        for i, (name, active, fixed, requested) in enumerate(parsed)
    )


# ---- ethtool -g / -l ---------------------------------------------------------------------


def _two_sections(
    text: str, kind: CaptureKind, keys: tuple[str, ...]
) -> tuple[dict[str, int], dict[str, int]]:
    """(maximums, current) of an `ethtool -g`/`-l` capture, keyed by the printed names.

    Rows not in `keys` (newer fields such as "RX Buf Len", "CQE Size", "TX Push") are skipped
    whatever their value. Without section headers (a paste that lost them) the first group of
    rows is the maximums and a repeated key starts the current settings.
    """
    maxima: dict[str, int] = {}
    current: dict[str, int] = {}
    section = maxima
    for key, value in _pairs(_expect(text, kind), kind):
        if key == "Pre-set maximums" and not value:
            section = maxima
        elif key == "Current hardware settings" and not value:
            section = current
        elif key in keys:
            if key in section:
                if section is maxima and not current:
                    section = current
                else:
                    raise ValueError(f"`{COMMAND[kind]}` output: {key} listed twice")
            section[key] = _count(kind, key, value)
    if not maxima and not current:
        raise ValueError(f"`{COMMAND[kind]}` output without any of {', '.join(keys)}")
    return maxima, current


_RING_KEYS = ("RX", "RX Mini", "RX Jumbo", "TX")


def parse_rings(text: str) -> Rings:
    """`ethtool -g` -> Rings. "n/a" is 0 (netlink ethtool's spelling of an unused ring), as is
    any row a truncated paste lacks. Extra rows of newer ethtool are ignored."""
    mx, cur = _two_sections(text, "rings", _RING_KEYS)
    return Rings(
        rx=cur.get("RX", 0),
        rx_mini=cur.get("RX Mini", 0),
        rx_jumbo=cur.get("RX Jumbo", 0),
        tx=cur.get("TX", 0),
        rx_max=mx.get("RX", 0),
        rx_mini_max=mx.get("RX Mini", 0),
        rx_jumbo_max=mx.get("RX Jumbo", 0),
        tx_max=mx.get("TX", 0),
    )


_CHANNEL_KEYS = ("RX", "TX", "Other", "Combined")


def parse_channels(text: str) -> Channels:
    """`ethtool -l` -> Channels. "n/a" is 0 (the kernel omits a count whose maximum is 0), as
    is any row a truncated paste lacks."""
    mx, cur = _two_sections(text, "channels", _CHANNEL_KEYS)
    return Channels(
        rx=cur.get("RX", 0),
        tx=cur.get("TX", 0),
        other=cur.get("Other", 0),
        combined=cur.get("Combined", 0),
        rx_max=mx.get("RX", 0),
        tx_max=mx.get("TX", 0),
        other_max=mx.get("Other", 0),
        combined_max=mx.get("Combined", 0),
    )


# ---- ethtool -c --------------------------------------------------------------------------

# `ethtool -c` prints these under other names than `ethtool -C` takes (every ethtool version).
COALESCE_PRINTED_NAMES: Mapping[str, str] = {
    "rx-frame-low": "rx-frames-low",
    "tx-frame-low": "tx-frames-low",
    "rx-frame-high": "rx-frames-high",
    "tx-frame-high": "tx-frames-high",
}
_COALESCE_PAIR_LINE = re.compile(r"^(Adaptive|CQE mode)\s+RX:\s*(\S+)\s+TX:\s*(\S+)$")
_COALESCE_PAIR_NAMES = {"Adaptive": "adaptive", "CQE mode": "cqe-mode"}


def parse_coalesce(text: str, source: Literal["netlink", "ioctl"] | None = None) -> Coalesce:
    """`ethtool -c` -> Coalesce with the `ethtool -C` names the product uses.

    Only parameters shown with a value are kept ("n/a" means the driver does not support it,
    as a netlink reply that omits it), in the product's order (the netlink attribute order).
    "Adaptive RX: on  TX: off" gives adaptive-rx/adaptive-tx and "CQE mode RX/TX" gives
    cqe-mode-rx/-tx, as 1/0. Rows unknown to the product (newer ethtool) are ignored.

    `source` defaults to "netlink" when the capture shows netlink-era output ("n/a" or a CQE
    line), else "ioctl" (old ethtool printed every field, supported or not). A truncated paste
    keeps the rows before the cut, so an "ioctl" capture may then have fewer than 22 fields.
    """
    lines = _expect(text, "coalesce")
    found: dict[str, int] = {}
    netlink_era = False
    rows: list[str] = []
    for line in lines:
        stripped = line.strip()
        m = _COALESCE_PAIR_LINE.match(stripped)
        if m:
            prefix = _COALESCE_PAIR_NAMES[m.group(1)]
            netlink_era |= m.group(1) == "CQE mode"
            for side, value in (("rx", m.group(2)), ("tx", m.group(3))):
                if value == "n/a":
                    netlink_era = True
                else:
                    found[f"{prefix}-{side}"] = int(_on_off("coalesce", f"{prefix}-{side}", value))
        elif stripped.startswith("{"):
            continue  # DIM profile rows of ethtool >= 6.12 ("rx-profile:" then "{.usec = ...")
        else:
            rows.append(line)
    for key, value in _pairs(rows, "coalesce"):
        name = COALESCE_PRINTED_NAMES.get(key, key)
        if name not in COALESCE_BY_NAME or not value:
            continue  # unknown to the product, or a nest header such as "rx-profile:"
        if value == "n/a":
            netlink_era = True
            continue
        found[name] = _count("coalesce", key, value)
    if not found and not netlink_era:
        raise ValueError("`ethtool -c` output without any parameter")
    ordered = tuple(
        (name, found[name]) for name in sorted(found, key=lambda n: COALESCE_BY_NAME[n][0])
    )
    return Coalesce(ordered, source or ("netlink" if netlink_era else "ioctl"))


# ---- ethtool -a --------------------------------------------------------------------------


def parse_pause(text: str) -> Pause:
    """`ethtool -a` -> Pause. "RX/TX negotiated" rows (newer ethtool) are ignored; a row a
    truncated paste lacks is False. At least one of Autonegotiate/RX/TX must be there."""
    values: dict[str, bool] = {}
    for key, value in _pairs(_expect(text, "pause"), "pause"):
        if key in ("Autonegotiate", "RX", "TX"):
            values[key] = _on_off("pause", key, value)
    if not values:
        raise ValueError("`ethtool -a` output without Autonegotiate, RX or TX")
    return Pause(
        autoneg=values.get("Autonegotiate", False),
        rx=values.get("RX", False),
        tx=values.get("TX", False),
    )


# ---- ethtool -S --------------------------------------------------------------------------


def parse_stats(text: str) -> tuple[tuple[str, int], ...]:
    """`ethtool -S` -> (name, value) in driver order, like `Ethtool.stats()`."""
    lines = _expect(text, "stats")
    out: list[tuple[str, int]] = []
    for line in lines:
        name, sep, value = line.strip().rpartition(": ")
        if not sep or not value.isdigit():
            raise ValueError(f"`ethtool -S` output: unexpected line {line!r}")
        out.append((name, int(value)))
    return tuple(out)


# ---- ethtool IF (link settings) ----------------------------------------------------------


def parse_settings(text: str) -> dict[str, str]:
    """`ethtool IF` -> {lower-case key: value}, e.g. "speed": "25000Mb/s", "duplex": "Full",
    "link detected": "yes", "port": "Direct Attach Copper". Continuation lines (the link mode
    lists) are joined to their key's value with single spaces."""
    out: dict[str, str] = {}
    last: str | None = None
    for line in _expect(text, "settings"):
        key, sep, value = line.partition(":")
        if sep and key.strip() and not key.startswith(" " * 16):
            last = key.strip().lower()
            out[last] = " ".join(value.split())
        elif last is not None:
            out[last] = " ".join([*out[last].split(), *line.split()])
        else:
            raise ValueError(f"`ethtool IF` output: unexpected line {line!r}")
    if not out:
        raise ValueError("`ethtool IF` output without any setting")
    return out


# ---- ethtool -x --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Indirection:
    """`ethtool -x`: the RSS indirection table (entry -> RX ring)."""

    ring_count: int
    table: tuple[int, ...]


_RXFH_HEADER = re.compile(r"with (\d+) RX ring\(s\):$")
_RXFH_ROW = re.compile(r"^\s*(\d+):((?:\s+\d+)+)$")


def parse_rxfh(text: str) -> Indirection:
    """`ethtool -x` -> Indirection. Stops at the "RSS hash key:" section of newer ethtool."""
    _expect(text, "rxfh")
    lines = _meaningful(text)
    m = _RXFH_HEADER.search(lines[0])
    if m is None:
        raise ValueError(f"`ethtool -x` output: header without a ring count: {lines[0]!r}")
    table: list[int] = []
    for line in lines[1:]:
        row = _RXFH_ROW.match(line)
        if row is None:
            break  # "RSS hash key:", "RSS hash function:", ...
        if int(row.group(1)) != len(table):
            raise ValueError(f"`ethtool -x` output: row {row.group(1)} after {len(table)} entries")
        table.extend(int(v) for v in row.group(2).split())
    if not table:
        raise ValueError("`ethtool -x` output without an indirection table")
    return Indirection(int(m.group(1)), tuple(table))


# ---- the fake ----------------------------------------------------------------------------

Capture = (
    str
    | Unavailable
    | DriverInfo
    | tuple[Feature, ...]
    | Rings
    | Coalesce
    | Channels
    | Pause
    | tuple[tuple[str, int], ...]
    | dict[str, str]
    | Indirection
)


def _is_features(value: object) -> TypeGuard[tuple[Feature, ...]]:
    return isinstance(value, tuple) and all(isinstance(f, Feature) for f in value)


def _is_stats(value: object) -> TypeGuard[tuple[tuple[str, int], ...]]:
    return isinstance(value, tuple) and all(
        isinstance(s, tuple)
        and len(s) == 2
        and isinstance(s[0], str)
        and isinstance(s[1], int)
        and not isinstance(s[1], bool)
        for s in value
    )


def _is_settings(value: object) -> TypeGuard[dict[str, str]]:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def _refusal(text: str) -> tuple[UnavailableKind, str] | None:
    """(kind, ethtool's words) when `text` holds nothing but a refusal, else None."""
    lines = [line.strip() for line in _lines(text) if line.strip()]
    errors = [line for line in lines if _is_refusal(line)]
    rest = [line for line in lines if not _is_refusal(line) and _header_kind(line) is None]
    if not errors or rest:
        return None
    words = errors[0]
    if "Operation not permitted" in words:
        return "permission", words
    if "No such device" in words:
        return "missing", words
    return "unsupported", words  # "Operation not supported", "no stats available"


class FakeEthtool:
    """The read side of `tuitune.core.host.ethtool.Ethtool`, served from captures.

    `captures` maps a kind (CAPTURE_KINDS: "driver", "features", "rings", "coalesce",
    "channels", "pause", "stats", plus "settings" and "rxfh", which the product does not read)
    to the captured text, an already parsed value or an `Unavailable`. Texts are parsed here,
    so a bad capture fails at construction. A kind not given reads as
    Unavailable("missing", "<what>: not recorded"); a capture that is only ethtool's
    "Operation not supported" reads as Unavailable("unsupported", "<what>: not supported by
    <driver>") like the product's own message (driver from the "driver" capture, else ifname).

    `ifname` defaults to the interface named in any capture header, else "fake0".
    """

    def __init__(self, captures: Mapping[str, Capture], ifname: str | None = None) -> None:
        unknown = sorted(set(captures) - set(CAPTURE_KINDS))
        if unknown:
            raise ValueError(f"unknown capture kinds {unknown}; known: {list(CAPTURE_KINDS)}")
        if ifname is None:
            named = (header_ifname(v) for v in captures.values() if isinstance(v, str))
            ifname = next((n for n in named if n), "fake0")
        self.ifname = ifname
        self.closed = False
        self.calls: list[str] = []  # read methods called, in order
        self.files: dict[CaptureKind, Path] = {}  # set by fake_for: kind -> capture file
        self._captures = captures
        self._label = ifname
        self._driver_info = self._take("driver", parse_driver_info, DriverInfo)
        if isinstance(self._driver_info, DriverInfo):
            self._label = self._driver_info.driver or ifname
        features = self._take_text("features", parse_features)
        if features is None:
            raw = captures["features"]
            if not _is_features(raw):
                raise TypeError(f"features capture must be text or Features, not {raw!r}")
            features = raw
        self._features = features
        self._rings = self._take("rings", parse_rings, Rings)
        self._coalesce = self._take("coalesce", parse_coalesce, Coalesce)
        self._channels = self._take("channels", parse_channels, Channels)
        self._pause = self._take("pause", parse_pause, Pause)
        stats = self._take_text("stats", parse_stats)
        if stats is None:
            raw = captures["stats"]
            if not _is_stats(raw):
                raise TypeError(f"stats capture must be text or (name, value) pairs: {raw!r}")
            stats = raw
        self._stats = stats
        settings = self._take_text("settings", parse_settings)
        if settings is None:
            raw = captures["settings"]
            if not _is_settings(raw):
                raise TypeError(f"settings capture must be text or dict[str, str]: {raw!r}")
            settings = dict(raw)
        self._settings = settings
        self._rxfh = self._take("rxfh", parse_rxfh, Indirection)

    def _take_text(self, kind: str, parse: Callable[[str], T]) -> T | Unavailable | None:
        """Parsed text, the Unavailable a kind stands for, or None for a parsed value given."""
        what = WHAT[kind]
        if kind not in self._captures:
            return Unavailable("missing", f"{what}: not recorded")
        value = self._captures[kind]
        if isinstance(value, Unavailable):
            return value
        if not isinstance(value, str):
            return None
        refused = _refusal(value)
        if refused is not None:
            state, words = refused
            if state == "unsupported":
                return Unavailable(state, f"{what}: not supported by {self._label}")
            if state == "permission":
                return Unavailable(state, f"{what}: needs root")
            return Unavailable(state, f"{what}: not present ({words})")
        return parse(value)

    def _take(self, kind: str, parse: Callable[[str], T], cls: type[T]) -> T | Unavailable:
        got = self._take_text(kind, parse)
        if got is not None:
            return got
        value = self._captures[kind]
        if not isinstance(value, cls):
            raise TypeError(f"{kind} capture must be text or {cls.__name__}, not {value!r}")
        return value

    # ---- the product's read methods ------------------------------------------------------

    def close(self) -> None:
        self.closed = True

    def __enter__(self) -> FakeEthtool:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def driver_info(self) -> DriverInfo | Unavailable:
        self.calls.append("driver_info")
        return self._driver_info

    def features(self) -> tuple[Feature, ...] | Unavailable:
        self.calls.append("features")
        return self._features

    def rings(self) -> Rings | Unavailable:
        self.calls.append("rings")
        return self._rings

    def channels(self) -> Channels | Unavailable:
        self.calls.append("channels")
        return self._channels

    def pause(self) -> Pause | Unavailable:
        self.calls.append("pause")
        return self._pause

    def coalesce(self) -> Coalesce | Unavailable:
        self.calls.append("coalesce")
        return self._coalesce

    def stats(self) -> tuple[tuple[str, int], ...] | Unavailable:
        self.calls.append("stats")
        return self._stats

    # Private flags and FEC have their own captures and fakes (ethtool_driver_text.py):
    # a capture host has them not recorded.
    def priv_flags(self) -> Unavailable:
        return Unavailable("missing", "private flags: not recorded")

    def ioctl_read(self, op: object) -> Unavailable:  # a kind's own command (FEC's)
        return Unavailable("missing", f"{getattr(op, 'what', '?')}: not recorded")

    # ---- captures the product has no read for ---------------------------------------------

    def link_settings(self) -> dict[str, str] | Unavailable:
        """`ethtool IF` as parse_settings gives it (a copy)."""
        return dict(self._settings) if isinstance(self._settings, dict) else self._settings

    def rxfh(self) -> Indirection | Unavailable:
        return self._rxfh


def capture_files(fixtures_dir: Path, prefix: str) -> dict[CaptureKind, Path]:
    """kind -> file for the captures of one device: the files whose names start with `prefix`.

    `fixtures_dir` is the shared fixtures root (or its ethtool/ directory). Raises
    FileNotFoundError when nothing matches and ValueError when two files have the same kind
    (e.g. a prefix that covers the before/after pair of one device).
    """
    directory = fixtures_dir / "ethtool" if (fixtures_dir / "ethtool").is_dir() else fixtures_dir
    found: dict[CaptureKind, Path] = {}
    for path in sorted(directory.glob("*.txt")):
        if not path.name.startswith(prefix):
            continue
        kind = capture_kind(path.name)
        if kind in found:
            raise ValueError(
                f"prefix {prefix!r} matches two {kind} captures: {found[kind].name}, {path.name}"
            )
        found[kind] = path
    if not found:
        raise FileNotFoundError(f"no ethtool capture in {directory} starts with {prefix!r}")
    return found


def fake_for(fixtures_dir: Path, prefix: str, ifname: str | None = None) -> FakeEthtool:
    """A FakeEthtool from every capture file of one device, e.g.
    `fake_for(fixtures_dir, "mlx5_core_cx4lx_enp1s0f0np0_pve-6.8_")` (-i -k -g -c -l and
    settings) or `fake_for(fixtures_dir, "netutils_ixgbe-82599_eth2_")` (-i -c -g)."""
    files = capture_files(fixtures_dir, prefix)
    fake = FakeEthtool({kind: path.read_text() for kind, path in files.items()}, ifname)
    fake.files = files
    return fake


def iter_capture_files(fixtures_dir: Path) -> Iterator[Path]:
    """Every file of the ethtool fixture directory (all of them, not only *.txt)."""
    directory = fixtures_dir / "ethtool" if (fixtures_dir / "ethtool").is_dir() else fixtures_dir
    yield from sorted(p for p in directory.iterdir() if p.is_file())
