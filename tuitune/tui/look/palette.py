"""Rich styles for the line renderers, made once per theme from its variables.

The panels draw lines by hand (one Strip per row, no widget per cell), so they cannot use CSS
for per-cell colours: they read the theme's variables once, here, whenever the theme changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from rich.style import Style
from textual.color import Color, ColorParseError

HEAT_LEVELS = 5
# Busy-% thresholds of heat levels 1..4: light, moderate, heavy, pegged. A core at 90% or more
# is the one the field reports kept finding ("Cpu0: 49.7%sy 50.0%si").
HEAT_STEPS = (5.0, 25.0, 50.0, 90.0)


def heat_level(percent: float) -> int:
    level = 0
    for step in HEAT_STEPS:
        if percent >= step:
            level += 1
    return level


def _color(variables: Mapping[str, str], name: str, fallback: str) -> str:
    raw = variables.get(name, fallback)
    try:
        return Color.parse(raw).rich_color.name
    except (ColorParseError, ValueError):
        return fallback


@dataclass(frozen=True)
class Palette:
    heat: tuple[Style, ...]  # foreground per heat level
    heat_bg: tuple[Style, ...]  # background per heat level (heat maps, bars)
    local: Style
    changed: Style
    locked: Style
    muted: Style
    header: Style
    section: Style
    warn: Style
    on: Style
    off: Style

    @classmethod
    def from_variables(cls, v: Mapping[str, str]) -> Palette:
        fallback = ("grey50", "green", "yellow", "dark_orange", "red")
        heat = [_color(v, f"heat-{i}", fallback[i]) for i in range(HEAT_LEVELS)]
        return cls(
            heat=tuple(Style(color=c, bold=i == HEAT_LEVELS - 1) for i, c in enumerate(heat)),
            heat_bg=tuple(Style(bgcolor=c) for c in heat),
            local=Style(color=_color(v, "tt-local", "cyan"), bold=True),
            changed=Style(color=_color(v, "tt-changed", "magenta"), bold=True),
            locked=Style(color=_color(v, "tt-locked", "grey50")),
            muted=Style(color=_color(v, "tt-muted", "grey50"), italic=True),
            header=Style(color=_color(v, "primary", "blue"), bold=True),
            section=Style(color=_color(v, "accent", "yellow"), bold=True),
            warn=Style(color=_color(v, "warning", "yellow"), bold=True),
            on=Style(color=_color(v, "success", "green")),
            off=Style(color=_color(v, "error", "red")),
        )


DEFAULT_PALETTE = Palette.from_variables({})
