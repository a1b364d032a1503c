"""The characters the line renderers draw with: Unicode blocks, or plain ASCII where the
terminal cannot show them (the Linux console, a C locale, or when asked)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Glyphs:
    bar_full: str
    bar_partials: tuple[str, ...]  # a cell filled 1/(n+1) .. n/(n+1): eighths in Unicode
    bar_empty: str
    heat: tuple[str, ...]  # 9 steps from idle to pegged, one cell per CPU
    local_mark: str  # CPU on the NIC's NUMA node
    on: str
    off: str
    locked: str  # [fixed] feature, kernel-managed IRQ
    arrow_up: str  # above the baseline
    arrow_down: str
    ellipsis: str
    sep: str  # column separator


UNICODE = Glyphs(
    bar_full="█",
    bar_partials=("▏", "▎", "▍", "▌", "▋", "▊", "▉"),
    bar_empty=" ",
    heat=(" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"),
    local_mark="◆",
    on="●",
    off="○",
    locked="⊘",
    arrow_up="↑",
    arrow_down="↓",
    ellipsis="…",
    sep="│",
)

ASCII = Glyphs(
    bar_full="#",
    bar_partials=("-",),  # half a cell
    bar_empty=".",  # with no colour (NO_COLOR, monochrome console) the track still shows
    heat=(" ", ".", ":", "-", "=", "+", "*", "#", "@"),
    local_mark="*",
    on="+",
    off="-",
    locked="!",
    arrow_up="^",
    arrow_down="v",
    ellipsis="~",
    sep="|",
)

# Python's locale coercion (PEP 538) writes one of these into LC_CTYPE of its own environment
# when the locale was C or POSIX, so os.environ shows LANG=C beside LC_CTYPE=C.UTF-8.
_COERCED_CTYPES = frozenset({"C.UTF-8", "C.utf8", "UTF-8"})
_C_LOCALES = frozenset({"C", "POSIX"})


def _is_utf8(locale: str) -> bool:
    charset = locale.partition(".")[2].partition("@")[0]
    return charset.replace("-", "").replace("_", "").lower() == "utf8" or locale == "UTF-8"


def _locale(env: Mapping[str, str]) -> str:
    """The LC_CTYPE in effect (LC_ALL, LC_CTYPE, LANG: first non-empty), undoing PEP 538."""
    lc_all, lc_ctype, lang = (env.get(k, "") for k in ("LC_ALL", "LC_CTYPE", "LANG"))
    if lc_all:
        return lc_all
    if lc_ctype in _COERCED_CTYPES and lang in _C_LOCALES:
        return lang
    return lc_ctype or lang


def is_ascii_terminal(env: Mapping[str, str]) -> bool:
    """Should we draw in ASCII? TUITUNE_ASCII=1 forces it and TUITUNE_ASCII=0 forbids it.

    TERM=linux is the kernel console, whose fonts lack most block and box glyphs. A locale
    that is set but not UTF-8 (C, POSIX, en_US.ISO-8859-1) is taken at its word. No locale at
    all is taken as UTF-8: that is what an SSH login to a box without locales configured looks
    like (sshd passes no LANG), the terminal at the other end is nearly always UTF-8, and
    Python writes UTF-8 there anyway (PEP 538/540).
    """
    forced = env.get("TUITUNE_ASCII", "")
    if forced in ("0", "1"):
        return forced == "1"
    if env.get("TERM", "") == "linux":
        return True
    locale = _locale(env)
    return bool(locale) and not _is_utf8(locale)


def detect(env: Mapping[str, str]) -> Glyphs:
    return ASCII if is_ascii_terminal(env) else UNICODE


def _clamp(fraction: float) -> float:
    return 0.0 if math.isnan(fraction) else min(1.0, max(0.0, fraction))


def bar(fraction: float, width: int, g: Glyphs) -> str:
    """A horizontal bar of exactly `width` cells (none when width < 1), to the nearest partial."""
    if width < 1:
        return ""
    steps = len(g.bar_partials) + 1
    total = round(_clamp(fraction) * width * steps)
    full, part = divmod(total, steps)
    text = g.bar_full * full + (g.bar_partials[part - 1] if part else "")
    return text + g.bar_empty * (width - len(text))


def heat_char(fraction: float, g: Glyphs) -> str:
    """One cell of a heat map. Any load above zero gets at least the first step, so a lightly
    loaded CPU never looks idle."""
    f = _clamp(fraction)
    if f <= 0.0:
        return g.heat[0]
    top = len(g.heat) - 1
    return g.heat[min(top, max(1, math.ceil(f * top)))]
