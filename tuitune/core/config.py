"""The user's settings file, ~/.config/tuitune/config.toml (where: tuitune.core.paths).

Reading never fails (a missing or broken file gives the defaults) and writing never raises (a
read-only home gives a message), because neither is worth stopping a tuning session for.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tuitune.core import fsutil, paths
from tuitune.core.names import ifname_problem

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
    """The file's TOML document; {} when it does not exist. Raises on anything else (a link
    another user made is not followed: root may be the one reading it)."""
    data = fsutil.read_file(path, CONFIG_LIMIT, follow=True)
    return {} if data is None else tomllib.loads(data.decode("utf-8"))


def load_config(path: Path) -> Config:
    try:
        doc = _read(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return Config()
    theme = doc.get("theme")
    advise = doc.get("advise")
    table = advise.get("context") if isinstance(advise, dict) else None
    contexts = tuple(
        (k, v)
        for k, v in (table.items() if isinstance(table, dict) else ())
        if ifname_problem(k) is None and v in CONTEXT_KINDS
    )
    return Config(theme=theme if isinstance(theme, str) and theme else None, contexts=contexts)


def save_config(cfg: Config, path: Path) -> str | None:
    """Write `cfg` into the file at `path`, keeping the keys it does not know; None on success.

    A file that is not valid TOML is left alone (it is the user's, maybe half edited) and the
    reason is returned. Comments of an existing file are not kept.
    """
    try:
        doc = _read(path)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        return f"{path}: not saved, the existing file cannot be read: {exc}"
    if cfg.theme is None:
        doc.pop("theme", None)
    else:
        doc["theme"] = cfg.theme
    if cfg.contexts:  # only ever added to: a Config without them leaves the file's alone
        advise = doc.get("advise")
        advise = dict(advise) if isinstance(advise, dict) else {}
        advise["context"] = dict(cfg.contexts)
        doc["advise"] = advise
    # Replace the file a link points to, not the link (dotfiles kept in a repository), when
    # the link is ours or root's: another user's link is refused (fsutil), never followed.
    # The old file's mode is kept (a user who chmod 600'd it keeps it so); a new one gets
    # 0o666 trimmed by the umask, as any file the user creates.
    try:
        fsutil.write_file(path, dumps(doc).encode("utf-8"), None, follow=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        if isinstance(exc, fsutil.FsError) and exc.filename != str(path):
            reason = str(exc)  # about a directory or link on the way: name it
        return f"{path}: not saved: {reason}"
    return None


# TOML writing: tomllib only reads, and the format is small enough to write by hand.

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\t": "\\t",
    "\n": "\\n",
    "\f": "\\f",
    "\r": "\\r",
}


def _string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif ch < " " or ch == "\x7f":
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else _string(k)


def _value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, dt.datetime | dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, list | tuple):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(f"cannot write {type(v).__name__} as TOML")


def _table(doc: Mapping[str, Any], prefix: tuple[str, ...], lines: list[str]) -> None:
    tables = {k: v for k, v in doc.items() if isinstance(v, Mapping)}
    lines.extend(f"{_key(k)} = {_value(v)}" for k, v in doc.items() if k not in tables)
    for k, sub in tables.items():
        name = (*prefix, k)
        lines.extend(["", "[" + ".".join(_key(p) for p in name) + "]"])
        _table(sub, name, lines)


def dumps(doc: Mapping[str, Any]) -> str:
    """A TOML document for what tomllib can return: tables become [sections], tables inside
    arrays become inline tables."""
    lines: list[str] = []
    _table(doc, (), lines)
    return "\n".join(lines).lstrip("\n") + "\n"
