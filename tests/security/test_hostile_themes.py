"""Theme files another user controls (issue 30, 2). Root run with `sudo -E` keeps the user's
XDG_CONFIG_HOME, so the live screen looked for themes in that user's home: a link there to
/dev/zero grew memory until MemoryError, a FIFO hung the start before the first frame, and a
theme named with escape sequences sent them raw to root's terminal. Every hostile file here
is `nobody`'s, as the user would leave it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.security.hostile_text import ALL, raw_in
from tuitune.core.config import load_config
from tuitune.tui.look import themes

NOBODY = 65534
GOOD = 'name = "{name}"\nprimary = "#0178d4"\ndark = true\n'

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the attacks are on root")


def toml_escaped(text: str) -> str:
    """`text` inside a TOML basic string: every character \\uXXXX-escaped but letters."""
    return "".join(c if c.isalnum() else f"\\u{ord(c):04x}" for c in text)


def nobodys(path: Path) -> Path:
    os.lchown(path, NOBODY, NOBODY)
    return path


def finishes(fn: Callable[[], object]) -> object:
    """`fn`'s result; a hang (the FIFO) fails the test instead of stopping the run."""
    box: list[object] = []
    raised: list[BaseException] = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as exc:  # handed to the test's thread
            raised.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(60)
    if raised:
        raise raised[0]
    assert box, "it never returned: waiting on a FIFO, or reading without end"
    return box[0]


@pytest.fixture
def users_config(tmp_path: Path) -> Path:
    """nobody's ~/.config, as sudo -E hands it to root through XDG_CONFIG_HOME."""
    home = tmp_path / "home"
    home.mkdir()
    nobodys(home)
    cfg = home / ".config"
    (cfg / "tuitune" / "themes").mkdir(parents=True)
    for p in (cfg, cfg / "tuitune", cfg / "tuitune" / "themes"):
        nobodys(p)
    return cfg


def test_sudo_e_themes_in_a_users_home_are_not_loaded(
    users_config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    d = users_config / "tuitune" / "themes"
    (d / "fine.toml").write_text(GOOD.format(name="users-own"))
    nobodys(d / "fine.toml")
    os.symlink("/dev/zero", d / "zero.toml")
    nobodys(d / "zero.toml")
    os.mkfifo(d / "fifo.toml")
    nobodys(d / "fifo.toml")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(users_config))

    loaded, problems = finishes(themes.load_themes)  # type: ignore[misc]

    assert "users-own" not in {t.name for t in loaded}
    assert any(t.name == themes.DEFAULT_THEME for t in loaded)  # the shipped ones still load
    (said,) = [p for p in problems if str(d) in p]
    assert "not loaded" in said and "uid 65534" in said and "sudo -E" in said


def test_a_link_to_dev_zero_or_a_fifo_is_refused_in_one_line(tmp_path: Path) -> None:
    d = tmp_path / "themes"
    d.mkdir()
    nobodys(d)
    os.symlink("/dev/zero", d / "zero.toml")
    nobodys(d / "zero.toml")
    os.mkfifo(d / "fifo.toml")
    nobodys(d / "fifo.toml")
    for name, why in (("zero.toml", "symbolic link"), ("fifo.toml", "FIFO")):
        with pytest.raises(ValueError) as caught:
            finishes(lambda n=name: themes._parse(d / n))  # type: ignore[misc]
        said = str(caught.value)
        assert why in said and "\n" not in said


def test_a_theme_named_with_escape_sequences_is_refused_and_shown_escaped(
    tmp_path: Path,
) -> None:
    d = tmp_path / "themes"
    d.mkdir()
    name = "evil" + ALL
    (d / "evil.toml").write_text(GOOD.format(name=toml_escaped(name)))

    loaded, problems = themes.load_themes([d])

    assert loaded == []
    assert problems and all(raw_in(p) == [] for p in problems)
    assert "control characters" in problems[0]


def test_a_saved_theme_name_with_escapes_is_no_theme(tmp_path: Path) -> None:
    cfg = tmp_path / "config.toml"
    cfg.write_text(f'theme = "{toml_escaped("x" + ALL)}"\n')
    assert load_config(cfg).theme is None
