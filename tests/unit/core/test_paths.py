"""tuitune's paths come from one place (tuitune.core.paths): the settings file and the
benchmark notebooks resolve XDG the same way, and /run/tuitune is one constant."""

from __future__ import annotations

from pathlib import Path

import pytest

from tuitune.core import lab, paths
from tuitune.core.bench.notebook import Notebook
from tuitune.core.config import config_path
from tuitune.core.session import DEFAULT_DIR


def test_run_dir_is_the_journals_and_the_labs() -> None:
    assert Path("/run/tuitune") == paths.RUN_DIR
    assert DEFAULT_DIR == paths.RUN_DIR
    assert lab.DEFAULT_STATE_DIR == paths.RUN_DIR


@pytest.mark.parametrize("value", ["", "relative/dir"])
def test_an_empty_or_relative_xdg_dir_is_ignored_by_both(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, value: str
) -> None:
    """The XDG spec: a relative XDG_*_HOME is invalid and must be ignored. The notebook took a
    relative XDG_STATE_HOME as it was (a directory under whatever the cwd was)."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", value)
    monkeypatch.setenv("XDG_STATE_HOME", value)
    assert config_path() == home / ".config/tuitune/config.toml"
    assert Notebook.default_path("eth2").parent == home / ".local/state/tuitune/runs"


def test_absolute_xdg_dirs_are_used(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    assert config_path() == tmp_path / "cfg/tuitune/config.toml"
    assert Notebook.default_path("eth2").parent == tmp_path / "state/tuitune/runs"


def test_no_home_falls_back_to_the_passwd_entry() -> None:
    import os
    import pwd

    want = Path(pwd.getpwuid(os.getuid()).pw_dir)
    assert paths.state_home({}) == want / ".local/state"
    assert paths.config_home({"HOME": ""}) == want / ".config"
