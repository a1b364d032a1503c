"""Private flags and FEC through the journal (issue 32), on fakes built from real captures
(tests/fixtures/captures/ethtool_driver/: an i40e port's 13 private flags, an E810 port's FEC
configured "Auto RS BaseR", active RS).

Two ports are faked: the device (`FakeDevice`, what HostAccess talks to) for the journal's
round trips, and SIOCETHTOOL itself (`FakeIoctl`, what `Ethtool` talks to) for the bytes the
product sends and the kernel's errno coming back as a state on the row."""

from __future__ import annotations

import ctypes
import errno
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.fakes.ethtool_driver_text import (
    I40E_PRIV_FLAGS,
    ICE_FEC,
    parse_fec,
    parse_priv_flags,
)
from tests.support.session_fakes import FakeDevice, build_host
from tuitune.core.host import ethtool_driver as drv
from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host.ethtool import Ethtool, EthtoolWriteError
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess, Journal, Key
from tuitune.core.session.kinds import fec as fk
from tuitune.core.session.kinds.fec import Fec, FecGet, FecSet
from tuitune.core.values import Unavailable

DEV = "eno1"
FLAGS = parse_priv_flags(I40E_PRIV_FLAGS.read_text())
FEC = parse_fec(ICE_FEC.read_text())
LEGACY = Key.priv_flag(DEV, "legacy-rx")
FEC_KEY = Key.fec(DEV)


def test_the_captures_parse_to_what_they_show() -> None:
    assert len(FLAGS) == 13
    assert [n for n, on in FLAGS if on] == ["flow-director-atr", "disable-source-pruning"]
    assert (FEC.configured_names, FEC.active_names) == ("auto rs baser", "rs")


class Host:
    def __init__(self, base: Path) -> None:
        self.dev = FakeDevice(DEV, priv_flags_=FLAGS, fec_=FEC)
        tree = build_host(base / "host")
        self.access = HostAccess(HostRoot.fixture(tree), ethtool=lambda _n: self.dev)
        self.dir = base / "journal"

    def open(self) -> Journal:
        return Journal.open(self.access, self.dir)


@pytest.fixture
def host(tmp_path: Path) -> Iterator[Host]:
    h = Host(tmp_path)
    yield h
    h.access.close()


def test_a_private_flag_changes_and_undo_restores_every_flag(host: Host) -> None:
    with host.open() as j:
        out = j.apply(LEGACY, "on")
        assert out.describe() == "eno1 private flag legacy-rx: off -> on"
        assert dict(host.dev.priv_flags_)["legacy-rx"] is True  # type: ignore[arg-type]
        # Every flag is read before the write (the ioctl sets them all); what moved is kept.
        assert j.originals() == {LEGACY: "off"}
        j.undo()
    assert host.dev.priv_flags_ == FLAGS


def test_fec_changes_and_restore_gives_back_the_configured_modes(host: Host) -> None:
    with host.open() as j:
        out = j.apply(FEC_KEY, "RS")  # as ethtool --set-fec takes it
        assert out.describe() == "eno1 FEC: auto rs baser -> rs"
        assert host.dev.writes[-1] == ("fec", 1 << 3)
    with host.open() as j:  # a later session (or a crash's) restores what was recorded
        assert all(o.ok for o in j.close_restoring())
    assert host.dev.fec_ == Fec(FEC.configured, FEC.active)


@pytest.mark.parametrize(
    ("key", "value", "said"),
    [
        (Key.priv_flag(DEV, "no-such-flag"), "on", "no such private flag"),
        (LEGACY, "maybe", "legacy-rx"),
        (FEC_KEY, "none", "give one or more of auto, off, rs, baser, llrs"),
        (FEC_KEY, "rs fire-code", "give one or more of"),
        (FEC_KEY, "rs\nauto", "give one or more of"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    host: Host, key: Key, value: str, said: str
) -> None:
    with host.open() as j:
        out = j.apply(key, value)
    text = out.describe()
    assert out.status != "changed" and said in text and "\n" not in text, text
    assert host.dev.writes == []


def test_a_driver_reporting_no_fec_configuration_is_refused_before_any_write(host: Host) -> None:
    host.dev.fec_ = Fec(1, 1)  # "Configured FEC encodings: None", as netdevsim starts
    with host.open() as j:
        out = j.apply(FEC_KEY, "rs")
    assert out.status == "refused" and "could not be put back" in out.describe()
    assert host.dev.writes == []


def test_a_device_without_them_is_a_state(host: Host) -> None:
    host.dev = FakeDevice(DEV)
    with host.open() as j:
        out = j.apply(LEGACY, "on")
    assert out.status == "refused" and "legacy-rx: none on fake" in out.describe()
    assert "fec" not in {k.kind for k in host.access.device_keys(DEV)}


def test_the_drivers_refusal_is_a_state_on_the_row(host: Host) -> None:
    host.dev.refuse = "priv_flags"
    with host.open() as j:
        out = j.apply(LEGACY, "on")
        assert out.status == "refused" and "fake rejected" in out.describe()
        assert j.originals() == {}
    assert host.dev.priv_flags_ == FLAGS


# ---- the ioctl port: what Ethtool sends, and the kernel's errno ---------------------------


class FakeIoctl:
    """SIOCETHTOOL for one i40e port as the capture shows it: GSSET_INFO/GSTRINGS for the
    private-flag names, G/SPFLAGS and G/SFECPARAM on the bits; `errno_on` a command the
    "kernel" refuses with that errno."""

    def __init__(self) -> None:
        self.bits = sum(1 << i for i, (_, on) in enumerate(FLAGS) if on)
        self.fec = (FEC.active, FEC.configured)
        self.errno_on: dict[int, int] = {}
        self.sent: list[tuple[int, ...]] = []

    def sset_count(self, sset: int) -> int | None:
        return len(FLAGS) if sset == io.ETH_SS_PRIV_FLAGS else None

    def strings_raw(self, sset: int, count: int) -> bytes:
        return b"".join(n.encode().ljust(io.ETH_GSTRING_LEN, b"\0") for n, _ in FLAGS)

    def call(self, buf: ctypes.Array[ctypes.c_char]) -> int:
        (cmd,) = struct.unpack_from("=I", buf.raw)
        if cmd in self.errno_on:
            raise OSError(self.errno_on[cmd], "refused")
        if cmd == drv.ETHTOOL_GPFLAGS:
            struct.pack_into("=I", buf, 4, self.bits)
        elif cmd == drv.ETHTOOL_SPFLAGS:
            self.sent.append(drv.VALUE.unpack_from(buf.raw))
            self.bits = self.sent[-1][1]
        elif cmd == fk.ETHTOOL_GFECPARAM:
            struct.pack_into("=2I", buf, 4, *self.fec)
        elif cmd == fk.ETHTOOL_SFECPARAM:
            self.sent.append(fk.FECPARAM.unpack_from(buf.raw))
            self.fec = (self.fec[0], self.sent[-1][2])
        return 0

    def close(self) -> None:
        pass


@pytest.fixture
def ioctl_port() -> Iterator[tuple[Ethtool, FakeIoctl]]:
    et, fake = Ethtool(DEV), FakeIoctl()
    et._io = fake  # type: ignore[assignment]
    et._label = "i40e"
    yield et, fake
    et.close()


def test_ethtool_reads_and_writes_the_whole_mask(ioctl_port: tuple[Ethtool, FakeIoctl]) -> None:
    et, fake = ioctl_port
    assert et.priv_flags() == FLAGS
    et.set_priv_flags({"legacy-rx": True, "flow-director-atr": False})
    # bit 7 (legacy-rx) set, bit 3 (flow-director-atr) cleared, bit 8 (pruning) kept
    assert fake.sent == [(drv.ETHTOOL_SPFLAGS, (1 << 7) | (1 << 8))]
    fec = et.ioctl_read(FecGet())
    assert isinstance(fec, Fec) and fec.configured_names == "auto rs baser"
    et.ioctl_write(FecSet(1 << 3))
    assert fake.sent[-1] == (fk.ETHTOOL_SFECPARAM, 0, 1 << 3, 0)


@pytest.mark.parametrize(
    ("cmd", "code", "said"),
    [
        (drv.ETHTOOL_SPFLAGS, errno.EINVAL, "private flags: i40e rejected the new values"),
        (fk.ETHTOOL_SFECPARAM, errno.EOPNOTSUPP, "FEC: not supported by i40e"),
        (fk.ETHTOOL_SFECPARAM, errno.EPERM, "FEC: changing it needs root"),
    ],
)
def test_a_kernel_refusal_is_a_state(
    ioctl_port: tuple[Ethtool, FakeIoctl], cmd: int, code: int, said: str
) -> None:
    et, fake = ioctl_port
    fake.errno_on[cmd] = code
    with pytest.raises(EthtoolWriteError) as err:
        if cmd == drv.ETHTOOL_SPFLAGS:
            et.set_priv_flags({"legacy-rx": True})
        else:
            et.ioctl_write(FecSet(1 << 3))
    assert err.value.state.reason.startswith(said)


def test_unknown_names_and_unsettable_modes_never_reach_the_kernel(
    ioctl_port: tuple[Ethtool, FakeIoctl],
) -> None:
    et, fake = ioctl_port
    with pytest.raises(EthtoolWriteError, match="unknown flag"):
        et.set_priv_flags({"nope": True})
    for mask in (0, 1, 1 | 1 << 3, 1 << 9):
        with pytest.raises(EthtoolWriteError, match="not a settable set"):
            et.ioctl_write(FecSet(mask))
    assert fake.sent == []
    fake.errno_on[fk.ETHTOOL_GFECPARAM] = errno.EOPNOTSUPP
    got = et.ioctl_read(FecGet())
    assert isinstance(got, Unavailable) and got.kind == "unsupported"
