from __future__ import annotations

import dataclasses
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len

from tuitune.tui.look.glyphs import (
    ASCII,
    UNICODE,
    Glyphs,
    bar,
    detect,
    heat_char,
    is_ascii_terminal,
)


def all_glyphs(g: Glyphs) -> list[str]:
    out: list[str] = []
    for f in dataclasses.fields(g):
        value = getattr(g, f.name)
        out.extend(value if isinstance(value, tuple) else [value])
    return out


@pytest.mark.parametrize("g", [ASCII, UNICODE], ids=["ascii", "unicode"])
def test_every_glyph_is_one_cell(g: Glyphs) -> None:
    for ch in all_glyphs(g):
        assert len(ch) == 1 and cell_len(ch) == 1, repr(ch)
    assert len(g.heat) == 9
    assert len(set(g.heat)) == 9  # every step looks different


def test_ascii_glyphs_are_ascii() -> None:
    for ch in all_glyphs(ASCII):
        assert ord(ch) < 128 and ch.isprintable(), repr(ch)


def test_unicode_glyphs_are_not_east_asian_wide() -> None:
    import unicodedata

    for ch in all_glyphs(UNICODE):
        assert unicodedata.east_asian_width(ch) not in ("W", "F"), repr(ch)


@pytest.mark.parametrize(
    ("env", "ascii"),
    [
        ({"TERM": "linux", "LANG": "en_US.UTF-8"}, True),  # console font lacks the blocks
        ({"TERM": "xterm-256color", "LANG": "C"}, True),
        ({"TERM": "xterm-256color", "LANG": "POSIX"}, True),
        ({"TERM": "xterm-256color", "LANG": "en_US.ISO-8859-1"}, True),
        ({"TERM": "xterm-256color", "LANG": "en_US.UTF-8"}, False),
        ({"TERM": "xterm-256color", "LANG": "de_DE.utf8@euro"}, False),
        ({"TERM": "xterm-256color", "LANG": "C.UTF-8"}, False),
        ({"TERM": "xterm-256color"}, False),  # SSH to a box with no locale: trust the terminal
        ({"TERM": "xterm", "LANG": "", "LC_CTYPE": "", "LC_ALL": ""}, False),
        ({"TERM": "xterm", "LANG": "en_US.UTF-8", "LC_ALL": "C"}, True),  # LC_ALL wins
        ({"TERM": "xterm", "LANG": "C", "LC_ALL": "en_US.UTF-8"}, False),
        ({"TERM": "xterm", "LANG": "C", "LC_CTYPE": "en_US.UTF-8"}, False),
        ({"TERM": "xterm", "LANG": "C", "LC_CTYPE": "C.UTF-8"}, True),  # PEP 538 coercion
        ({"TERM": "xterm", "LANG": "en_US.UTF-8", "TUITUNE_ASCII": "1"}, True),
        ({"TERM": "linux", "TUITUNE_ASCII": "0"}, False),
        ({"TERM": "xterm", "LANG": "C", "TUITUNE_ASCII": "0"}, False),
        ({"TERM": "xterm", "LANG": "en_US.UTF-8", "TUITUNE_ASCII": "yes"}, False),
    ],
)
def test_detect(env: dict[str, str], ascii: bool) -> None:
    assert is_ascii_terminal(env) is ascii
    assert detect(env) is (ASCII if ascii else UNICODE)


def _detect_in_python(env: dict[str, str]) -> str:
    code = (
        "import os\nfrom tuitune.tui.look.glyphs import detect, ASCII\n"
        "print(detect(os.environ) is ASCII)"
    )
    base = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    res = subprocess.run(
        [sys.executable, "-c", code], env=base | env, capture_output=True, text=True, check=True
    )
    return res.stdout.strip()


def test_detect_sees_lang_c_through_pythons_locale_coercion() -> None:
    """Python rewrites its own environment when the locale is C (PEP 538): what the app will
    pass is os.environ, so ask a real interpreter."""
    assert _detect_in_python({"TERM": "xterm", "LANG": "C"}) == "True"
    assert _detect_in_python({"TERM": "xterm"}) == "False"
    assert _detect_in_python({"TERM": "xterm", "LANG": "C.UTF-8"}) == "False"


def test_bar_fills_in_eighths() -> None:
    assert bar(0.0, 4, UNICODE) == "    "
    assert bar(1.0, 4, UNICODE) == "████"
    assert bar(0.5, 4, UNICODE) == "██  "
    assert bar(0.5 + 1 / 32, 4, UNICODE) == "██▏ "  # one eighth of a cell more
    assert bar(3 / 8 / 4, 4, UNICODE) == "▍   "
    assert bar(0.5, 4, ASCII) == "##.."
    assert bar(0.5 + 1 / 8, 4, ASCII) == "##-."


@pytest.mark.parametrize("value", [-1.0, float("nan"), float("-inf")])
def test_bar_below_zero_or_nan_is_empty(value: float) -> None:
    assert bar(value, 5, UNICODE) == " " * 5


def test_bar_above_one_is_full_and_no_width_is_empty() -> None:
    assert bar(7.0, 3, ASCII) == "###"
    assert bar(float("inf"), 3, ASCII) == "###"
    assert bar(0.5, 0, UNICODE) == ""
    assert bar(0.5, -2, UNICODE) == ""


def _filled(text: str, g: Glyphs) -> int:
    """How many partial steps a bar shows."""
    steps = len(g.bar_partials) + 1
    return sum(
        steps if ch == g.bar_full else g.bar_partials.index(ch) + 1 if ch in g.bar_partials else 0
        for ch in text
    )


@given(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=0, max_value=1),
    st.integers(min_value=1, max_value=200),
    st.sampled_from([ASCII, UNICODE]),
)
def test_bar_is_exactly_width_and_grows_with_fraction(
    a: float, b: float, width: int, g: Glyphs
) -> None:
    lo, hi = bar(a, width, g), bar(b, width, g)
    assert len(lo) == len(hi) == width
    if a <= b:
        assert _filled(lo, g) <= _filled(hi, g)


def test_heat_char() -> None:
    for g in (ASCII, UNICODE):
        assert heat_char(0.0, g) == g.heat[0]
        assert heat_char(float("nan"), g) == g.heat[0]
        assert heat_char(-3.0, g) == g.heat[0]
        assert heat_char(0.001, g) == g.heat[1]  # a little load never looks idle
        assert heat_char(0.5, g) == g.heat[4]
        assert heat_char(1.0, g) == g.heat[8]
        assert heat_char(9.0, g) == g.heat[8]
    assert heat_char(0.999, UNICODE) == "█"


@given(st.floats(min_value=0, max_value=1), st.floats(min_value=0, max_value=1))
def test_heat_char_grows_with_fraction(a: float, b: float) -> None:
    lo, hi = sorted((a, b))
    assert UNICODE.heat.index(heat_char(lo, UNICODE)) <= UNICODE.heat.index(heat_char(hi, UNICODE))
