"""The App's Host view key (H), the connections view key (C) and the NIC panel title's note:
a base class between Frame and the App (tui/app.py), so the platform's wiring lives beside its
screen (screens/host.py)."""

from __future__ import annotations

from typing import ClassVar, cast

from textual.binding import Binding, BindingType

from tuitune.core.hostreader import HostReader
from tuitune.tui.controllers.advisor import COUNT_FROM
from tuitune.tui.frame import Frame
from tuitune.tui.shell import Shell

HOST_BINDINGS: list[BindingType] = [
    Binding("H", "host", "Host: CPU power, SMT, PCIe, IOMMU, driver (BIOS to NIC)", show=False),
    Binding("C", "connections", "Connections: cwnd, RTT, retransmits, pacing, wscale", show=False),
]


class HostView(Frame):
    BINDINGS: ClassVar[list[BindingType]] = HOST_BINDINGS

    reader: HostReader  # set by the App
    interval: float  # the refresh, seconds (the App's)
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

        refresh_platform(cast(Shell, self), self.reader, self._platform_note, open_view=open_view)

    def action_connections(self) -> None:
        """The TCP connections on the NIC's addresses, re-read every refresh (screens/conns.py)."""
        ifname = self.ifname
        if ifname is None:
            cast(Shell, self).notify_line("no interface picked (n picks one)", True)
            return
        from tuitune.tui.screens.conns import ConnsScreen

        reader = self.reader
        shell = cast(Shell, self)
        shell.push_screen(
            ConnsScreen(shell, ifname, lambda: reader.connections(ifname), self.interval)
        )

    def _platform_note(self, note: str) -> None:
        self.platform_note = note
        self.view.nic()
