"""FEC as a journaled setting (issue 32), and everything else tuitune does with it (issue 37):
the kind is this module, its tests and its catalog data.

One key per device whose value is the configured modes in the kernel's order ("auto", "rs",
"auto rs baser"), not the active encoding (that is the link's answer). A driver that reports
no configuration ("none") is refused before any write: the kernel takes no "none" in a set,
so its original could not be put back.

Besides the setting, the kind reads the interface for the platform snapshot itself
(`platform_read`: the Host view's row, `show --json`'s platform.driver.fec, what a capture
keeps) and writes its Host view row (`host_rows`); core/host/platform.py, core/platformview.py
and core/capture walk the handlers for them without naming FEC. Its kernel calls are its own
too (ETHTOOL_[GS]FECPARAM through SIOCETHTOOL): the device port runs them as `FecGet` and
`FecSet` (host/ethtool_device.py's IoctlRead/IoctlWrite), a capture's device answers `FecGet`
from what it kept. The ioctl carries everything the netlink FEC messages do for this
purpose: the set takes the configured modes as one mask.
"""

from __future__ import annotations

import ctypes
import re
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host.platform import KindRead, Platform
from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import (
    EthtoolLike,
    EthtoolSet,
    Form,
    GroupRead,
    ProfileField,
    WriteRefused,
    own_related,
)
from tuitune.core.session.kinds.edit import HostRowEdit
from tuitune.core.session.kinds.ethtool import EthtoolFamily, device
from tuitune.core.session.kinds.hostrow import SECTIONS, Row, shown, state_text
from tuitune.core.session.kinds.safe import UnsafeValue, comment
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    ShowPart,
    ShowSource,
    state_or,
    what,
)
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, is_text
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

ETHTOOL_GFECPARAM = 0x50
ETHTOOL_SFECPARAM = 0x51
FECPARAM = struct.Struct("=4I")  # struct ethtool_fecparam: cmd, active_fec, fec, reserved
FEC_MODES = ("none", "auto", "off", "rs", "baser", "llrs")  # ETHTOOL_FEC_*_BIT order
# What a user (or ethtool --set-fec) may ask for: "none" is what a driver reports when it
# has no FEC configuration, and the kernel refuses it in a set (ethtool_set_fecparam).
FEC_SETTABLE = FEC_MODES[1:]
_NOT_KEPT = Unavailable("missing", "not recorded in this host tree")
_KEPT_TEXT = re.compile(r"active (.+) \(configured (.+)\)")


@dataclass(frozen=True, slots=True)
class Fec:
    configured: int  # ETHTOOL_FEC_* mask: what the driver was told (auto, or fixed modes)
    active: int  # the encoding in use on the link now

    @property
    def configured_names(self) -> str:
        return fec_names(self.configured)

    @property
    def active_names(self) -> str:
        return fec_names(self.active)


def fec_names(mask: int) -> str:
    """ "auto rs" for a mask, in the kernel's bit order; "none" for no bit."""
    return " ".join(n for i, n in enumerate(FEC_MODES) if mask >> i & 1) or "none"


def fec_mask(text: str) -> int | None:
    """The mask of "auto rs" (or "Auto RS", "auto,rs", "BaseR" as ethtool prints it); None
    for a word that is no FEC mode."""
    mask = 0
    for word in text.replace(",", " ").lower().split():
        if word not in FEC_MODES:
            return None
        mask |= 1 << FEC_MODES.index(word)
    return mask


def read_fec(eth: io.EthtoolIoctl) -> Fec:
    buf = ctypes.create_string_buffer(FECPARAM.size)
    FECPARAM.pack_into(buf, 0, ETHTOOL_GFECPARAM, 0, 0, 0)
    eth.call(buf)
    _, active, configured, _ = FECPARAM.unpack_from(buf.raw)
    return Fec(configured, active)


def write_fec(eth: io.EthtoolIoctl, mask: int) -> None:
    eth.call(ctypes.create_string_buffer(FECPARAM.pack(ETHTOOL_SFECPARAM, 0, mask, 0), 16))


@dataclass(frozen=True, slots=True)
class FecGet:
    """ETHTOOL_GFECPARAM through the device port (an IoctlRead)."""

    kind: str = "fec"
    what: str = "FEC"

    def run(self, eth: io.EthtoolIoctl) -> Fec:
        return read_fec(eth)

    def recorded(self, kept: str | Unavailable) -> Fec | Unavailable:
        """The modes of a capture's text ("active rs (configured auto)", as `FecRead` kept
        it); another shape was not recorded as modes."""
        if isinstance(kept, Unavailable):
            return kept
        m = _KEPT_TEXT.fullmatch(kept)
        active, configured = (fec_mask(m[1]), fec_mask(m[2])) if m else (None, None)
        if active is None or configured is None:
            return _NOT_KEPT
        return Fec(configured, active)


@dataclass(frozen=True, slots=True)
class FecSet:
    """ETHTOOL_SFECPARAM through the device port (an IoctlWrite): an ETHTOOL_FEC_* mask of
    auto, off, rs, baser, llrs."""

    modes: int
    what: str = "FEC"

    def refused(self) -> str | None:
        m = self.modes
        if not m or m & 1 or m >> len(FEC_MODES):
            return f"not a settable set of modes ({fec_names(m)})"
        return None

    def run(self, eth: io.EthtoolIoctl) -> None:
        write_fec(eth, self.modes)


def fec_modes(key: Key, value: str) -> str:
    """Configured FEC modes as `ethtool --set-fec ... encoding` takes them ("auto rs")."""
    words = value.split() if isinstance(value, str) else []
    if not words or any(w not in FEC_SETTABLE for w in words):
        raise UnsafeValue(f"{key.label}: {comment(str(value))!r} is not FEC modes")
    return " ".join(words)


@dataclass(frozen=True, slots=True)
class FecShown:
    """The platform snapshot's FEC: the row's text ("active rs (configured auto)") or the
    read's state, and the configured modes alone (what `show --json` applies back; None
    where the text holds none: a read's state, or a capture's text of another shape)."""

    text: str | Unavailable
    configured: str | None = None

    @property
    def kept(self) -> str | Unavailable:
        return self.text


@dataclass(frozen=True, slots=True)
class FecRead:
    """ETHTOOL_GFECPARAM for the platform snapshot (host/platform.py's `KindRead`)."""

    kind: str = "fec"
    what: str = "FEC"

    def live(self, eth: io.EthtoolIoctl) -> FecShown:
        got = read_fec(eth)
        text = f"active {got.active_names} (configured {got.configured_names})"
        return FecShown(text, got.configured_names)

    def replay(self, kept: str | Unavailable) -> FecShown:
        # The configured modes are in the kept text: `show --json --root CAPTURE` gives them
        # back as the live host's would (before, null: a capture could not be re-applied).
        m = _KEPT_TEXT.fullmatch(kept) if isinstance(kept, str) else None
        mask = fec_mask(m[2]) if m else None
        return FecShown(kept, fec_names(mask) if mask is not None else None)


def _shown(platform: Platform) -> FecShown | None:
    got = platform.driver.kinds.get("fec")
    return got if isinstance(got, FecShown) else None


class FecMode(EthtoolFamily):
    host_row: HostRowEdit | None = HostRowEdit(
        "fec",
        "FEC modes: auto, off, rs, baser, llrs (one or more, as ethtool --set-fec takes)",
        lambda ifname, module, name: Key.fec(ifname),
        needs="interface",
        # The row shows "rs (configured auto rs)": the editor starts from the configured modes.
        start=lambda value, now: (value.rsplit("(configured ", 1)[-1].rstrip(")"), ""),
    )
    platform_read: KindRead | None = FecRead()

    def host_rows(self, kind: Kind, platform: Platform) -> tuple[Row, ...]:
        """Its firmware row: the active and configured modes; `e` edits the configured ones
        where the driver reports a configuration."""
        got = _shown(platform)
        if got is None:
            return ()
        fec = got.text
        refused = isinstance(fec, Unavailable)
        text = state_text(fec) if isinstance(fec, Unavailable) else shown(fec)
        edit = "fec" if got.configured not in (None, "none") else None
        return (Row(SECTIONS[1], "FEC", text, "fec", refused, edit, setting=True),)

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("fec", table=False)

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.driver.fec (the active and configured modes, as the Host view shows
        them) and .fec_configured (the configured modes alone: what is applied back)."""
        got = _shown(src.platform) if src.platform is not None else None
        if got is None:
            return {}
        return {
            ("platform", "driver", "fec"): state_or(got.text),
            ("platform", "driver", "fec_configured"): got.configured,
        }

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """platform.driver.fec_configured ("auto rs"), the configured modes, not the active."""
        driver = doc.platform_part("driver") if doc.iface is not None else None
        fec = driver.get("fec_configured") if driver is not None else None
        if fec is None:
            return []
        where = "platform.driver.fec_configured"
        mask = fec_mask(fec) if isinstance(fec, str) and is_text(fec, 64) else None
        if not mask or mask & 1:  # "none" is what a driver reports, never what it is set to
            if fec == "none":
                return []
            raise ProfileError(f"{where}: {what(fec)} is not FEC modes")
        return [Request("fec", "", fec_names(mask), where)]

    value_form: Form = "text"
    # Neither a .link file nor NetworkManager sets a driver's FEC.
    carriers: tuple[str, ...] = ("udev",)
    # One value a device: ethtool --set-fec DEV encoding auto rs.
    ethtool_set: EthtoolSet | None = EthtoolSet("--set-fec", 2, "encoding", fec_modes)

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        fec = et.ioctl_read(FecGet())
        if isinstance(fec, Unavailable):
            return fec
        return {Key.fec(dev): fec.configured_names}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        device(acc, key)
        if acc.current(key) == "none":
            why = "the driver reports no FEC configuration, which could not be put back"
            raise WriteRefused(key, Unavailable("unsupported", why))
        one_line = isinstance(text, str) and text.isprintable()
        mask = fec_mask(text) if one_line else None
        if not mask or mask & 1:
            got = text.strip()[:32] if isinstance(text, str) else str(text)[:32]
            raise v.InvalidValue(
                key, f"{key.label}: {got!r}: give one or more of {', '.join(FEC_SETTABLE)}"
            )
        return fec_names(mask)

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        et.ioctl_write(FecSet(fec_mask(value) or 0))
        return ()

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        return own_related(acc, key, whole_group=False)

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} FEC"

    def canonical(self, key: Key, text: str) -> str:
        mask = fec_mask(text)
        return fec_names(mask) if mask else text
