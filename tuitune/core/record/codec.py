"""Snapshots (Counters, NicState, HostState) to JSON values and back, driven by type hints.

Encoding is mechanical: a dataclass becomes an object tagged with its class name ("_"), a
tuple, an array (an IRQ row's counts) or a frozenset a list, a dict a list of [key, value]
pairs (keys may be CPU numbers), bytes a hex string.
Decoding walks the same type hints and builds only the classes the hints name, each leaf
checked by `untrusted.check_value` (bounded numbers and strings), each container bounded: a
recording is a file another user may have made, so every value in it is hostile until typed.
"""

from __future__ import annotations

import dataclasses
import functools
import types
import typing
from array import array
from collections.abc import Mapping, Sequence
from typing import Any

from tuitune.core.text import printable
from tuitune.core.untrusted import INT_MAX, Refused, check_value

ITEMS_MAX = 1 << 20  # entries of one list or map: a 1152-CPU host's IRQ table is far below
_LEAVES = (int, float, str, bool, type(None))


def _fields(cls: type) -> list[dataclasses.Field[Any]]:
    # Caches (`_cpus`) and derived fields (init=False) are rebuilt by the class, not stored.
    return [f for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")]


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    return typing.get_type_hints(cls)


def encode(value: object) -> Any:
    """`value` (a snapshot dataclass tree) as a JSON value."""
    if value is None or isinstance(value, _LEAVES):
        return value
    if isinstance(value, bytes):  # an RSS key: hex, typed back by its hint
        return value.hex()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out: dict[str, Any] = {"_": type(value).__name__}
        for f in _fields(type(value)):
            out[f.name] = encode(getattr(value, f.name))
        return out
    if isinstance(value, Mapping):
        return [[encode(k), encode(v)] for k, v in value.items()]
    if isinstance(value, frozenset | set):
        return sorted(encode(v) for v in value)
    if isinstance(value, tuple | list):
        return [encode(v) for v in value]
    if isinstance(value, array):  # numbers only (the parser's Counts): leaves as they are
        return value.tolist()
    raise TypeError(f"cannot record a {type(value).__name__}")  # a programming error


def decode(data: object, hint: Any, where: str) -> Any:
    """`data` as type `hint`, or Refused naming `where` (and the class and field)."""
    origin, args = _shape(hint)
    # The bulk of a sample (IRQ rows' counts: Sequence[int], read back as a tuple): checked at
    # C speed.
    if (args == (int, Ellipsis) and origin is tuple) or (args == (int,) and origin is Sequence):
        items = _list(data, where)
        if all(type(v) is int for v in items) and (
            not items or (min(items) >= -INT_MAX and max(items) <= INT_MAX)
        ):
            return tuple(items)
        raise Refused(f"{where}: not a list of whole numbers in range")
    if origin in (typing.Union, types.UnionType):
        if data is None and type(None) in args:
            return None
        classes = [a for a in args if isinstance(a, type) and dataclasses.is_dataclass(a)]
        if isinstance(data, Mapping) and classes:
            tag = data.get("_")
            for cls in classes:
                if cls.__name__ == tag:
                    return decode(data, cls, where)
            raise Refused(f"{where}: {printable(repr(tag), 40)} is not a record type here")
        for option in args:
            if dataclasses.is_dataclass(option):
                continue
            try:
                return decode(data, option, where)
            except Refused:
                continue
        raise Refused(f"{where}: a value of the wrong type")
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return _dataclass(data, hint, where)
    if origin in (tuple, list, frozenset, set):
        items = _list(data, where)
        if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
            if len(items) != len(args):
                raise Refused(f"{where}: {len(items)} items, not {len(args)}")
            return tuple(decode(v, a, where) for v, a in zip(items, args, strict=True))
        inner = args[0] if args else Any
        values = [decode(v, inner, where) for v in items]
        return frozenset(values) if origin in (frozenset, set) else tuple(values)
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        key_hint, value_hint = args or (str, str)
        out = {}
        for pair in _list(data, where):
            if not isinstance(pair, list) or len(pair) != 2:
                raise Refused(f"{where}: not a [key, value] pair")
            out[decode(pair[0], key_hint, where)] = decode(pair[1], value_hint, where)
        return out
    if hint in _LEAVES or origin is typing.Literal:
        return check_value(data, hint, where)
    if hint is bytes:
        text = check_value(data, str, where)  # bounded: at most 2048 bytes
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise Refused(f"{where}: not hexadecimal bytes") from None
    raise TypeError(f"decode does not know {hint!r}")  # a programming error


@functools.cache
def _shape(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    return typing.get_origin(hint), typing.get_args(hint)


def _list(data: object, where: str) -> list[Any]:
    if not isinstance(data, list):
        raise Refused(f"{where}: not a list")
    if len(data) > ITEMS_MAX:
        raise Refused(f"{where}: more than {ITEMS_MAX} items")
    return data


def _dataclass(data: object, cls: type, where: str) -> Any:
    if not isinstance(data, Mapping):
        raise Refused(f"{where}: not an object")
    if data.get("_") != cls.__name__:
        raise Refused(f"{where}: not a {cls.__name__}")
    hints = _hints(cls)
    values = {}
    for f in _fields(cls):
        if f.name in data:
            values[f.name] = decode(data[f.name], hints[f.name], f"{where}: {f.name}")
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise Refused(f"{where}: {cls.__name__}.{f.name} is missing")
    try:
        return cls(**values)
    except (TypeError, ValueError) as exc:  # a class's own check (__post_init__)
        raise Refused(f"{where}: {cls.__name__}: {printable(exc, 120)}") from None
