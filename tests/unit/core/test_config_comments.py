"""Saving a setting keeps what the user wrote around it: comments, order and other keys."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tuitune.core.config import Config, load_config, save_config

MINE = """\
# my tuitune settings, kept in a dotfiles repository
theme = "dark"  # the lab's projector washes out the light one

[advise.context]
# the uplink
eth2 = "wan"

[mine]
note = "left alone"
"""


def test_comments_and_unknown_keys_survive_a_save(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(MINE)
    cfg = load_config(path)
    assert (
        save_config(Config(theme="light", contexts=(*cfg.contexts, ("eth3", "lan"))), path) is None
    )
    text = path.read_text()
    assert "# my tuitune settings, kept in a dotfiles repository" in text
    assert "# the lab's projector washes out the light one" in text
    assert "# the uplink" in text
    doc = tomllib.loads(text)
    assert doc["theme"] == "light"
    assert doc["advise"]["context"] == {"eth2": "wan", "eth3": "lan"}
    assert doc["mine"] == {"note": "left alone"}
