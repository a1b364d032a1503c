"""A capture holds the transceiver's decoded EEPROM (`ethtool -m`), so that `show --json
--root CAPTURE` says what live `show --json` said (tests/kernel/test_capture_fidelity.py
caught the difference: "missing" from the tree, "unsupported" live); an older capture without
it reads as not captured, and a hostile value is refused as a state, never shown raw."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from tests.unit.core.capture.test_device_conns import _device, _load
from tests.unit.core.host.test_module_eeprom import capture
from tuitune.core.capture.device import DIR, CapturedDevice, NotCaptured, load_device
from tuitune.core.host import module_eeprom as sff
from tuitune.core.values import Unavailable


def test_the_decoded_module_reads_back_equal(tmp_path: Path) -> None:
    optics = sff.parse("SFF-8472", capture())
    assert isinstance(optics, sff.Optics) and optics.rx_power_mw
    got = _load(tmp_path, replace(_device(None), optics=optics))
    assert isinstance(got, CapturedDevice) and got.dev.optics == optics


def test_a_refusal_reads_back_as_the_same_state(tmp_path: Path) -> None:
    said = Unavailable("unsupported", "no module EEPROM (the driver has no access)")
    got = _load(tmp_path, replace(_device(None), optics=said))
    assert isinstance(got, CapturedDevice) and got.dev.optics == said


def test_an_older_capture_has_none_and_a_bad_one_is_a_state(tmp_path: Path) -> None:
    old = _load(tmp_path, _device(None))
    assert isinstance(old, CapturedDevice) and old.dev.optics is None
    doc = json.loads((tmp_path / DIR / "eth0.json").read_text())
    # A number where the module's identifier is text: the whole device file is refused.
    doc["optics"] = {"standard": "SFF-8472", "identifier": 7, "vendor": "x", "part": "y"}
    (tmp_path / DIR / "eth0.json").write_text(json.dumps(doc))
    bad = load_device(tmp_path, "eth0")
    assert isinstance(bad, NotCaptured) and bad.why.kind == "error"
    assert "optics" in bad.why.reason
