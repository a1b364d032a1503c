"""Reading the catalog's data files (tuitune/core/catalog/data/*.toml) into frozen dataclasses.

The files are edited by people who know the field reports, not this code, so a mistake stops
the load with one line naming the file and the entry: an unknown key (with the close match), a
missing one, a value of the wrong type or outside a Literal's names, a duplicate id. Keys and
types come from the dataclass's own fields and hints, so a new field needs no change here.

In TOML there is no null: a key left out takes the field's default, or None where the field
may be None. Lists become tuples. A text written over several lines is one paragraph: each line
break, with the spaces around it, reads as one space, and spaces at either end are dropped. (The
files use '''literal strings''': no escapes to get wrong, and tomllib, which reads "basic"
strings a character at a time, parses them about a quarter faster.) Imports only the standard
library, so every catalog module can use it without an import cycle.
"""

from __future__ import annotations

import dataclasses
import difflib
import functools
import tomllib
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

DATA_DIR = Path(__file__).with_name("data")

T = TypeVar("T")


class CatalogDataError(ValueError):
    """A data file that does not match its dataclass; the message names the file and entry."""


def load(
    path: Path,
    table: str,
    cls: type[T],
    *,
    id_field: str,
    check: Callable[[T], None] | None = None,
) -> tuple[T, ...]:
    """The `[[table]]` entries of the TOML file at `path` as `cls` objects, in file order.

    `check` may raise ValueError for a fact the types cannot express (a version that does not
    parse, an unknown source id); its message is given the file and entry like the others.
    """
    try:
        with path.open("rb") as f:
            doc = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise CatalogDataError(f"{path}: {exc}") from None
    extra = sorted(set(doc) - {table})
    if extra:
        raise CatalogDataError(f"{path}: unknown table {extra[0]!r}{_near(extra[0], [table])}")
    raw = doc.get(table)
    if not isinstance(raw, list) or not raw:
        raise CatalogDataError(f"{path}: no [[{table}]] entries")
    out: list[T] = []
    seen: set[object] = set()
    for i, item in enumerate(raw, 1):
        ident = item.get(id_field) if isinstance(item, dict) else None
        where = f"{path}: {table} {ident!r}" if isinstance(ident, str) else f"{path}: {table} #{i}"
        try:
            obj = _build(cls, item)
            if check is not None:
                check(obj)
        except ValueError as exc:
            raise CatalogDataError(f"{where}: {exc}") from None
        if ident in seen:
            raise CatalogDataError(f"{where}: {id_field} {ident!r} appears twice")
        seen.add(ident)
        out.append(obj)
    return tuple(out)


Convert = Callable[[object], Any]


@dataclasses.dataclass(frozen=True, slots=True)
class _Field:
    convert: Convert
    required: bool  # no default, and None is not allowed
    none_if_absent: bool  # no default, but the type allows None


_PLANS: dict[type, dict[str, _Field]] = {}


def _plan(cls: type) -> dict[str, _Field]:
    """How to read each field of `cls`, worked out once per class from its type hints."""
    if cls not in _PLANS:
        hints = typing.get_type_hints(cls)
        plan = {}
        for f in dataclasses.fields(cls):
            no_default = f.default is f.default_factory is dataclasses.MISSING
            optional = _allows_none(hints[f.name])
            plan[f.name] = _Field(
                _converter(hints[f.name]), no_default and not optional, no_default and optional
            )
        _PLANS[cls] = plan
    return _PLANS[cls]


def _near(word: str, known: list[str]) -> str:
    near = difflib.get_close_matches(word, known, n=1, cutoff=0.6)
    return f" (did you mean {near[0]!r}?)" if near else ""


def _build(cls: type[T], raw: object) -> T:
    if not isinstance(raw, dict):
        raise ValueError(f"needs a table of keys, got {raw!r}")
    plan = _plan(cls)
    for key in raw:
        if key not in plan:
            raise ValueError(f"unknown key {key!r}{_near(key, list(plan))}")
    kwargs: dict[str, Any] = {}
    for name, field in plan.items():
        if name in raw:
            try:
                kwargs[name] = field.convert(raw[name])
            except ValueError as exc:
                sep = " " if str(exc).startswith("#") else ": "  # "sources #2: ..."
                raise ValueError(f"{name}{sep}{exc}") from None
        elif field.required:
            raise ValueError(f"missing key {name!r}")
        elif field.none_if_absent:
            kwargs[name] = None
    return cls(**kwargs)


def _allows_none(hint: Any) -> bool:
    return typing.get_origin(hint) in (typing.Union, types.UnionType) and type(None) in (
        typing.get_args(hint)
    )


def _converter(hint: Any) -> Convert:
    """A function checking a value as read by tomllib against `hint` (tuples from lists)."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Literal:
        return functools.partial(_literal, args)
    if origin in (typing.Union, types.UnionType):
        (inner,) = (a for a in args if a is not type(None))  # only "X | None" in the catalog
        return _converter(inner)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:  # tuple[X, ...]
            return functools.partial(_tuple, (_converter(args[0]),), True)
        return functools.partial(_tuple, tuple(_converter(a) for a in args), False)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return functools.partial(_build, hint)
    if hint is str:
        return _text
    if hint in (int, bool):
        return functools.partial(_exact, hint)
    raise TypeError(f"no TOML reading for {hint!r}")  # a dataclass field of a new kind


def _literal(names: tuple[object, ...], value: object) -> object:
    if value not in names:
        raise ValueError(f"must be one of {', '.join(map(str, names))}, got {value!r}")
    return value


def _tuple(converts: tuple[Convert, ...], repeat: bool, value: object) -> tuple[Any, ...]:
    if not isinstance(value, list):
        raise ValueError(f"needs a list, got {value!r}")
    if not repeat and len(value) != len(converts):
        raise ValueError(f"needs a list of {len(converts)}, got {len(value)} items")
    items = []
    for n, v in enumerate(value, 1):
        try:
            items.append(converts[0 if repeat else n - 1](v))
        except ValueError as exc:
            raise ValueError(f"#{n}: {exc}") from None
    return tuple(items)


def _text(value: object) -> str:
    if type(value) is not str:
        raise ValueError(f"needs a str, got {value!r}")
    # One paragraph, however it was wrapped.
    return " ".join(line.strip() for line in value.splitlines() if line.strip())


def _exact(kind: type, value: object) -> object:
    # bool is an int in Python but not in TOML: compare exact types.
    if type(value) is not kind:
        raise ValueError(f"needs {'an' if kind is int else 'a'} {kind.__name__}, got {value!r}")
    return value
