"""A capture's devices are the one `EthtoolLike` (core/host/ethtool_device.py): they read what
the capture holds (private flags and FEC too) and refuse every write in one line, a state on
the row as a kernel refusal is, never a traceback (issue 37 step 5)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.session_fakes import build_host
from tuitune.core.capture.device import CapturedDevice, DeviceCapture, LinkExtra, NotCaptured
from tuitune.core.host.ethtool_device import EthtoolLike
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.values import Unavailable

DEV = "eth0"
GONE = Unavailable("missing", "not recorded in this host tree")
# The E810 port's FEC as read_driver wrote it (tests/fixtures/captures/ethtool_driver/).
RECORDED = DeviceCapture(
    driver=GONE,
    features=GONE,
    rings=GONE,
    coalesce=GONE,
    channels=GONE,
    pause=GONE,
    stats=GONE,
    link=LinkExtra(None, None, None, None),
    priv_flags=(("legacy-rx", False), ("flow-director-atr", True)),
    kinds={"fec": "active rs (configured auto rs baser)"},
    qdiscs=GONE,
)
WRITES = [
    (Key.priv_flag(DEV, "legacy-rx"), "on"),
    (Key.fec(DEV), "rs"),
    (Key("ring", DEV, "rx"), "512"),
    (Key("pause", DEV, "rx"), "off"),
]


@pytest.fixture(params=["captured", "not captured"])
def access(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[HostAccess]:
    dev: EthtoolLike = (
        CapturedDevice(RECORDED) if request.param == "captured" else NotCaptured(GONE)
    )
    with HostAccess(HostRoot.fixture(build_host(tmp_path / "h")), ethtool=lambda _n: dev) as acc:
        yield acc


def test_the_capture_reads_its_private_flags_and_fec(tmp_path: Path) -> None:
    dev = CapturedDevice(RECORDED)
    with HostAccess(HostRoot.fixture(build_host(tmp_path)), ethtool=lambda _n: dev) as acc:
        got = acc.read_many([Key.priv_flag(DEV, "flow-director-atr"), Key.fec(DEV)])
    assert list(got.values()) == ["on", "auto rs baser"]


@pytest.mark.parametrize(("key", "value"), WRITES, ids=[k.kind for k, _ in WRITES])
def test_a_write_on_a_capture_is_one_line_and_changes_nothing(
    access: HostAccess, tmp_path: Path, key: Key, value: str
) -> None:
    with Journal.open(access, tmp_path / "journal") as j:
        out = j.apply(key, value)
    assert not out.ok and out.status != "changed", out
    line = out.describe()
    assert "\n" not in line and line.startswith(key.label), line
    reason = out.reason or ""
    # The capture's devices refuse; an interface it did not capture has nothing to change.
    assert "nothing on it is changed" in reason or "not recorded" in reason


def test_what_the_capture_holds_is_refused_by_the_device(tmp_path: Path) -> None:
    dev = CapturedDevice(RECORDED)
    root = HostRoot.fixture(build_host(tmp_path / "h"))
    with (
        HostAccess(root, ethtool=lambda _n: dev) as acc,
        Journal.open(acc, tmp_path / "journal") as j,
    ):
        lines = [j.apply(k, v).describe() for k, v in WRITES[:2]]
    assert lines == [
        "eth0 private flag legacy-rx: a capture is a copy of a host: nothing on it is changed",
        "eth0 FEC: a capture is a copy of a host: nothing on it is changed",
    ]
