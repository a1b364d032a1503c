"""The NIC panel title's note: the platform's worst static finding (core/platformnote.py),
read off the UI thread from the Advisor's first count on and again for each new interface
(tui/hostview.py). Apart from the Host view (screens/host.py): the note reads the platform
without the setting kinds' own reads (FEC through SIOCETHTOOL, which no static rule judges),
so the kinds' handlers, the Host view's rows and their edits load with H or the first change,
not on a screen only watched (issue 38, goal 3: a small host's resident memory)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tuitune.core.advise.model import Finding
from tuitune.core.host.platform import KindRead, Platform, read_platform
from tuitune.core.platformnote import worst
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.snapshot import HostState, NicState
from tuitune.tui.shell import Shell


def nic_note(found: Finding | None) -> str:
    """The NIC panel title's tail, naming the platform's worst finding (H opens the view)."""
    return "" if found is None else f"  host: {found.severity} {found.id} (H)"


def read_host(
    reader: HostReader, ifname: str | None, reads: Sequence[KindRead] = ()
) -> tuple[Platform, HostState, NicState | None]:
    """The platform, the host and the NIC, on a worker thread, not the kernel thread (1152
    CPUs' CPU power took 3 s from a tree under load). The note passes no `reads`: the kinds'
    own reads load their modules, which the Host view (it passes them) needs and it does not."""
    platform = read_platform(reader.root, ifname, reader.call, reads)
    nic = reader.nic_state(ifname) if ifname else None
    return platform, reader.host_state(), nic


def read_note(
    shell: Shell,
    reader: HostReader,
    set_nic_title: Callable[[str], None],
    read: Callable[[str | None, Platform], None],
) -> None:
    """Read the platform, the host and the NIC off the UI thread; then hand the platform to
    `read` (the Advisor's rules judge it) and name the worst finding in the NIC panel's title."""
    ifname = shell.selection().ifname

    def done(got: tuple[Platform, HostState, NicState | None]) -> None:
        platform, host, nic = got
        read(ifname, platform)
        set_nic_title(nic_note(worst(host, nic, platform)))

    shell.in_thread(lambda: read_host(reader, ifname), done, group="platform")
