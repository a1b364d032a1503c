"""FEC as a journaled setting (issue 32), and everything else tuitune does with it (issue 37):
the kind is this module, its tests and its catalog data.

One key per device whose value is the configured modes in the kernel's order ("auto", "rs",
"auto rs baser"), not the active encoding (that is the link's answer). A driver that reports
no configuration ("none") is refused before any write: the kernel takes no "none" in a set,
so its original could not be put back.

Besides the setting, the kind reads the interface for the platform snapshot itself
(`platform_read`: the Host view's row, `show --json`'s platform.driver.fec, what a capture
keeps) and writes its Host view row (`host_rows`); core/host/platform.py, core/platformview.py
and core/capture walk the handlers for them without naming FEC.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tuitune.core.host import ethtool_driver as drv
from tuitune.core.host import ethtool_ioctl as io
from tuitune.core.host.ethtool_driver import FEC_SETTABLE, fec_mask, fec_names
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
    where only the text is known: a capture keeps the text)."""

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
        got = drv.read_fec(eth)
        text = f"active {got.active_names} (configured {got.configured_names})"
        return FecShown(text, got.configured_names)

    def replay(self, kept: str | Unavailable) -> FecShown:
        return FecShown(kept)


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
        return (Row(SECTIONS[1], "FEC", text, "fec", refused, edit),)

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
        driver = doc.platform_driver() if doc.iface is not None else None
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
        fec = et.fec()
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
        et.set_fec(fec_mask(value) or 0)
        return ()

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        return own_related(acc, key, whole_group=False)

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} FEC"

    def canonical(self, key: Key, text: str) -> str:
        mask = fec_mask(text)
        return fec_names(mask) if mask else text
