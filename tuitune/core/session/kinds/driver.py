"""A driver's private flags and FEC mode as journaled settings (issue 32), through the device's
ethtool handle like rings and pause.

Private flags: one key per flag, "on"/"off". The ioctl writes the whole mask, and some drivers
move one flag with another (i40e's rs-fec and base-r-fec), so the journal records every flag
of the device first (`related` is the whole group) and a restore puts each back.

FEC: one key per device whose value is the configured modes in the kernel's order ("auto",
"rs", "auto rs baser"), not the active encoding (that is the link's answer). A driver that
reports no configuration ("none") is refused before any write: the kernel takes no "none" in
a set, so its original could not be put back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuitune.core.host.ethtool_driver import FEC_SETTABLE, fec_mask, fec_names
from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import (
    EthtoolLike,
    EthtoolSet,
    Form,
    GroupRead,
    ProfileField,
    WriteRefused,
    own_related,
    switch,
    switch_word,
)
from tuitune.core.session.kinds.edit import HostRowEdit
from tuitune.core.session.kinds.ethtool import EthtoolFamily, device
from tuitune.core.session.kinds.safe import UnsafeValue, comment
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    ShowPart,
    ShowSource,
    boolean,
    is_refusal,
    state_or,
    what,
)
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, check_name, is_text
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort


class PrivFlags(EthtoolFamily):
    host_row: HostRowEdit | None = HostRowEdit(
        "priv_flag",
        "a private flag and on or off, e.g. legacy-rx on",
        lambda ifname, module, name: Key.priv_flag(ifname, name),
        named=True,
        needs="interface",
        start=lambda value, now: ("", value),  # "now:" lists the flags; the editor starts empty
    )

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("priv_flags")

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.driver.private_flags: name -> true/false."""
        if src.platform is None:
            return {}
        flags = src.platform.driver.priv_flags
        value = state_or(flags) if isinstance(flags, Unavailable) else dict(flags)
        return {("platform", "driver", "private_flags"): value}

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """platform.driver.private_flags (name -> true/false): settings of the interface."""
        driver = doc.platform_part("driver") if doc.iface is not None else None
        flags = driver.get("private_flags") if driver is not None else None
        where = "platform.driver"
        if flags is None or (
            isinstance(flags, dict) and "unavailable" in flags and is_refusal(flags, where)
        ):
            return []
        if not isinstance(flags, dict):
            raise ProfileError(f"{where}.private_flags: expected an object, found {what(flags)}")
        out: list[Request] = []
        for name, on in flags.items():
            at = f"{where}.private_flags"
            check_name("field", name, at)
            state = "on" if boolean(on, f"{at}.{name}") else "off"
            out.append(Request("priv_flag", name, state, f"{at} {name}"))
        return out

    value_form: Form = "switch"
    # Neither a .link file nor NetworkManager sets a driver's private flags or FEC.
    carriers: tuple[str, ...] = ("udev",)
    ethtool_set: EthtoolSet | None = EthtoolSet("--set-priv-flags", 1, "priv_flag")

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        flags = et.priv_flags()
        if isinstance(flags, Unavailable):
            return flags
        return {Key.priv_flag(dev, name): switch(on) for name, on in flags}

    def absent(self, key: Key) -> Unavailable:
        return Unavailable("missing", f"{key.label}: no such private flag")

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        device(acc, key)
        acc.current(key)  # the device has such a flag, read now: or refused with the reason
        return v.parse_switch(key, text)

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        et.set_priv_flags({key.name: value == "on"})
        return ()

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} private flag {key.name}"

    def canonical(self, key: Key, text: str) -> str:
        return switch_word(text)


def fec_modes(key: Key, value: str) -> str:
    """Configured FEC modes as `ethtool --set-fec ... encoding` takes them ("auto rs")."""
    words = value.split() if isinstance(value, str) else []
    if not words or any(w not in FEC_SETTABLE for w in words):
        raise UnsafeValue(f"{key.label}: {comment(str(value))!r} is not FEC modes")
    return " ".join(words)


class FecMode(EthtoolFamily):
    host_row: HostRowEdit | None = HostRowEdit(
        "fec",
        "FEC modes: auto, off, rs, baser, llrs (one or more, as ethtool --set-fec takes)",
        lambda ifname, module, name: Key.fec(ifname),
        needs="interface",
        # The row shows "rs (configured auto rs)": the editor starts from the configured modes.
        start=lambda value, now: (value.rsplit("(configured ", 1)[-1].rstrip(")"), ""),
    )

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("fec", table=False)

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.driver.fec (the active and configured modes, as the Host view shows
        them) and .fec_configured (the configured modes alone: what is applied back)."""
        if src.platform is None:
            return {}
        drv = src.platform.driver
        return {
            ("platform", "driver", "fec"): state_or(drv.fec),
            ("platform", "driver", "fec_configured"): drv.fec_configured,
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
    carriers: tuple[str, ...] = ("udev",)  # as the private flags
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
            shown = text.strip()[:32] if isinstance(text, str) else str(text)[:32]
            raise v.InvalidValue(
                key, f"{key.label}: {shown!r}: give one or more of {', '.join(FEC_SETTABLE)}"
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
