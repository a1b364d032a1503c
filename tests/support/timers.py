"""Holding an app's timers while a test reads what they would take away."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual.app import App


@contextmanager
def timers_held(app: App[Any]) -> Iterator[None]:
    """The app's timers set meanwhile start only when the block ends: a notice, which its own
    4 s timer clears, is read before it can go, however long the key took (at a load average
    of 13 the key took longer, and the test read a header already cleared)."""
    held: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    real = app.set_timer

    def hold(*args: Any, **kw: Any) -> None:
        held.append((args, kw))

    app.set_timer = hold  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        app.set_timer = real  # type: ignore[method-assign]
        for args, kw in held:
            real(*args, **kw)
