"""Theme files: where they live, how they load, and the variables tuitune adds to a theme.

Themes are TOML files, one `textual.theme.Theme` each, so a user can copy one to
~/.config/tuitune/themes/, change it, and have it next start without touching the code.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from pathlib import Path

from textual.color import Color, ColorParseError
from textual.theme import Theme

import tuitune
from tuitune.core import paths, untrusted
from tuitune.core.docfile import DocumentError, shown
from tuitune.core.text import is_plain, printable

DEFAULT_THEME = "tuitune-dark"
CONSOLE_THEME = "tuitune-console"

# Fallbacks for themes that lack them (Textual's built-ins, a user's partial theme), so a theme
# switch never fails with UnresolvedVariableError. Picked to read on black and on white alike.
THEME_VARIABLE_DEFAULTS: dict[str, str] = {
    "heat-0": "#808080",
    "heat-1": "#2e8b57",
    "heat-2": "#b8860b",
    "heat-3": "#d2691e",
    "heat-4": "#e0115f",
    "tt-local": "#1e90a0",
    "tt-changed": "#9b59b6",
    "tt-locked": "#4a7fc1",
    "tt-muted": "#808080",
    "tt-warn-bg": "#b71c1c",
    # Textual's screen CSS reads these under ANSI themes (`ansi = true`) but only its own ANSI
    # themes define them: without a default a user's ANSI theme fails to load its stylesheet.
    "ansi-background": "ansi_default",
    "ansi-foreground": "ansi_default",
}
CUSTOM_VARIABLES = tuple(k for k in THEME_VARIABLE_DEFAULTS if not k.startswith("ansi-"))
THEME_LIMIT = 64 * 1024  # a theme is a few hundred bytes; /dev/zero linked here is not one
NAME_MAX = 64


def shipped_theme_dir() -> Path:
    """The themes that ship with tuitune: package data beside the code. In a checkout
    tuitune/themes links to the top-level themes/; a wheel holds copies of the files."""
    return Path(tuitune.__file__).resolve().parent / "themes"


def theme_dirs(env: Mapping[str, str] | None = None) -> list[Path]:
    """User themes first (they win a name clash), then the shipped ones."""
    return [paths.config_dir(os.environ if env is None else env) / "themes", shipped_theme_dir()]


def _parse(path: Path) -> Theme:
    """One theme file as a Theme, or ValueError saying what is wrong with it (one line). Read
    with the bounded, link-safe reader: a FIFO, a device or a link another user made there is
    refused, never waited on or read without end."""
    try:
        text = untrusted.read_text(path, THEME_LIMIT, follow=False)
        data = untrusted.parse_toml(text or "", shown(path))
    except (OSError, DocumentError) as exc:  # both one line, naming the file
        raise ValueError(
            str(exc).removeprefix(f"{shown(path)}: ").removeprefix(f"{path}: ")
        ) from None
    name = data.get("name")
    if isinstance(name, str) and (len(name) > NAME_MAX or not is_plain(name)):
        raise ValueError(
            f"theme name {printable(name, NAME_MAX)} holds control characters "
            f"or is longer than {NAME_MAX}"
        )
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise ValueError("no name")
    variables = data.get("variables", {})
    if not isinstance(variables, dict) or not all(isinstance(v, str) for v in variables.values()):
        raise ValueError("[variables] must hold strings")
    try:
        theme = Theme(**data)
        # Theme() checks nothing; building the colour system parses every main colour.
        theme.to_color_system().generate()
        for name in CUSTOM_VARIABLES:
            if name in variables:
                Color.parse(variables[name])
    except TypeError as exc:  # a missing or unknown field
        raise ValueError(printable(str(exc).replace("Theme.__init__()", "theme"))) from exc
    except (ColorParseError, AttributeError, ValueError) as exc:
        raise ValueError(f"bad colour: {printable(exc)}") from exc
    return theme


def load_themes(dirs: list[Path] | None = None) -> tuple[list[Theme], list[str]]:
    """Every *.toml theme in `dirs` (default theme_dirs()), and one message per file skipped.

    The first directory that has a theme name wins, so a user's copy of a shipped theme
    replaces it; two files with one name in the same directory are reported.
    """
    themes: dict[str, Theme] = {}
    problems: list[str] = []
    shipped = shipped_theme_dir()
    for d in theme_dirs() if dirs is None else dirs:
        # A theme is style code the screen loads: as root, never from a directory another
        # user could have put it in (their home kept by sudo -E), only from root's own.
        note = untrusted.owner_note(d) if d != shipped else None
        if note is not None:
            if d.is_dir():
                problems.append(f"themes there not loaded: {note}")
            continue
        if not d.is_dir():
            continue
        seen_here: set[str] = set()
        for path in sorted(d.glob("*.toml")):
            try:
                theme = _parse(path)
            except ValueError as exc:
                problems.append(f"{shown(path)}: {exc}")
                continue
            if theme.name in seen_here:
                problems.append(f"{shown(path)}: theme {theme.name!r} is already defined in {d}")
            seen_here.add(theme.name)
            themes.setdefault(theme.name, theme)
    return list(themes.values()), problems


def initial_theme(
    configured: str | None, available: Collection[str], env: Mapping[str, str]
) -> str:
    """The theme to start with: the configured one if it exists, else the console theme on the
    Linux console (whose 16 colours garble RGB themes), else the default."""
    if configured and configured in available:
        return configured
    if env.get("TERM") == "linux" and CONSOLE_THEME in available:
        return CONSOLE_THEME
    return DEFAULT_THEME
