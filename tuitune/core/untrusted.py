"""The one way tuitune reads a file from a place another user can write, and parses it.

Themes and the settings file (in $XDG_CONFIG_HOME, which `sudo -E` keeps pointing at a user's
home), the benchmark notebooks and the sweep's, peer files, and whatever is read from such a
place later (recordings, captures) all come through here:

  - found without following a link another user made, nor one in a directory others can
    write (`fsutil.read_file`: a link is followed only when root, or we, made it in a
    directory nobody else can write); only a regular file is opened (a FIFO is opened
    O_NONBLOCK and refused, a device never read), at most `limit` bytes;
  - decoded as strict UTF-8 (`docfile.decode`: no NUL, no UTF-16);
  - parsed with every failure one line (`Refused`, a DocumentError): a 5,000-deep document,
    a 10^400 integer, a wrong type; `typed` builds a dataclass checking every field's type
    and bounds, and a refusal names the file and the field.

Nothing here shows a string from the file: callers still pass it through core/text.py.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import stat
import tomllib
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from tuitune.core import fsutil
from tuitune.core.docfile import DocumentError, decode, shown
from tuitune.core.text import printable

T = TypeVar("T")
INT_MAX = 1 << 63  # any count or number of a record; far past it is a hostile file
STR_MAX = 4096  # one field of a record
LIST_MAX = 4096  # items of one list field (a run's command lines, its CPUs)


class Refused(DocumentError):
    """A file or one of its fields is refused; str() is one line naming the file (and field)."""


def read_text(path: Path | str, limit: int, *, follow: bool = True) -> str | None:
    """The UTF-8 text of the regular file at `path`, None when there is none. A link another
    user made, a FIFO, a device, more than `limit` bytes: `fsutil.FsError` (an OSError, one
    line "PATH: REASON"); bytes that are not UTF-8: `DocumentError`. Both name the file."""
    data = fsutil.read_file(path, limit, follow=follow)
    return None if data is None else decode(data, shown(path))


def read_lines(path: Path | str, limit: int) -> tuple[list[str], int] | None:
    """A JSON Lines-like file as its UTF-8 lines and how many were not UTF-8 (skipped, as a
    line cut by a crash is). None when there is no file; FsError as for `read_text`."""
    data = fsutil.read_file(path, limit, follow=True)
    if data is None:
        return None
    lines, bad = [], 0
    for raw in data.split(b"\n"):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            bad += 1
            continue
        if "\0" in line:
            bad += 1
        elif line.strip():
            lines.append(line)
    return lines, bad


def parse_toml(text: str, name: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise Refused(f"{name}: not TOML: {printable(exc, 200)}") from None
    except (RecursionError, MemoryError, ValueError):
        raise Refused(
            f"{name}: not a TOML document tuitune reads (too deep or too large)"
        ) from None


def parse_json(text: str, name: str) -> Any:
    """JSON with no NaN or Infinity, integers of at most 4300 digits (Python's own bound)."""

    def constant(word: str) -> Any:
        raise ValueError(f"{word} is not a number JSON has")

    try:
        return json.loads(text, parse_constant=constant)
    except json.JSONDecodeError as exc:
        raise Refused(f"{name}: not JSON: {exc.msg} (line {exc.lineno})") from None
    except (RecursionError, MemoryError, ValueError) as exc:
        why = "too deep" if isinstance(exc, RecursionError) else printable(exc, 120)
        raise Refused(f"{name}: not a JSON document tuitune reads ({why})") from None


# -- typed records -----------------------------------------------------------------------------
def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def check_value(value: object, hint: Any, where: str) -> Any:
    """`value` as type `hint` (int, float, str, bool, None, Literal and unions of them), or
    Refused naming `where`. Numbers are bounded and finite, bools are not numbers, strings
    are bounded; an int is accepted where a float is wanted."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(hint)
        if value is None and type(None) in options:
            return None
        for option in options:
            if option is type(None):
                continue
            try:
                return check_value(value, option, where)
            except Refused:
                continue
        raise Refused(f"{where}: {_kind(value)} is not {_hint_text(hint)}")
    if origin is tuple:  # tuple[X, ...] (a JSON list), bounded like a string
        args = typing.get_args(hint)
        if len(args) != 2 or args[1] is not Ellipsis:
            raise TypeError(f"check_value does not know {hint!r}")  # a programming error
        if not isinstance(value, list | tuple):
            raise Refused(f"{where}: {_kind(value)} is not a list")
        if len(value) > LIST_MAX:
            raise Refused(f"{where}: more than {LIST_MAX} items")
        return tuple(check_value(v, args[0], f"{where}[{n}]") for n, v in enumerate(value))
    if origin is typing.Literal:
        if value in typing.get_args(hint) and isinstance(value, str | int):
            return value
        raise Refused(
            f"{where}: {printable(repr(value), 60)} is not one of {typing.get_args(hint)}"
        )
    if hint is bool:
        if isinstance(value, bool):
            return value
    elif hint is int:
        if isinstance(value, int) and not isinstance(value, bool):
            if -INT_MAX <= value <= INT_MAX:
                return value
            raise Refused(f"{where}: a number out of range")
    elif hint is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            if isinstance(value, int) and not -INT_MAX <= value <= INT_MAX:
                raise Refused(f"{where}: a number out of range")
            number = float(value)
            if math.isfinite(number):
                return number
            raise Refused(f"{where}: not a finite number")
    elif hint is str:
        if isinstance(value, str):
            if len(value) <= STR_MAX:
                return value
            raise Refused(f"{where}: longer than {STR_MAX} characters")
    elif hint is type(None):
        if value is None:
            return None
    else:
        raise TypeError(f"check_value does not know {hint!r}")  # a programming error
    raise Refused(f"{where}: {_kind(value)} is not {_hint_text(hint)}")


def _hint_text(hint: Any) -> str:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_hint_text(h) for h in typing.get_args(hint))
    return {bool: "true/false", int: "a whole number", float: "a number", str: "text"}.get(
        hint, "null" if hint is type(None) else str(hint)
    )


def typed(cls: type[T], data: object, where: str, **given: Any) -> T:
    """A `cls` dataclass from a mapping: each known field checked with `check_value` (fields
    in `given` are taken as they are, already built), unknown keys ignored, a missing field
    without a default refused. Every refusal names `where` and the field."""
    if not isinstance(data, Mapping):
        raise Refused(f"{where}: {_kind(data)} is not an object")
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = dict(given)
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if f.name in given:
            continue
        if f.name in data:
            out[f.name] = check_value(data[f.name], hints[f.name], f"{where}: {f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise Refused(f"{where}: {f.name} is missing")
    return cls(**out)


def str_map(data: object, where: str, limit: int = 1000) -> dict[str, str]:
    """An object of text values (settings, tags), or Refused."""
    if data is None:
        return {}
    if not isinstance(data, Mapping) or len(data) > limit:
        raise Refused(f"{where}: not an object of at most {limit} entries")
    return {
        check_value(k, str, where): check_value(v, str, f"{where}: {k}") for k, v in data.items()
    }


def number_map(data: object, kind: type[T], where: str, limit: int = 8192) -> dict[int, T]:
    """An object of CPU number -> number (the notebook's per-CPU loads), or Refused."""
    if data is None:
        return {}
    if not isinstance(data, Mapping) or len(data) > limit:
        raise Refused(f"{where}: not an object of at most {limit} entries")
    out: dict[int, T] = {}
    for k, v in data.items():
        key = str(k)
        if not (key.isascii() and key.isdigit() and len(key) <= 5):
            raise Refused(f"{where}: {printable(key, 20)} is not a CPU number")
        out[int(key)] = check_value(v, kind, f"{where}: {key}")
    return out


def owner_note(directory: Path) -> str | None:
    """As root: why `directory` (from $HOME or $XDG_*) is in another user's hands (it, or a
    directory above it, is theirs or writable by others), or None when only root could have
    put things there, it is absent, or we are not root. `sudo -E`, and `sudo` without -H on
    some systems, keep the user's HOME and XDG_* variables."""
    if os.geteuid() != 0:
        return None
    here = Path(os.path.abspath(directory))
    for d in (here, *here.parents):
        try:
            st = os.stat(d)
        except OSError:
            continue  # not there (yet): what is above it decides
        # Above a root-owned directory a sticky one is fine (others cannot rename what is
        # root's in it); the directory itself must let nobody else add a file.
        loose = st.st_mode & 0o022 and (d == here or not st.st_mode & stat.S_ISVTX)
        if st.st_uid != 0:
            who = f"uid {st.st_uid}"
        elif loose:
            who = "others (its mode lets them write)"
        else:
            continue
        return (
            f"{shown(here)} is in the hands of {who}, not root's alone ({shown(d)}): sudo -E, "
            "or sudo without -H, keeps a user's HOME and XDG_* variables"
        )
    return None
