"""A driver's private flags as journaled settings (issue 32), through the device's ethtool
handle like rings and pause (its FEC mode: kinds/fec.py).

One key per flag, "on"/"off". The ioctl writes the whole mask, and some drivers move one flag
with another (i40e's rs-fec and base-r-fec), so the journal records every flag of the device
first (`related` is the whole group) and a restore puts each back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import (
    EthtoolLike,
    EthtoolSet,
    Form,
    GroupRead,
    ProfileField,
    switch,
    switch_word,
)
from tuitune.core.session.kinds.edit import HostRowEdit
from tuitune.core.session.kinds.ethtool import EthtoolFamily, device
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
from tuitune.core.session.profile_model import ProfileError, Request, check_name
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
    # Neither a .link file nor NetworkManager sets a driver's private flags.
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
