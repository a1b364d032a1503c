"""The App's look, fixed by the terminal and the theme: the glyph set (the Linux console's
font has no blocks or rounded corners), the themes and the saved one, the palette the
renderers draw with. The live App's base class (tui/frame.py is the next): the App's own
hooks (get_css_variables, get_key_display...) can live nowhere else.
"""

from __future__ import annotations

import os

from textual.app import App
from textual.binding import Binding

from tuitune.tui.look import glyphs as glyphs_mod
from tuitune.tui.look.asciibars import use_ascii_scrollbars
from tuitune.tui.look.look import Look
from tuitune.tui.look.palette import Palette
from tuitune.tui.look.themes import THEME_VARIABLE_DEFAULTS, load_themes
from tuitune.tui.settings import Settings


class Styled(App[int]):
    def __init__(self, env: dict[str, str] | None, theme: str | None, save_settings: bool) -> None:
        self.env = dict(os.environ if env is None else env)
        self.glyphs = glyphs_mod.detect(self.env)
        self.ascii = self.glyphs is glyphs_mod.ASCII
        super().__init__()
        self.palette = Palette.from_variables({})
        self.themes, self.theme_problems = load_themes()
        for t in self.themes:
            self.register_theme(t)
        self.settings = Settings(self.env, save_settings)
        self._start_theme = self.settings.start_theme(
            theme, [t.name for t in self.themes], self.available_themes, self.env.get("TERM", "")
        )
        if self._start_theme:
            self.theme = self._start_theme

    def look(self) -> Look:
        return Look(self.glyphs, self.palette, self.ascii)

    def get_key_display(self, binding: Binding) -> str:
        text = super().get_key_display(binding)
        if self.ascii and not text.isascii():  # the footer's "⏎" is not in the console font
            return binding.key.split(",")[0].replace("enter", "Enter")
        return text

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(THEME_VARIABLE_DEFAULTS)

    def get_css_variables(self) -> dict[str, str]:
        variables = super().get_css_variables()
        # The one border type of every box tuitune draws (panels, screens): the console font
        # has no rounded corners. Not from the theme: it follows the terminal, not the colours.
        variables["tt-border"] = "ascii" if self.ascii else "round"
        return variables

    def start_look(self) -> None:
        """At mount: the console's ASCII, then the theme (its palette follows, _on_theme)."""
        self.set_class(self.ascii, "-ascii")
        use_ascii_scrollbars(self.ascii)
        if self._start_theme:
            self.theme = self._start_theme
        self.theme_changed_signal.subscribe(self, lambda _t: self._on_theme())
        self._on_theme()

    def end_look(self) -> None:
        use_ascii_scrollbars(False)

    def _on_theme(self) -> None:
        self.palette = Palette.from_variables(self.get_css_variables())

    def next_theme(self) -> str:
        """t: the next theme, saved. The notice to show."""
        names = [t.name for t in self.themes] or [self.theme]
        i = names.index(self.theme) if self.theme in names else -1
        self.theme = names[(i + 1) % len(names)]
        return f"theme {self.theme}" + self.settings.keep_theme(self.theme)
