"""The live screen's settings file (core/config.py): the theme and each interface's Advisor
context, kept between runs. Off (`save=False`) for tests and --no-save: nothing read or written.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import replace

from tuitune.core.config import Config, config_path, load_config, save_config
from tuitune.tui.look.themes import CONSOLE_THEME, DEFAULT_THEME


class Settings:
    def __init__(self, env: Mapping[str, str], save: bool) -> None:
        self.save = save
        self.file = config_path(env)
        self.config = load_config(self.file) if save else Config()

    def start_theme(
        self, asked: str | None, names: Collection[str], available: Collection[str], term: str
    ) -> str | None:
        """The theme to start with: the one asked for (--theme), else the saved one, else the
        console's or the default. None: Textual's own default. ValueError: no such theme."""
        wanted = asked or self.config.theme
        if wanted is not None and wanted not in names and wanted not in available:
            raise ValueError(f"no theme {wanted!r}; themes: {', '.join(names)}")
        if wanted is None:
            wanted = CONSOLE_THEME if term == "linux" else DEFAULT_THEME
        return wanted if wanted in available else None

    def keep_theme(self, name: str) -> str:
        """The theme picked with t, saved; the notice's end that says where, or why not."""
        if not self.save:
            return ""
        self.config = replace(self.config, theme=name)
        err = save_config(self.config, self.file)
        return f" (not saved: {err})" if err else f" (saved in {self.file})"

    def remember(self, ifname: str, context: str) -> str | None:
        """The Advisor's context of an interface, saved; the error, if it could not be."""
        contexts = dict(self.config.contexts) | {ifname: context}
        self.config = replace(self.config, contexts=tuple(sorted(contexts.items())))
        return save_config(self.config, self.file) if self.save else None
