"""The plug-in module's EEPROM (SFP, QSFP), read-only: what `ethtool -m` shows, through the
same SIOCETHTOOL path as the rest (ETHTOOL_GMODULEINFO says which layout and how many bytes,
ETHTOOL_GMODULEEEPROM reads them; the kernel serves drivers that only have the netlink
page reads through the same call since 5.13).

Layouts, by byte (not from the seeds: the SNIA SFF specifications):
- SFF-8472 (SFP; SFF-8079 is its first 256 bytes): A0h 0 identifier (SFF-8024), 20-35 vendor
  name, 40-55 part number, 68-83 serial, 60-61 wavelength (nm), 92 diagnostic monitoring type
  (bit 6 implemented, bit 5 internally calibrated, bit 4 externally); A2h (bytes 256-511)
  96-97 temperature (signed, 1/256 degC), 98-99 supply (100 uV), 102-103 TX and 104-105 RX
  power (0.1 uW each), and the module's own alarm/warning thresholds at 0-39 (RX power: low
  alarm 34-35, low warning 38-39).
- SFF-8636 (QSFP+/QSFP28; SFF-8436 the same for these bytes): lower page 22-23 temperature,
  26-27 supply, 34-41 RX power of lanes 1-4; upper page 00h 148-163 vendor, 168-183 part
  number, 196-211 serial; page 03h (its bytes 128-255 at 512-639 of the 640 the kernel
  gives) 176-183 RX power thresholds (low alarm 178-179, low warning 182-183). Not checked
  against a real capture: none was found (the SFF-8472 side is: tests/fixtures/platform/).

Every string is the module's: shown only through the sanitiser.
"""

from __future__ import annotations

import ctypes
import math
import struct
from dataclasses import dataclass, replace

from tuitune.core.host import ethtool_ioctl as io

ETHTOOL_GMODULEINFO = 0x42
ETHTOOL_GMODULEEEPROM = 0x43
MODINFO_FIELDS: io.Fields = (("cmd", "I"), ("type", "I"), ("eeprom_len", "I"), ("reserved", "32s"))
# struct ethtool_eeprom, then its data[] (checked against the header: test_ethtool_structs.py)
EEPROM_FIELDS: io.Fields = (("cmd", "I"), ("magic", "I"), ("offset", "I"), ("len", "I"))
MODINFO = struct.Struct("=" + "".join(c for _, c in MODINFO_FIELDS))
EEPROM = struct.Struct("=" + "".join(c for _, c in EEPROM_FIELDS))
# ETH_MODULE_SFF_* of <linux/ethtool.h>
STANDARDS = {1: "SFF-8079", 2: "SFF-8472", 3: "SFF-8636", 4: "SFF-8436"}
MAX_LEN = 640  # ETH_MODULE_SFF_8636_MAX_LEN, the largest the kernel names
# SFF-8024 Table 4-1, the identifiers an Ethernet NIC meets.
IDENTIFIERS = {
    0x03: "SFP/SFP+/SFP28",
    0x0C: "QSFP",
    0x0D: "QSFP+",
    0x11: "QSFP28",
    0x18: "QSFP-DD",
    0x19: "OSFP",
    0x1E: "QSFP+ (CMIS)",
}
# Identifiers whose memory map is CMIS, not SFF-8636 (the strings and monitors sit elsewhere):
# some drivers hand them out through the same ioctl.
CMIS = frozenset({0x18, 0x19, 0x1E})


@dataclass(frozen=True, slots=True)
class Optics:
    standard: str  # the layout the driver named: SFF-8472, SFF-8636, ...
    identifier: str  # SFF-8024's name for byte 0 ("SFP/SFP+/SFP28", "0x42")
    vendor: str
    part: str
    serial: str
    wavelength_nm: int | None = None
    temperature_c: float | None = None
    voltage_v: float | None = None
    tx_power_mw: tuple[float, ...] = ()  # one per lane (an SFP has one)
    rx_power_mw: tuple[float, ...] = ()
    rx_low_alarm_mw: float | None = None  # the module's own thresholds
    rx_low_warn_mw: float | None = None
    note: str = ""  # why the diagnostics are absent, when they are


def dbm(mw: float) -> float:
    return 10 * math.log10(mw) if mw > 0 else -math.inf


def _text(raw: bytes) -> str:
    # SFF strings are ASCII padded with spaces; anything else is kept for the sanitiser.
    return raw.decode("latin-1").rstrip(" \0")


def _u16(data: bytes, off: int) -> int:
    return int.from_bytes(data[off : off + 2], "big")


def _power(data: bytes, off: int) -> float:
    return _u16(data, off) / 10000  # 0.1 uW units, in mW


def _temp(data: bytes, off: int) -> float:
    return int.from_bytes(data[off : off + 2], "big", signed=True) / 256


def identifier(byte: int) -> str:
    return IDENTIFIERS.get(byte, f"0x{byte:02x}")


def parse_sff8472(data: bytes, standard: str = "SFF-8472") -> Optics:
    """A0h (and A2h when the bytes hold it and the module says it has diagnostics)."""
    base = Optics(
        standard,
        identifier(data[0]),
        _text(data[20:36]),
        _text(data[40:56]),
        _text(data[68:84]),
        _u16(data, 60) or None,
    )
    ddm = data[92] if len(data) > 92 else 0
    if not ddm & 0x40:
        return _with(base, note="no diagnostic monitoring (A0h byte 92)")
    if len(data) < 512:
        return _with(base, note="diagnostics not given (only A0h read)")
    if not ddm & 0x20:
        return _with(base, note="externally calibrated diagnostics: not decoded")
    a2 = data[256:512]
    return _with(
        base,
        temperature_c=_temp(a2, 96),
        voltage_v=_u16(a2, 98) / 10000,
        tx_power_mw=(_power(a2, 102),),
        rx_power_mw=(_power(a2, 104),),
        rx_low_alarm_mw=_power(a2, 34),
        rx_low_warn_mw=_power(a2, 38),
    )


def parse_sff8636(data: bytes, standard: str = "SFF-8636") -> Optics:
    base = Optics(
        standard,
        identifier(data[0]),
        _text(data[148:164]),
        _text(data[168:184]),
        _text(data[196:212]),
        temperature_c=_temp(data, 22),
        voltage_v=_u16(data, 26) / 10000,
        rx_power_mw=tuple(_power(data, 34 + 2 * i) for i in range(4)),
    )
    if len(data) >= MAX_LEN:  # page 03h (at 384 + its byte, as ethtool's qsfp.c lays it out)
        return _with(base, rx_low_alarm_mw=_power(data, 562), rx_low_warn_mw=_power(data, 566))
    return base


def _with(o: Optics, **kw: object) -> Optics:
    return replace(o, **kw)  # type: ignore[arg-type]


def parse(standard: str, data: bytes) -> Optics | None:
    """The decoded EEPROM; None when the layout or the length is not one decoded here."""
    if data and data[0] in CMIS:
        note = "CMIS memory map: only the identifier is decoded"
        return Optics(standard, identifier(data[0]), "", "", "", note=note)
    if standard in ("SFF-8472", "SFF-8079") and len(data) >= 128:
        return parse_sff8472(data, standard)
    if standard in ("SFF-8636", "SFF-8436") and len(data) >= 256:
        return parse_sff8636(data, standard)
    return None


def read_eeprom(eth: io.EthtoolIoctl) -> tuple[str, bytes]:
    """(standard, bytes) of the module in the port; OSError with the kernel's errno otherwise
    (EOPNOTSUPP: the driver has no module access; ENODEV/EIO: an empty cage, on many)."""
    buf = ctypes.create_string_buffer(MODINFO.size)
    struct.pack_into("=I", buf, 0, ETHTOOL_GMODULEINFO)
    eth.call(buf)
    _, kind, length, _ = MODINFO.unpack_from(buf.raw)
    length = min(length, MAX_LEN)
    standard = STANDARDS.get(kind, f"type {kind}")
    ebuf = ctypes.create_string_buffer(EEPROM.size + length)
    EEPROM.pack_into(ebuf, 0, ETHTOOL_GMODULEEEPROM, 0, 0, length)
    eth.call(ebuf)
    got = min(EEPROM.unpack_from(ebuf.raw)[3], length)
    return standard, ebuf.raw[EEPROM.size : EEPROM.size + got]
