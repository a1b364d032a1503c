"""Parsers of captured `ethtool --show-priv-flags` and `ethtool --show-fec` text (the captures
in tests/fixtures/captures/ethtool_driver/, SOURCES.md there) into the product's own values,
for fakes of the private-flag and FEC kinds. The product reads the kernel, never this text."""

from __future__ import annotations

from pathlib import Path

from tuitune.core.session.kinds.fec import Fec, fec_mask

CAPTURES = Path(__file__).resolve().parents[2] / "fixtures" / "captures" / "ethtool_driver"
I40E_PRIV_FLAGS = CAPTURES / "i40e_eno1_show-priv-flags_stable6.12.txt"
ICE_FEC = CAPTURES / "ice_ens21f0np0_show-fec_iwl2024.txt"


def parse_priv_flags(text: str) -> tuple[tuple[str, bool], ...]:
    """(name, on) in the order ethtool printed them (the driver's bit order)."""
    lines = text.strip().splitlines()
    if not lines or not lines[0].startswith("Private flags for "):
        raise ValueError(f"not ethtool --show-priv-flags output: {lines[:1]!r}")
    out = []
    for line in lines[1:]:
        name, sep, value = line.rpartition(":")
        if not sep or value.strip() not in ("on", "off"):
            raise ValueError(f"not a private flag line: {line!r}")
        out.append((name.strip(), value.strip() == "on"))
    return tuple(out)


def parse_fec(text: str) -> Fec:
    """Configured and active encodings; "Supported/Configured" (ethtool 6.x) or
    "Configured" (older) alike."""
    fields: dict[str, str] = {}
    for line in text.splitlines():
        head, sep, value = line.partition(":")
        if sep:
            fields[head.strip()] = value.strip()
    configured = fields.get("Supported/Configured FEC encodings")
    configured = configured or fields.get("Configured FEC encodings")
    active = fields.get("Active FEC encoding")
    masks = [fec_mask(v) if v is not None else None for v in (configured, active)]
    if masks[0] is None or masks[1] is None:
        raise ValueError(f"not ethtool --show-fec output: {text[:60]!r}")
    return Fec(masks[0], masks[1])
