"""What a controller (the editor, the benchmark, the export) sees of the App: a narrow Protocol.

Controllers never import or hold `TuituneApp` (an import-linter contract in pyproject.toml
keeps it so): they read an immutable snapshot of what is selected, change the host through the
core's `Session`, push screens, run blocking work in a thread and post typed messages up. The
App implements this Protocol and hands itself, typed as `Shell`, to each controller.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

from textual.message import Message
from textual.screen import Screen

from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.session import Session
from tuitune.core.session.outcome import Outcome
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.look.look import Look

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class Selection:
    """What the screen shows now: the watched interface, its last state, the host's, and the
    row under the cursor in the focused panel (its key, e.g. "feature:rx-gro"), and the IRQ
    affinities the IRQ panel shows (the host's too in its "all IRQs" view)."""

    ifname: str | None
    nic: NicState | None
    host: HostState | None
    row: str | None = None
    irq_affinity: Mapping[str, IrqAffinity] = field(default_factory=dict)


class Shell(Protocol):
    @property
    def session(self) -> Session: ...

    def selection(self) -> Selection:
        """A snapshot: it does not follow the screen after it was taken."""
        ...

    def look(self) -> Look: ...

    def show_read_back(self, outs: Sequence[Outcome]) -> None:
        """The values a change read back, on their rows now (before the re-read)."""
        ...

    def notify_line(self, text: str, warn: bool = False) -> None:
        """One line on the header (a warning when `warn`), gone after a few seconds."""
        ...

    def farewell(self, lines: Sequence[str]) -> None:
        """Lines the shell prints once the screen is gone (what quitting left behind)."""
        ...

    def push_screen(
        self, screen: Screen[R], callback: Callable[[R | None], None] | None = None
    ) -> object:
        """Show `screen` over the current one; `callback(result)` when it is dismissed."""
        ...

    def in_thread(
        self, work: Callable[[], T], then: Callable[[T], None] | None = None, *, group: str
    ) -> None:
        """Run `work()` on a worker thread, then `then(result)` on the UI thread (skipped when
        the app has stopped meanwhile). An exception in `work` ends the worker quietly."""
        ...

    def post_message(self, message: Message) -> bool:
        """Send a message up to the App; thread-safe and never blocks."""
        ...
