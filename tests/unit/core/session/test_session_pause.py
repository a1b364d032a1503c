"""Pause (flow control) that the link partner negotiates (issue 22, item 6): e1000e, igb and
ixgbe report the negotiated rx/tx pause while pause autoneg is on, so "rx off" reads back on.
The message says why and what forces it; autoneg off with it then works."""

from __future__ import annotations

from pathlib import Path

from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host.ethtool import Pause
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key

DEV = "eno49"


class Negotiated(FakeDevice):
    """A link partner that wants pause both ways: with autoneg on it is what the device does."""

    def set_pause(
        self, autoneg: bool | None = None, rx: bool | None = None, tx: bool | None = None
    ) -> None:
        super().set_pause(autoneg, rx, tx)
        if self.pause_.autoneg:
            self.pause_ = Pause(True, True, True)


def test_rx_pause_kept_on_by_autoneg_says_the_partner_decides(tmp_path: Path) -> None:
    dev = Negotiated(DEV)
    access = HostAccess(HostRoot.fixture(build_host(tmp_path / "h")), ethtool=lambda _: dev)
    rx, auto = Key.field(DEV, "pause", "rx"), Key.field(DEV, "pause", "autoneg")
    with Journal.open(access, tmp_path / "journal") as journal:
        out = journal.apply(rx, "off")
        assert (out.status, out.describe()) == (
            "failed",
            "eno49 pause rx: the kernel kept on, not off; with pause autoneg on, the link "
            "partner decides rx/tx pause: turn pause autoneg off to force it",
        )
        assert journal.originals() == {}
        outs = journal.apply_all([(auto, "off"), (rx, "off")])
        assert [o.describe() for o in outs] == [
            "eno49 pause autoneg: on -> off",
            "eno49 pause rx: on -> off",
        ]
    assert dev.pause_ == Pause(False, False, True)
    access.close()


def test_without_autoneg_a_kept_value_has_no_partner_note(tmp_path: Path) -> None:
    dev = Negotiated(DEV, pause_=Pause(False, True, True))
    dev.set_pause = lambda autoneg=None, rx=None, tx=None: None  # type: ignore[method-assign]
    access = HostAccess(HostRoot.fixture(build_host(tmp_path / "h")), ethtool=lambda _: dev)
    with Journal.open(access, tmp_path / "journal") as journal:
        out = journal.apply(Key.field(DEV, "pause", "rx"), "off")
    assert out.reason == "the kernel kept on, not off"
    access.close()
