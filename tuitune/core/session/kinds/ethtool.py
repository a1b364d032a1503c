"""The ethtool families: features, rings, coalescing, channels, pause. One read gives every
field of a group; a device without a handle (a recorded tree) has them "not recorded"."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

from tuitune.core.host.ethtool import Channels, Coalesce, EthtoolWriteError, Pause, Rings
from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME
from tuitune.core.session import validate as v
from tuitune.core.session.kinds import ethtool_show
from tuitune.core.session.kinds.base import (
    NOT_RECORDED,
    EthtoolLike,
    EthtoolSet,
    Family,
    Form,
    GroupRead,
    ProfileField,
    Values,
    WriteRefused,
    own_related,
    switch,
    switch_word,
)
from tuitune.core.session.kinds.edit import PICK_INTERFACE, EditContext, EditSpec, switch_spec
from tuitune.core.session.kinds.irq import read_irq
from tuitune.core.session.kinds.queues import read_device_queues
from tuitune.core.session.kinds.showform import ShowDoc
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import COALESCE_NAMES, ProfileError, Request, check_name
from tuitune.core.session.settings import (
    CHANNEL_FIELDS,
    GROUP_OF,
    PAUSE_FIELDS,
    RING_FIELDS,
    Key,
    Kind,
    ring_minimum,
)
from tuitune.core.values import Unavailable
from tuitune.core.watch.snapshot import NicState

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

C = TypeVar("C", Rings, Channels)
FLAGS = frozenset(n for n, (_, flag) in COALESCE_BY_NAME.items() if flag)


def device(acc: KernelPort, key: Key) -> EthtoolLike:
    """The device's ethtool handle, or WriteRefused: a recorded tree has none."""
    et = acc.ethtool(key.ifname or "")
    if et is None:
        raise WriteRefused(key, NOT_RECORDED)
    return et


class EthtoolFamily(Family):
    """What every ethtool family shares: the group is one read, a write reports its fields."""

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        et = acc.ethtool(key.ifname or "")
        if et is None:
            return NOT_RECORDED
        return self.read_device(et, key.ifname or "")

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        raise NotImplementedError

    def absent(self, key: Key) -> Unavailable:
        return Unavailable("unsupported", f"{key.label}: not supported by this device")

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        et = device(acc, key)
        try:
            return self.write_device(et, key, value)
        except EthtoolWriteError as exc:
            raise WriteRefused(key, exc.state) from exc

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        raise NotImplementedError

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        return own_related(acc, key, whole_group=True)

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} {GROUP_OF[key.kind]} {key.name}"


def known_fields(fields: tuple[str, ...], name: str, origin: str) -> None:
    """A profile's field of an ethtool group: one of the group's (`ethtool -G rx` ...)."""
    if name not in fields:
        raise ProfileError(f"{origin}: unknown (known: {', '.join(fields)})")


class _Switches(EthtoolFamily):
    """A family whose every field is on or off (features, pause)."""

    value_form: Form = "switch"

    def canonical(self, key: Key, text: str) -> str:
        return switch_word(text)


class Features(_Switches):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("features")

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        check_name("feature", name, origin)

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        return ethtool_show.features(doc)

    ethtool_set: EthtoolSet | None = EthtoolSet("-K", 6, "feature")

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        feats = et.features()
        if isinstance(feats, Unavailable):
            return feats
        return {Key.feature(dev, f.name): switch(f.requested) for f in feats}

    def absent(self, key: Key) -> Unavailable:
        return Unavailable("missing", f"{key.label}: no such feature")

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        feats = device(acc, key).features()
        if isinstance(feats, Unavailable):
            raise WriteRefused(key, feats)
        found = next((f for f in feats if f.name == key.name), None)
        if found is None:
            raise v.InvalidValue(key, f"{key.label}: no such feature on {key.ifname}")
        if found.fixed:
            # Asking for the value it has is no error (`lro = false` where LRO is fixed off).
            with contextlib.suppress(v.InvalidValue):
                if v.parse_switch(key, text) == switch(found.requested):
                    return switch(found.requested)
            state = Unavailable("unsupported", f"{key.label}: fixed, the device cannot change it")
            raise WriteRefused(key, state)
        return v.parse_switch(key, text)

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        dev = key.ifname or ""
        change = et.set_features({key.name: value == "on"})
        return tuple(
            Effect(Key.feature(dev, name), switch(not active), switch(active))
            for name, active in change.changed
            if name != key.name
        )

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        return own_related(acc, key, whole_group=False)

    def label(self, key: Key) -> str:
        return f"{key.ifname or '?'} {key.name}"

    rows: tuple[str, ...] = ("feature",)

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        ifname, nic = ctx.ifname, ctx.nic
        if ifname is None or nic is None:
            return PICK_INTERFACE
        if isinstance(nic.features, Unavailable):
            return nic.features.reason
        f = next((f for f in nic.features if f.name == rest), None)
        if f is None:
            return f"{rest}: no such feature"
        if f.fixed:
            return f"{rest} is fixed by the driver ([fixed] in ethtool -k): it cannot change"
        return switch_spec(Key.feature(ifname, rest), switch(f.active))

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        if isinstance(nic.features, Unavailable):
            return nic
        # The journal reads the requested bit; the device's active bit follows it unless the
        # kernel held it back (a dependency), which the re-read then shows. A side effect
        # (`effect`) is the active bit only (Effect's docstring).
        on = value == "on"
        feats = tuple(
            (replace(f, active=on) if effect else replace(f, requested=on, active=on))
            if f.name == key.name
            else f
            for f in nic.features
        )
        return replace(nic, features=feats)


def rings_values(ifname: str, r: Rings) -> Values:
    f = Key.field
    return {
        f(ifname, "ring", "rx"): str(r.rx),
        f(ifname, "ring", "rx-mini"): str(r.rx_mini),
        f(ifname, "ring", "rx-jumbo"): str(r.rx_jumbo),
        f(ifname, "ring", "tx"): str(r.tx),
    }


def ring_max(r: Rings, field: str) -> int:
    return {"rx": r.rx_max, "rx-mini": r.rx_mini_max, "rx-jumbo": r.rx_jumbo_max, "tx": r.tx_max}[
        field
    ]


def channel_max(c: Channels, field: str) -> int:
    return {"rx": c.rx_max, "tx": c.tx_max, "other": c.other_max, "combined": c.combined_max}[field]


def _with_max(key: Key, got: C | Unavailable, top_of: Callable[[C, str], int]) -> tuple[C, int]:
    """The device's counts as read now (rings or channels) and the maximum of `key`'s field;
    WriteRefused when they cannot be read or the device has no such ring or channel."""
    if isinstance(got, Unavailable):
        raise WriteRefused(key, got)
    top = top_of(got, key.name)
    if top == 0:
        raise WriteRefused(key, Unavailable("unsupported", f"{key.label}: not on this device"))
    return got, top


_RING_ROW = {"rx": "rx", "rx_mini": "rx-mini", "rx_jumbo": "rx-jumbo", "tx": "tx"}


def struct_edit(kind: Kind, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
    """A field of one of the NIC's ethtool structs (rings, coalescing, channels, pause): row
    `row` ("rings") shows field `rest` ("rx_mini") of the NicState attribute of that name."""
    ifname, nic = ctx.ifname, ctx.nic
    if ifname is None or nic is None:
        return PICK_INTERFACE
    field = _RING_ROW.get(rest, rest) if kind == "ring" else rest.replace("_", "-")
    value = getattr(nic, row)
    if isinstance(value, Unavailable):
        return str(value.reason)
    key = Key.field(ifname, kind, field)
    if kind == "pause" or (kind == "coalesce" and rest.startswith(("adaptive", "cqe"))):
        return switch_spec(key, switch(bool(_field(value, rest))))
    current = str(_field(value, rest))
    hint = "an integer"
    if isinstance(value, (Rings, Channels)):
        top = getattr(value, f"{rest}_max", None)
        low = ring_minimum(field) if isinstance(value, Rings) else 0
        hint = f"{low}..{top} (the device's maximum)" if top is not None else hint
    return EditSpec(key, current, hint)


def _field(value: object, name: str) -> object:
    """A struct's field (Rings.rx), or a parameter of one that holds them by name (Coalesce)."""
    get = getattr(value, "get", None)
    if callable(get) and not hasattr(value, name):
        return get(name)
    return getattr(value, name)


class RingSizes(EthtoolFamily):
    fields = RING_FIELDS

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("rings")

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        known_fields(self.fields, name, origin)
        super().check_profile_name(kind, name, origin)

    ethtool_set: EthtoolSet | None = EthtoolSet("-G", 3)

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        return ethtool_show.sizes(doc, "ring", "rings", Rings, RING_FIELDS)

    value_form: Form = "count"
    rows: tuple[str, ...] = ("rings",)

    def resets_link(self, key: Key) -> bool:
        return True  # drivers reset the device to change it

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        return struct_edit("ring", row, rest, ctx)

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        r = et.rings()
        return r if isinstance(r, Unavailable) else rings_values(dev, r)

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        et = device(acc, key)
        if key.name not in RING_FIELDS:
            raise v.InvalidValue(key, f"{key.label}: no such ring ({', '.join(RING_FIELDS)})")
        _, top = _with_max(key, et.rings(), ring_max)
        return v.parse_count(key, text, minimum=ring_minimum(key.name), maximum=top)

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        et.set_rings(**{key.name.replace("-", "_"): int(value)})
        return ()

    def row_key(self, key: Key) -> str:
        return f"rings:{key.name.replace('-', '_')}"

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        if not isinstance(nic.rings, Rings):
            return nic
        return replace(nic, rings=replace(nic.rings, **{key.name.replace("-", "_"): int(value)}))


class ChannelCounts(EthtoolFamily):
    fields = CHANNEL_FIELDS
    makes_queues = True  # the queues (and their IRQs) come and go with the counts

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("channels")

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        known_fields(self.fields, name, origin)
        super().check_profile_name(kind, name, origin)

    ethtool_set: EthtoolSet | None = EthtoolSet("-L", 0, note=": first, the queues depend on them")

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        return ethtool_show.sizes(doc, "channels", "channels", Channels, CHANNEL_FIELDS)

    value_form: Form = "count"
    rows: tuple[str, ...] = ("channels",)

    def resets_link(self, key: Key) -> bool:
        return True  # drivers reset the device to change it

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        return struct_edit("channels", row, rest, ctx)

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        c = et.channels()
        if isinstance(c, Unavailable):
            return c
        counts = (c.rx, c.tx, c.other, c.combined)
        return {
            Key.field(dev, "channels", n): str(x)
            for n, x in zip(CHANNEL_FIELDS, counts, strict=True)
        }

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        et = device(acc, key)
        if key.name not in CHANNEL_FIELDS:
            known = ", ".join(CHANNEL_FIELDS)
            raise v.InvalidValue(key, f"{key.label}: no such channel kind ({known})")
        c, top = _with_max(key, et.channels(), channel_max)
        value = v.parse_count(key, text)
        if int(value) > top:
            raise v.BeyondDevice(key, f"{key.label}: {value} is above the maximum {top}")
        counts = {"rx": c.rx, "tx": c.tx, "other": c.other, "combined": c.combined}
        counts[key.name] = int(value)
        # The kernel's own rule (ethtool_set_channels): something must still receive and send.
        if counts["combined"] == 0 and (counts["rx"] == 0 or counts["tx"] == 0):
            raise v.InvalidValue(
                key, f"{key.label}: {value} would leave no rx or no tx channel (needs at least one)"
            )
        return value

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        et.set_channels(**{key.name: int(value)})
        return ()

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        if not isinstance(nic.channels, Channels):
            return nic
        return replace(nic, channels=replace(nic.channels, **{key.name: int(value)}))

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        group = acc.read_group(key)
        out: dict[Key, str | None] = {key: None}
        if isinstance(group, Unavailable):
            return out
        out.update(group)
        queues = read_device_queues(acc, key.ifname or "")
        if not isinstance(queues, Unavailable):
            out.update(queues)
        # Drivers re-create (or re-spread) their queue IRQs on a channel change: their
        # affinity moves with it, and absent ones are IRQs of queues the change removes.
        outer, acc.irq_parts = acc.irq_parts, None  # one parse for all of them
        try:
            for q in acc.nic_irqs(key.ifname or ""):
                irq = Key.irq(q.irq, q.name, key.ifname)
                got = read_irq(acc, irq)
                out[irq] = None if isinstance(got, Unavailable) else got.get(irq)
        finally:
            acc.irq_parts = outer
        return out


class PauseFrames(_Switches):
    fields = PAUSE_FIELDS

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("pause")

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        known_fields(self.fields, name, origin)
        super().check_profile_name(kind, name, origin)

    ethtool_set: EthtoolSet | None = EthtoolSet("-A", 5)

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        return ethtool_show.pause(doc)

    rows: tuple[str, ...] = ("pause",)

    def resets_link(self, key: Key) -> bool:
        return True  # drivers reset the device to change it

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        return struct_edit("pause", row, rest, ctx)

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        p = et.pause()
        if isinstance(p, Unavailable):
            return p
        flags = (p.autoneg, p.rx, p.tx)
        return {
            Key.field(dev, "pause", n): switch(b) for n, b in zip(PAUSE_FIELDS, flags, strict=True)
        }

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        device(acc, key)
        acc.current(key)
        return v.parse_switch(key, text)

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        et.set_pause(**{key.name: value == "on"})
        return ()

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        if not isinstance(nic.pause, Pause):
            return nic
        return replace(nic, pause=replace(nic.pause, **{key.name: value == "on"}))


class Coalescing(EthtoolFamily):
    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("coalesce")

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        if name not in COALESCE_NAMES:
            raise ProfileError(f"{origin}: not a coalescing parameter (ethtool -C names)")
        super().check_profile_name(kind, name, origin)

    ethtool_set: EthtoolSet | None = EthtoolSet("-C", 4)

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        return ethtool_show.coalesce(doc)

    rows: tuple[str, ...] = ("coalesce",)

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        return struct_edit("coalesce", row, rest, ctx)

    def read_device(self, et: EthtoolLike, dev: str) -> GroupRead:
        co = et.coalesce()
        if isinstance(co, Unavailable):
            return co
        return {
            Key.field(dev, "coalesce", n): switch(bool(x)) if n in FLAGS else str(x)
            for n, x in co.params
        }

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        device(acc, key)
        if key.name not in COALESCE_BY_NAME:
            known = ", ".join(sorted(COALESCE_BY_NAME))
            raise v.InvalidValue(key, f"{key.label}: no such parameter (known: {known})")
        acc.current(key)
        if key.name in FLAGS:
            return v.parse_switch(key, text)
        return v.parse_count(key, text, maximum=v.U32_MAX)

    def write_device(self, et: EthtoolLike, key: Key, value: str) -> tuple[Effect, ...]:
        number = int(value == "on") if key.name in FLAGS else int(value)
        et.set_coalesce({key.name: number})
        return ()

    def form(self, key: Key) -> Form:
        return "switch" if key.name in FLAGS else "count"

    def canonical(self, key: Key, text: str) -> str:
        return switch_word(text)  # "no" is "off" for its counts too, as verify always read it

    def patch(self, nic: NicState, key: Key, value: str, effect: bool) -> NicState:
        if not isinstance(nic.coalesce, Coalesce):
            return nic
        number = int(value == "on") if value in ("on", "off") else int(value)
        params = tuple((n, number if n == key.name else x) for n, x in nic.coalesce.params)
        return replace(nic, coalesce=replace(nic.coalesce, params=params))
