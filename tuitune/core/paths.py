"""Where tuitune keeps its files: the one place each path is decided.

/run/tuitune holds what belongs to this boot (change journals, their locks, the lab's state):
a tmpfs emptied at boot, as those records are about live kernel values. The user's own files
follow the XDG base directory spec: settings in $XDG_CONFIG_HOME (~/.config), the benchmark
notebooks in $XDG_STATE_HOME (~/.local/state).
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Mapping
from pathlib import Path

RUN_DIR = Path("/run/tuitune")  # journals, locks, the lab's state file
APP = "tuitune"


def home(env: Mapping[str, str] = os.environ) -> Path:
    """$HOME, else the passwd entry's home, else / (a uid without an entry, as in some
    containers): never an exception, a settings file is not worth one."""
    found = env.get("HOME")
    if not found:
        try:
            found = pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            found = "/"
    return Path(found)


def _xdg(var: str, default: str, env: Mapping[str, str]) -> Path:
    value = env.get(var, "")
    # The XDG spec says a relative (or empty) value is invalid and must be ignored.
    if value and os.path.isabs(value):
        return Path(value)
    return home(env) / default


def config_home(env: Mapping[str, str] = os.environ) -> Path:
    return _xdg("XDG_CONFIG_HOME", ".config", env)


def state_home(env: Mapping[str, str] = os.environ) -> Path:
    return _xdg("XDG_STATE_HOME", ".local/state", env)


def config_dir(env: Mapping[str, str] = os.environ) -> Path:
    """tuitune's settings directory: config.toml and the user's themes/."""
    return config_home(env) / APP


def runs_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where the benchmark notebooks live, one file per interface."""
    return state_home(env) / APP / "runs"


def unpack_dir(env: Mapping[str, str] = os.environ) -> Path | None:
    """Where `--root CAPTURE` unpacks (one directory per process, named by its pid, swept
    when that process is gone: a SIGKILL leaves nothing for long): /run/tuitune/roots for
    root, $XDG_RUNTIME_DIR/tuitune/roots for a user (both emptied at boot); None when a user
    has no runtime directory (then a private temporary directory, as before)."""
    if os.geteuid() == 0:
        return RUN_DIR / "roots"
    runtime = env.get("XDG_RUNTIME_DIR", "")
    return Path(runtime) / APP / "roots" if runtime and os.path.isabs(runtime) else None
