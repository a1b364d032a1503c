"""The App's Host view key (H) and the NIC panel title's note: a base class between Frame and
the App (tui/app.py), so the platform's wiring lives beside its screen (screens/host.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar, cast

from textual.binding import Binding, BindingType

from tuitune.core.hostreader import HostReader
from tuitune.core.session import Key, Outcome
from tuitune.tui.controllers.advisor import COUNT_FROM
from tuitune.tui.controllers.edit import Editor
from tuitune.tui.frame import Frame
from tuitune.tui.shell import Shell

HOST_BINDINGS: list[BindingType] = [
    Binding("H", "host", "Host: CPU power, SMT, PCIe, IOMMU, driver (BIOS to NIC)", show=False),
]


class HostView(Frame):
    BINDINGS: ClassVar[list[BindingType]] = HOST_BINDINGS

    reader: HostReader  # set by the App
    editor: Editor  # set by the App
    ifname: str | None
    samples_drawn: int
    # The NIC panel title's tail: the platform's worst finding, or "" (tui/scene.py).
    platform_note = ""
    _platform_of: str | None = None  # the interface the note was read for

    def sample_drawn(self) -> None:
        """One more sample on screen. From the Advisor's first count on (its rules are
        loaded by then: the first frames stay light), and for each new interface, the
        platform is read again for the NIC panel's note."""
        self.samples_drawn += 1
        if self.samples_drawn >= COUNT_FROM and self.ifname != self._platform_of:
            self._platform_of = self.ifname
            self.action_host(open_view=False)

    def action_host(self, open_view: bool = True) -> None:
        """Read the platform (off the UI thread); name its worst finding in the NIC panel's
        title, and open the Host view unless `open_view` is False (at start, on a new NIC)."""
        from tuitune.tui.screens.host import refresh_platform  # its module loads on first use

        shell = cast(Shell, self)
        refresh_platform(
            shell, self.reader, self._platform_note, open_view=open_view, apply=self._apply
        )

    def _apply(self, key: Key, text: str, done: Callable[[Outcome], None]) -> None:
        """A change from the Host view, through the screen's editor (its journal, its undo)."""
        editor = self.editor

        def finished(out: Outcome) -> None:
            if out.status == "changed":
                editor.changes += 1
                self.post_message(Editor.StateChanged())
            done(out)

        editor.run_journal(lambda j: j.apply(key, text), finished)

    def _platform_note(self, note: str) -> None:
        self.platform_note = note
        self.view.nic()
