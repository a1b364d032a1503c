"""A kind's own read of the interface (host/platform.py's `KindRead`, issue 37) goes through
the platform snapshot, the Host view and a capture without any of them naming the kind: a
made-up kind here ("x_demo") gets its row, its capture key and its replay, as FEC does
(kinds/fec.py). The device file keeps each kind's read as a key of its own after
priv_flags, where the first captures put "fec"."""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from tests.support.platform_trees import vm_tree
from tests.unit.core.capture.test_device_conns import _device, _load
from tuitune.core.capture.device import (
    DIR,
    NOT_CAPTURED,
    CapturedDevice,
    capture_json,
    load_device,
)
from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host.platform import NOT_IN_TREE, Platform, read_driver, read_platform
from tuitune.core.host.root import HostRoot
from tuitune.core.platformview import SECTIONS, platform_rows
from tuitune.core.session.kinds import table
from tuitune.core.session.kinds.base import Family
from tuitune.core.session.kinds.hostrow import Row
from tuitune.core.session.settings import Kind
from tuitune.core.values import Unavailable


@dataclass(frozen=True)
class Demo:
    kept: str | Unavailable


@dataclass(frozen=True)
class DemoRead:
    kind: str = "x_demo"
    what: str = "demo"

    def live(self, eth: io.EthtoolIoctl) -> Demo:
        raise AssertionError("no live read in a unit test")

    def replay(self, kept: str | Unavailable) -> Demo:
        return Demo(kept)


def test_the_device_file_keeps_each_kind_after_priv_flags_and_reads_it_back(
    tmp_path: Path,
) -> None:
    state = Unavailable("permission", "demo: needs root")
    dev = replace(_device(None), kinds={"x_demo": "on 3", "fec": state})
    got = _load(tmp_path, dev)
    assert isinstance(got, CapturedDevice) and got.dev.kinds == {"x_demo": "on 3", "fec": state}
    keys = list(json.loads((tmp_path / DIR / "eth0.json").read_text()))
    at = keys.index("priv_flags")
    assert keys[at + 1 : at + 3] == ["x_demo", "fec"] and "kinds" not in keys


def test_a_kind_value_that_is_no_text_is_its_state_and_the_rest_is_read(tmp_path: Path) -> None:
    _load(tmp_path, replace(_device(None), pm_qos_request="37"))
    path = tmp_path / DIR / "eth0.json"
    doc = json.loads(path.read_text())
    doc["x_demo"] = {"_": "Rings", "rx": 1}  # another user's file: anything can be there
    path.write_text(json.dumps(doc))
    dev = load_device(tmp_path, "eth0")
    assert isinstance(dev, CapturedDevice) and dev.dev.pm_qos_request == "37"
    bad = dev.dev.kinds["x_demo"]
    assert isinstance(bad, Unavailable) and bad.kind == "error" and "x_demo" in bad.reason


def test_read_driver_replays_a_capture_and_says_a_tree_holds_none(tmp_path: Path) -> None:
    tree = vm_tree(tmp_path / "vm")
    plain = read_driver(HostRoot.fixture(tree), "eth0", reads=[DemoRead()])
    assert plain.kinds == {"x_demo": Demo(Unavailable("missing", NOT_IN_TREE))}
    (tree / DIR).mkdir()
    kept = replace(_device(None), kinds={"x_demo": "on 3"})
    (tree / DIR / "eth0.json").write_bytes(capture_json(kept))
    root = HostRoot.fixture(tree)  # a capture unpacked: its tree and its ethtool/ files
    assert read_driver(root, "eth0", reads=[DemoRead()]).kinds == {"x_demo": Demo("on 3")}
    nothing = read_driver(root, "eth0", reads=[replace(DemoRead(), kind="x_other")])
    assert nothing.kinds == {"x_other": Demo(NOT_CAPTURED)}


class DemoKind(Family):
    value_form = "text"
    platform_read = DemoRead()

    def host_rows(self, kind: Kind, platform: Platform) -> tuple[Row, ...]:
        got = platform.driver.kinds.get("x_demo")
        text = got.kept if isinstance(got, Demo) else None
        return (Row(SECTIONS[1], "demo", str(text), None),) if isinstance(text, str) else ()


def test_a_handlers_row_lands_at_the_end_of_its_section(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(table.HANDLERS, "x_demo", DemoKind())  # type: ignore[index]
    tree = vm_tree(tmp_path / "vm")
    plat = read_platform(HostRoot.fixture(tree), "eth0")
    plat = replace(plat, driver=replace(plat.driver, kinds={"x_demo": Demo("on 3")}))
    labels = [(r.section, r.label) for r in platform_rows(plat)]
    at = labels.index((SECTIONS[1], "demo"))
    assert all(SECTIONS.index(s) <= 1 for s, _ in labels[:at])
    assert all(SECTIONS.index(s) >= 2 for s, _ in labels[at + 1 :])


def test_a_captures_fec_gives_show_json_its_configured_modes(tmp_path: Path) -> None:
    """`show --json --root CAPTURE` gave fec_configured null: the capture keeps the row's
    text, and the configured modes are in it. Now they come back, so the document applies."""
    from tuitune.core.session.kinds.fec import FecMode, FecRead

    tree = vm_tree(tmp_path / "vm")
    (tree / DIR).mkdir()
    kept = replace(_device(None), kinds={"fec": "active rs (configured auto rs baser)"})
    (tree / DIR / "eth0.json").write_bytes(capture_json(kept))
    plat = read_platform(HostRoot.fixture(tree), "eth0", reads=[FecRead()])
    src = type("Src", (), {"platform": plat})()
    part = FecMode().show_json("fec", src)  # type: ignore[arg-type]
    assert part[("platform", "driver", "fec")] == "active rs (configured auto rs baser)"
    assert part[("platform", "driver", "fec_configured")] == "auto rs baser"
    # A text of another shape is not taken for modes: still shown, nothing applied back.
    assert FecRead().replay("rs, somehow").configured is None
