"""The plug-in module's EEPROM (issue 32): a real SFP's 512 bytes (SFF-8472, an OEM
SFP-10G-SR with no light on its receiver; tests/fixtures/platform/SOURCES.md) decoded as
`ethtool -m` and the capture's own reader decode it, read through SIOCETHTOOL from a fake
port that answers with those bytes, shown in `show`'s row and JSON, and judged by
`optics-rx-low` against the module's own thresholds."""

from __future__ import annotations

import ctypes
import errno
import re
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from tests.support.platform_trees import FIXTURES, vm_tree
from tests.unit.advise_hosts import one, recorded
from tuitune.core.advise import Facts, advise
from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host import module_eeprom as sff
from tuitune.core.host import platform as plat
from tuitune.core.host.platform import read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.platformview import optics_json, optics_text
from tuitune.core.values import Unavailable


def capture() -> bytes:
    """`ethtool -m DEV hex on`'s layout: offset, then 16 bytes."""
    text = (FIXTURES / "sfp-oem-10g-sr-eeprom.hex").read_text()
    return bytes(int(b, 16) for line in text.splitlines() for b in line.split(":")[1].split())


SFP = capture()


def test_the_capture_decodes_as_its_source_reads_it() -> None:
    o = sff.parse("SFF-8472", SFP)
    assert o is not None
    assert (o.identifier, o.vendor, o.part, o.serial) == (
        "SFP/SFP+/SFP28",
        "OEMOEMOEMOEMOEMO",
        "SFP-10G-SR-IT",
        "WQ160412A115",
    )
    assert o.wavelength_nm == 850
    # The values the capture's own test expects (temperature 44.3477, 3.3034 V, ...).
    assert o.temperature_c == pytest.approx(44.3477, abs=1e-4)
    assert o.voltage_v == pytest.approx(3.3034)
    assert o.tx_power_mw == pytest.approx((0.597,))
    assert o.rx_power_mw == pytest.approx((0.0001,))
    assert (o.rx_low_alarm_mw, o.rx_low_warn_mw) == pytest.approx((0.01, 0.0126))


def test_only_a0h_is_the_module_without_diagnostics() -> None:
    o = sff.parse("SFF-8079", SFP[:256])
    assert o is not None and o.part == "SFP-10G-SR-IT" and o.rx_power_mw == ()
    assert "only A0h" in o.note
    assert sff.parse("type 9", SFP) is None
    # A QSFP-DD (CMIS) handed out as SFF-8636: its strings sit elsewhere, none is guessed.
    cmis = sff.parse("SFF-8636", bytes([0x18]) + SFP[1:256])
    assert cmis is not None and cmis.identifier == "QSFP-DD" and cmis.vendor == ""
    assert "CMIS" in cmis.note and cmis.rx_power_mw == ()


class FakePort:
    """SIOCETHTOOL as a driver with the module answers: GMODULEINFO then GMODULEEEPROM."""

    def __init__(self, data: bytes, kind: int = 2, fail: int | None = None) -> None:
        self.data, self.kind, self.fail, self.asked = data, kind, fail, 0

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        if self.fail is not None:
            raise OSError(self.fail, "refused")
        (cmd,) = struct.unpack_from("=I", buf.raw, 0)
        if cmd == sff.ETHTOOL_GMODULEINFO:
            struct.pack_into("=3I", buf, 0, cmd, self.kind, len(self.data))
        else:
            assert cmd == sff.ETHTOOL_GMODULEEEPROM
            _, _, offset, length = sff.EEPROM.unpack_from(buf.raw)
            self.asked = length
            chunk = self.data[offset : offset + length]
            ctypes.memmove(ctypes.addressof(buf) + sff.EEPROM.size, chunk, len(chunk))
        return 0

    def close(self) -> None:
        pass


def test_read_through_the_ioctl(monkeypatch: pytest.MonkeyPatch) -> None:
    port = FakePort(SFP)
    monkeypatch.setattr(io, "EthtoolIoctl", lambda name: port)
    got = plat._optics("ens1f0")
    assert isinstance(got, sff.Optics) and got.serial == "WQ160412A115"
    assert port.asked == 512


@pytest.mark.parametrize(
    ("err", "kind", "words"),
    [
        (errno.EOPNOTSUPP, "unsupported", "no module EEPROM"),
        (errno.EIO, "missing", "no module in the port"),
    ],
)
def test_a_refusal_is_a_state(
    monkeypatch: pytest.MonkeyPatch, err: int, kind: str, words: str
) -> None:
    monkeypatch.setattr(io, "EthtoolIoctl", lambda name: FakePort(SFP, fail=err))
    got = plat._optics("ens1f0")
    assert isinstance(got, Unavailable) and got.kind == kind and words in got.reason


def test_shown_in_the_row_and_the_json() -> None:
    o = sff.parse("SFF-8472", SFP)
    assert o is not None
    text = optics_text(o)
    assert text.startswith("SFP/SFP+/SFP28 OEMOEMOEMOEMOEMO SFP-10G-SR-IT 850 nm; 44.3 C")
    assert "rx 0.0001 mW (-40.0 dBm)" in text and "tx 0.5970 mW (-2.2 dBm)" in text
    doc = optics_json(o)
    assert doc["part"] == "SFP-10G-SR-IT" and doc["rx_power_mw"] == [0.0001]
    # The module's strings go through the sanitiser on screen.
    evil = replace(o, vendor="\x1b[2Jx")
    assert "\x1b" not in optics_text(evil)


def test_a_tree_has_no_module(tmp_path: Path) -> None:
    got = read_platform(HostRoot.fixture(vm_tree(tmp_path)), "eth0").driver.optics
    assert isinstance(got, Unavailable) and "not recorded in a host tree" in got.reason


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    f = recorded(tmp_path_factory.mktemp("pegged"))
    tree = vm_tree(tmp_path_factory.mktemp("vm"))
    return replace(f, platform=read_platform(HostRoot.fixture(tree), "eth0"))


def with_module(f: Facts, data: bytes) -> Facts:
    assert f.platform is not None
    o = sff.parse("SFF-8472", data)
    driver = replace(f.platform.driver, optics=o)
    return replace(f, platform=replace(f.platform, driver=driver))


def test_rx_below_the_modules_alarm_fires(pegged: Facts) -> None:
    found = one(with_module(pegged, SFP), "optics-rx-low")
    assert found is not None and found.severity == "bottleneck"
    assert "0.0001 mW (-40.0 dBm), under the module's low alarm" in found.evidence[0]
    assert [s.id for s in found.sources] == ["sff-8472"] and found.change == ()


def test_rx_above_the_warning_is_silent(pegged: Facts) -> None:
    # The same module with 0.5 mW (-3 dBm) on its receiver (A2h bytes 104-105 = 5000).
    healthy = SFP[: 256 + 104] + (5000).to_bytes(2, "big") + SFP[256 + 106 :]
    assert one(with_module(pegged, healthy), "optics-rx-low") is None
    notes = [n.text for n in advise(pegged).notes if n.rule == "optics-rx-low"]
    assert notes and re.search("module EEPROM: not recorded", notes[0]), notes
