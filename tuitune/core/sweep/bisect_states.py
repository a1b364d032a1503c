"""The two states a bisect goes between, by the sweep's names for settings: two runs of the
notebook (the settings each recorded) or two profiles (`tuitune apply` files). Each differing
setting gets its good and its bad value; a setting a sweep cannot set is named as not tried.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from tuitune.core.bench import settings as st
from tuitune.core.session.profile import load as load_profile
from tuitune.core.session.profile_model import ALL_QUEUES, Profile, Request
from tuitune.core.sweep.spec import Setting, SpecError, setting_of

_QUEUE_NAME = re.compile(r"((?:rx|tx)-[0-9]{1,5}) (rps_cpus|xps_cpus)")


@dataclass
class States:
    """name -> (setting, good value or None (as found), bad value or None), in order."""

    values: dict[str, tuple[Setting, str | None, str | None]] = field(default_factory=dict)
    not_tried: list[str] = field(default_factory=list)

    @property
    def names(self) -> list[str]:
        return list(self.values)


def sweep_name(notebook_name: str) -> str:
    """The sweep's name of a setting the notebook records: "rx-0 rps_cpus" -> "rps rx-0"."""
    m = _QUEUE_NAME.fullmatch(notebook_name)
    if m is None:
        return notebook_name
    return f"{'rps' if m.group(2) == 'rps_cpus' else 'xps'} {m.group(1)}"


def _value(kind: str | None, text: str) -> str:
    """A recorded value as a value to write: a feature's "off [requested on]" -> "off"; a
    sysctl's "4096 87380 8388608" stays whole."""
    return text.split(" ", 1)[0] if kind == "feature" else text


def from_runs(good: Mapping[str, str], bad: Mapping[str, str]) -> States:
    out = States()
    for name, bad_text in st.diff(good, bad):
        good_text = good.get(name)
        if name.startswith("peer ") or good_text is None or bad_text == st.GONE:
            out.not_tried.append(f"{name} (not a setting a sweep sets here)")
            continue
        try:
            setting = setting_of(sweep_name(name), "run")
        except SpecError:
            out.not_tried.append(f"{name} (not a setting a sweep sets)")
            continue
        kind = setting.kind
        out.values[name] = (setting, _value(kind, good_text), _value(kind, bad_text))
    return out


_GROUP_WORD = {"ring": "rings", "coalesce": "coalesce", "channels": "channels", "pause": "pause"}


def _name(r: Request) -> str | None:
    """The sweep's name for a profile's request, None for one a sweep does not set."""
    if r.kind in ("sysctl", "feature"):
        return r.name
    if r.kind in ("mtu", "txqueuelen"):
        return r.kind
    if r.kind in _GROUP_WORD:
        return f"{_GROUP_WORD[r.kind]} {r.name}"
    if r.kind in ("rps_cpus", "xps_cpus"):
        word = "rps" if r.kind == "rps_cpus" else "xps"
        return word if r.name == ALL_QUEUES else f"{word} {r.name}"
    return None  # IRQ affinities by queue name, rps_flow_cnt


def _by_name(profile: Profile, out: States) -> dict[str, tuple[Setting, str]]:
    found: dict[str, tuple[Setting, str]] = {}
    for r in profile.requests:
        name = _name(r)
        if name is None:
            out.not_tried.append(f"{r.origin} (a sweep does not set {r.kind})")
            continue
        try:
            found[name] = (setting_of(name, r.origin), r.text)
        except SpecError as exc:
            out.not_tried.append(f"{r.origin} ({exc})")
    return found


def from_profiles(good: Profile, bad: Profile) -> States:
    """What differs between two profiles; a setting only one sets is, in the other, left as
    this host has it."""
    out = States()
    a, b = _by_name(good, out), _by_name(bad, out)
    for name in [*a, *[n for n in b if n not in a]]:
        ga, gb = a.get(name), b.get(name)
        if ga is not None and gb is not None and ga[1] == gb[1]:
            continue
        setting = (ga or gb)[0]  # type: ignore[index]  # one of them is set
        out.values[name] = (setting, ga[1] if ga else None, gb[1] if gb else None)
    return out


def load_profiles(good: Path, bad: Path, netns: str | None) -> States:
    """Raises ProfileError (one line naming the file)."""
    return from_profiles(load_profile(good, netns=netns), load_profile(bad, netns=netns))
