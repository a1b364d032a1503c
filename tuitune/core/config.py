"""The user's settings file, ~/.config/tuitune/config.toml (where: tuitune.core.paths).

Reading never fails (a missing or broken file gives the defaults) and writing never raises (a
read-only home gives a message), because neither is worth stopping a tuning session for.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuitune.core import fsutil, paths, untrusted
from tuitune.core.docfile import DocumentError
from tuitune.core.names import ifname_problem
from tuitune.core.text import is_plain

CONTEXT_KINDS = ("lan", "wan", "latency", "any")  # the Advisor's contexts (core/advise)


@dataclass(frozen=True)
class Config:
    theme: str | None = None
    # The Advisor's context per interface ([advise.context] eth2 = "wan"), as (ifname, kind)
    contexts: tuple[tuple[str, str], ...] = ()


def config_path(env: Mapping[str, str] = os.environ) -> Path:
    return paths.config_dir(env) / "config.toml"


CONFIG_LIMIT = 1 << 20  # a settings file; /dev/zero or a log linked here is not one


def _read(path: Path) -> dict[str, Any]:
    """The file's TOML document; {} when it does not exist. Raises DocumentError on anything
    else (untrusted: under sudo -E the file is a user's, and root is the one reading it)."""
    text = untrusted.read_text(path, CONFIG_LIMIT, follow=True)
    return {} if text is None else untrusted.parse_toml(text, str(path))


def load_config(path: Path) -> Config:
    try:
        doc = _read(path)
    except (OSError, DocumentError):
        return Config()
    theme = doc.get("theme")
    if isinstance(theme, str) and (len(theme) > 64 or not is_plain(theme)):
        theme = None  # a theme name is shown: one holding escapes is no theme of ours
    advise = doc.get("advise")
    table = advise.get("context") if isinstance(advise, dict) else None
    contexts = tuple(
        (k, v)
        for k, v in (table.items() if isinstance(table, dict) else ())
        if ifname_problem(k) is None and v in CONTEXT_KINDS
    )
    return Config(theme=theme if isinstance(theme, str) and theme else None, contexts=contexts)


def save_config(cfg: Config, path: Path) -> str | None:
    """Write `cfg` into the file at `path`, keeping the keys it does not know and the user's
    comments and layout (tomlkit edits the document in place); None on success.

    A file that is not valid TOML is left alone (it is the user's, maybe half edited) and the
    reason is returned.
    """
    import tomlkit  # only here: ~40 ms of import that reading the file never needs
    from tomlkit.exceptions import TOMLKitError

    try:
        data = fsutil.read_file(path, CONFIG_LIMIT, follow=True)
        text = "" if data is None else data.decode("utf-8")
        tomllib.loads(text)  # the reader's verdict first: tomlkit is more lenient in places
        doc = tomlkit.parse(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, TOMLKitError) as exc:
        return f"{path}: not saved, the existing file cannot be read: {exc}"
    if cfg.theme is None:
        doc.pop("theme", None)
    else:
        doc["theme"] = cfg.theme
    if cfg.contexts:  # only ever added to: a Config without them leaves the file's alone
        advise = doc.get("advise")
        if not isinstance(advise, dict):
            advise = tomlkit.table()
            doc["advise"] = advise
        table = advise.get("context")
        if not isinstance(table, dict):
            table = tomlkit.table()
            advise["context"] = table
        want = dict(cfg.contexts)
        for name in [k for k in table if k not in want]:
            del table[name]  # edited in place, so comments inside the table stay
        for name, kind in want.items():
            table[name] = kind
    # Replace the file a link points to, not the link (dotfiles kept in a repository), when
    # the link is ours or root's: another user's link is refused (fsutil), never followed.
    # The old file's mode is kept (a user who chmod 600'd it keeps it so); a new one gets
    # 0o666 trimmed by the umask, as any file the user creates.
    try:
        fsutil.write_file(path, tomlkit.dumps(doc).encode("utf-8"), None, follow=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, fsutil.FsError) and exc.filename != str(path):
            reason = str(exc)  # about a directory or link on the way: name it
        return f"{path}: not saved: {reason}"
    return None


def dumps(doc: Mapping[str, Any]) -> str:
    """A TOML document for what tomllib can return (tomlkit writes it)."""
    import tomlkit

    return tomlkit.dumps(doc)
