"""Record the calls of one method of one object, the calls still going through."""

from __future__ import annotations

from typing import Any


def recorded(obj: object, name: str) -> list[Any]:
    """The first argument of every later call of `obj.name` (None for a call without one),
    in order; the method still runs. Only this object is changed, not its class."""
    calls: list[Any] = []
    original = getattr(obj, name)

    def recording(*args: Any, **kwargs: Any) -> Any:
        calls.append(args[0] if args else None)
        return original(*args, **kwargs)

    setattr(obj, name, recording)
    return calls
