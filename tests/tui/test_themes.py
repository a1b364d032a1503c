from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import pytest
from rich.color import ColorType
from rich.console import Console
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.color import Color
from textual.filter import ANSIToTruecolor
from textual.geometry import Region
from textual.theme import Theme
from textual.widgets import Static

from tuitune.tui.look.themes import (
    CONSOLE_THEME,
    CUSTOM_VARIABLES,
    DEFAULT_THEME,
    THEME_VARIABLE_DEFAULTS,
    initial_theme,
    load_themes,
    theme_dirs,
)

REPO_THEMES = Path(__file__).resolve().parents[2] / "themes"
SHIPPED = ("tuitune-dark", "tuitune-light", "tuitune-console")
DIM = ("heat-0", "tt-muted")  # meant to recede, yet stay legible

# The Linux console's default palette (drivers/tty/vt/vt.c default_red/grn/blu), in ANSI
# order: what "ansi_yellow" really looks like there is brown.
VGA = [
    (0x00, 0x00, 0x00), (0xAA, 0x00, 0x00), (0x00, 0xAA, 0x00), (0xAA, 0x55, 0x00),
    (0x00, 0x00, 0xAA), (0xAA, 0x00, 0xAA), (0x00, 0xAA, 0xAA), (0xAA, 0xAA, 0xAA),
    (0x55, 0x55, 0x55), (0xFF, 0x55, 0x55), (0x55, 0xFF, 0x55), (0xFF, 0xFF, 0x55),
    (0x55, 0x55, 0xFF), (0xFF, 0x55, 0xFF), (0x55, 0xFF, 0xFF), (0xFF, 0xFF, 0xFF),
]  # fmt: skip


def shipped() -> dict[str, Theme]:
    themes, problems = load_themes([REPO_THEMES])
    assert problems == []
    return {t.name: t for t in themes}


def rgb(value: str) -> tuple[int, int, int]:
    c = Color.parse(value)
    return VGA[c.ansi] if c.ansi is not None and c.ansi >= 0 else (c.r, c.g, c.b)


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio."""

    def lum(value: str) -> float:
        def lin(v: int) -> float:
            s = v / 255
            return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

        r, g, b = rgb(value)
        return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)

    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_shipped_themes_load_and_define_every_custom_variable() -> None:
    themes = shipped()
    assert sorted(themes) == sorted(SHIPPED)
    assert DEFAULT_THEME in themes and CONSOLE_THEME in themes
    for theme in themes.values():
        for name in CUSTOM_VARIABLES:
            assert name in theme.variables, (theme.name, name)
            Color.parse(theme.variables[name])


@pytest.mark.parametrize(
    ("name", "floor", "dim_floor"),
    [("tuitune-dark", 4.5, 3.0), ("tuitune-light", 4.5, 3.0), ("tuitune-console", 4.0, 2.5)],
)
def test_colours_are_legible_on_the_background(name: str, floor: float, dim_floor: float) -> None:
    theme = shipped()[name]
    assert theme.background is not None and theme.foreground is not None
    bg, v = theme.background, theme.variables
    for var in CUSTOM_VARIABLES:
        if var == "tt-warn-bg":
            continue
        need = dim_floor if var in DIM else floor
        assert contrast(v[var], bg) >= need, (var, round(contrast(v[var], bg), 2))
    # heat-0 is the idle state: it must recede behind every busier step.
    heats = [contrast(v[f"heat-{i}"], bg) for i in range(5)]
    assert heats[0] == min(heats)
    assert len({v[f"heat-{i}"] for i in range(5)}) == 5
    # The banner's text is the foreground colour on tt-warn-bg.
    assert contrast(theme.foreground, v["tt-warn-bg"]) >= (3.0 if theme.ansi else 4.5)


def test_variable_defaults_read_on_black_and_on_white() -> None:
    """They stand in under any built-in theme, light or dark."""
    for var, value in THEME_VARIABLE_DEFAULTS.items():
        if var.startswith("ansi-"):
            continue
        for other in ("#000000", "#ffffff"):
            assert contrast(value, other) >= 3.0, (var, other)


def test_console_theme_uses_only_ansi_colours() -> None:
    theme = shipped()[CONSOLE_THEME]
    assert theme.ansi is True
    assert theme.background == "ansi_black"
    fields = [theme.primary, theme.secondary, theme.warning, theme.error, theme.success]
    fields += [theme.accent, theme.foreground, theme.background, theme.surface, theme.panel]
    for value in [*fields, *theme.variables.values()]:
        assert value is not None and value.startswith("ansi_"), value
        c = Color.parse(value)
        assert c.ansi is not None and 0 <= c.ansi < 16, value


class ThemedApp(App[None]):
    """Uses the custom variables in CSS, as the real app will, so an unresolved one fails."""

    CSS = """
    #hot { color: $heat-4; }
    #banner { background: $tt-warn-bg; }
    """

    def __init__(self, themes: list[Theme]) -> None:
        super().__init__()
        self._themes = themes

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def compose(self) -> ComposeResult:
        yield Static("HOT", id="hot")
        yield Static("WARN", id="banner")

    def on_mount(self) -> None:
        for theme in self._themes:
            self.register_theme(theme)


@pytest.mark.parametrize("name", SHIPPED)
async def test_theme_works_in_a_real_app(name: str) -> None:
    theme = shipped()[name]
    app = ThemedApp([theme])
    async with app.run_test(size=(40, 6)) as pilot:
        app.theme = name
        await pilot.pause()
        for var in CUSTOM_VARIABLES:
            assert app.theme_variables[var] == theme.variables[var]
        assert app.query_one("#hot").styles.color == Color.parse(theme.variables["heat-4"])
        banner_bg = app.query_one("#banner").styles.background
        assert banner_bg == Color.parse(theme.variables["tt-warn-bg"])


async def test_switching_to_a_builtin_theme_falls_back_to_the_defaults() -> None:
    app = ThemedApp(list(shipped().values()))
    async with app.run_test(size=(40, 6)) as pilot:
        for builtin in ("textual-light", "nord", "ansi-dark"):
            app.theme = DEFAULT_THEME
            await pilot.pause()
            app.theme = builtin
            await pilot.pause()
            assert app.theme == builtin
            assert app.theme_variables["heat-4"] == THEME_VARIABLE_DEFAULTS["heat-4"]
            hot = app.query_one("#hot").styles.color
            assert hot == Color.parse(THEME_VARIABLE_DEFAULTS["heat-4"])


async def test_a_users_ansi_theme_without_ansi_background_still_loads(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(
        'name = "mine"\nansi = true\nprimary = "ansi_blue"\nbackground = "ansi_black"\n'
    )
    themes, problems = load_themes([tmp_path])
    assert problems == []
    app = ThemedApp(themes)
    async with app.run_test(size=(40, 6)) as pilot:
        app.theme = "mine"
        await pilot.pause()
        assert app.theme == "mine"
        assert app.query_one("#hot").styles.color == Color.parse(THEME_VARIABLE_DEFAULTS["heat-4"])


def _sgr(app: App[None], style: Style) -> list[str]:
    """What the terminal gets for a cell drawn in `style`: the app's line filters, then Rich's
    16-colour output, which is what a TERM=linux driver writes."""
    static = app.query_one("#hot", Static)
    static.update(Text("X", style=style))
    strip = static.render_lines(Region(0, 0, 1, 1))[0]
    bg = Color.parse("black")
    for f in app.get_line_filters():
        strip = strip.apply_filter(f, bg)
    console = Console(color_system="standard", force_terminal=True, width=10)
    first = re.match(r"\x1b\[([0-9;]*)m", strip.render(console))
    assert first is not None
    return first.group(1).split(";")


async def test_console_theme_sends_the_terminals_own_ansi_colours() -> None:
    """Without native ANSI, Textual maps ANSI colours to RGB and back, and on a 16-colour
    console bright red came out as magenta (SGR 35)."""
    app = ThemedApp(list(shipped().values()))
    async with app.run_test(size=(40, 6)) as pilot:
        app.theme = CONSOLE_THEME
        await pilot.pause()
        assert app.native_ansi_color is True
        assert not any(isinstance(f, ANSIToTruecolor) for f in app.get_line_filters())
        heat3 = Color.parse(app.theme_variables["heat-3"]).rich_color
        assert heat3.type == ColorType.STANDARD and heat3.number == 9
        assert "91" in _sgr(app, Style(color=heat3))  # bright red, as it is

        # The same ANSI colour under an RGB theme goes through the RGB filter and is changed.
        app.theme = DEFAULT_THEME
        await pilot.pause()
        assert app.native_ansi_color is False
        assert "91" not in _sgr(app, Style(color=heat3))


def test_broken_theme_files_give_messages_not_exceptions(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "a_good.toml": 'name = "good"\nprimary = "#112233"\n',
        "bad_toml.toml": 'name = "x"\nprimary = \n',
        "no_name.toml": 'primary = "#112233"\n',
        "unknown_field.toml": 'name = "u"\nprimary = "#112233"\nshiny = true\n',
        "no_primary.toml": 'name = "np"\n',
        "bad_colour.toml": 'name = "bc"\nprimary = "notacolour"\n',
        "bad_heat.toml": 'name = "bh"\nprimary = "#112233"\n[variables]\nheat-4 = "reddish"\n',
        "bad_vars.toml": 'name = "bv"\nprimary = "#112233"\nvariables = 3\n',
        "not_utf8.toml": b'name = "\xff"\n',
    }
    for fname, body in files.items():
        p = tmp_path / fname
        if isinstance(body, bytes):
            p.write_bytes(body)
        else:
            p.write_text(body)
    themes, problems = load_themes([tmp_path])
    assert [t.name for t in themes] == ["good"]
    assert len(problems) == len(files) - 1
    for fname in files:
        if fname != "a_good.toml":
            assert sum(fname in p for p in problems) == 1, fname
    assert any("shiny" in p for p in problems)
    assert any("reddish" in p for p in problems)


def test_first_directory_wins_and_missing_directories_are_skipped(tmp_path: Path) -> None:
    user = tmp_path / "user"
    user.mkdir()
    (user / "dark.toml").write_text('name = "tuitune-dark"\nprimary = "#ff0000"\n')
    themes, problems = load_themes([tmp_path / "missing", user, REPO_THEMES])
    assert problems == []
    by_name = {t.name: t for t in themes}
    assert by_name["tuitune-dark"].primary == "#ff0000"
    assert set(by_name) == set(SHIPPED)


def test_same_name_twice_in_one_directory_is_reported(tmp_path: Path) -> None:
    for fname in ("a.toml", "b.toml"):
        (tmp_path / fname).write_text('name = "twin"\nprimary = "#112233"\n')
    themes, problems = load_themes([tmp_path])
    assert [t.name for t in themes] == ["twin"]
    assert len(problems) == 1 and "b.toml" in problems[0]


def test_theme_dirs_order(tmp_path: Path) -> None:
    dirs = theme_dirs({"XDG_CONFIG_HOME": str(tmp_path), "HOME": "/nonexistent"})
    assert dirs[0] == tmp_path / "tuitune" / "themes"
    # The package's themes/ is the top-level folder itself in a checkout, not a copy.
    assert dirs[1].resolve() == REPO_THEMES.resolve() and (dirs[1] / "dark.toml").is_file()
    assert len(dirs) == 2
    assert theme_dirs({"HOME": "/home/u"})[0] == Path("/home/u/.config/tuitune/themes")


def test_initial_theme() -> None:
    names = set(SHIPPED) | {"nord"}
    assert initial_theme(None, names, {"TERM": "xterm-256color"}) == DEFAULT_THEME
    assert initial_theme(None, names, {"TERM": "linux"}) == CONSOLE_THEME
    assert initial_theme("nord", names, {"TERM": "linux"}) == "nord"
    assert initial_theme("gone", names, {"TERM": "xterm"}) == DEFAULT_THEME


def test_theme_dirs_never_look_beside_the_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Installed from a wheel, tuitune's parent is site-packages: a "themes" there is someone
    else's, and only the package's own themes/ counts."""
    import tuitune

    site = tmp_path / "site-packages"
    (site / "themes").mkdir(parents=True)
    monkeypatch.setattr(tuitune, "__file__", str(site / "tuitune" / "__init__.py"))
    dirs = theme_dirs({"HOME": "/home/u"})
    assert dirs[1:] == [site / "tuitune" / "themes"]


def test_wheel_ships_every_theme_as_package_data() -> None:
    """The wheel stores tuitune/themes/*.toml (setuptools copies through the link), so the one
    lookup above finds them after a non-editable install too."""
    data = tomllib.loads((REPO_THEMES.parent / "pyproject.toml").read_text(encoding="utf-8"))
    assert "themes/*.toml" in data["tool"]["setuptools"]["package-data"]["tuitune"]
    assert os.readlink(REPO_THEMES.parent / "tuitune" / "themes") == "../themes"
    assert {p.name for p in REPO_THEMES.glob("*.toml")} == {
        "dark.toml",
        "light.toml",
        "console.toml",
    }


def test_default_dirs_find_the_shipped_themes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    themes, problems = load_themes()
    assert problems == []
    assert set(SHIPPED) <= {t.name for t in themes}
