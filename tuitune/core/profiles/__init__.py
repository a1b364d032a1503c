"""Shipped profiles: choices of the catalog's advice (catalog_data/profiles.toml), each value
with the report it comes from and whether that was LAN or WAN advice."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from tuitune.core.catalog import Advice, entry
from tuitune.core.catalog.device import device_help
from tuitune.core.catalog.load import DATA_DIR
from tuitune.core.session.profile_model import Profile, Request
from tuitune.core.sweep.spec import SpecError, requests, setting_of

PROFILES = DATA_DIR / "profiles.toml"


class ProfileDataError(ValueError):
    """profiles.toml names a knob or a source the catalog lacks (a packaging error)."""


@dataclass(frozen=True, slots=True)
class Pick:
    setting: str  # the notebook's name: "net.ipv4.tcp_rmem", "mtu", "coalesce rx-usecs"
    value: str  # as the report wrote it, from the catalog
    advice: Advice  # its source, context (LAN/WAN) and finding


@dataclass(frozen=True, slots=True)
class ShippedProfile:
    name: str
    title: str
    goal: str  # "throughput" or "latency"
    context: str  # "LAN" or "WAN"
    picks: tuple[Pick, ...]
    # Scaled to a host: requests no pick names (the IRQ placement onto the NIC-local cores,
    # profiles/placement.py), after the picks' own.
    extra: tuple[Request, ...] = ()

    def to_profile(self) -> Profile:
        """The journal's requests (as `tuitune apply` reads a file), through the sweep's
        setting names."""
        pairs = []
        for pick in self.picks:
            try:
                setting = setting_of(pick.setting, f"{self.name}: {pick.setting}")
            except SpecError as exc:
                raise ProfileDataError(str(exc)) from None
            pairs.append((setting, pick.value))
        return Profile(None, (*requests(pairs), *self.extra), "profile")


def _sources(catalog: str) -> tuple[Advice, ...]:
    if "." in catalog:
        return entry(catalog).sources
    return device_help(catalog).sources


def _pick(raw: dict[str, str], where: str) -> Pick:
    catalog, source = raw.get("catalog", ""), raw.get("source", "")
    try:
        advice = next(a for a in _sources(catalog) if a.source == source)
    except (KeyError, StopIteration):
        raise ProfileDataError(
            f"{where}: the catalog has no {source} advice on {catalog}"
        ) from None
    if advice.value is None:
        raise ProfileDataError(f"{where}: {source} gives no value for {catalog}")
    return Pick(raw.get("setting", catalog), advice.value, advice)


@cache
def shipped(path: Path = PROFILES) -> tuple[ShippedProfile, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out = []
    for raw in data.get("profile", []):
        name = raw["name"]
        picks = tuple(_pick(p, f"{path.name}: {name}") for p in raw["picks"])
        out.append(ShippedProfile(name, raw["title"], raw["goal"], raw["context"], picks))
    return tuple(out)


def find(name: str) -> ShippedProfile | None:
    return next((p for p in shipped() if p.name == name), None)
