"""A fixture host to edit from the live screen, where every write is seen.

The 32-CPU host (CPU 31 present but offline) with eth0 played by a `FakeDevice` that has every
ethtool group (rings max 4096, channels combined max 8, pause, coalescing, features with one
fixed), the catalog sysctls the editors need, and a file writer that logs each write (and can
refuse a path with an errno, as the kernel does). The screen and the journal see the same
device, so the bounds the editors check are the ones the rows show.
"""

from __future__ import annotations

import errno
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path

from textual.widget import Widget

from tests.support.fixture_hosts import ReplayReader, host_32cpu, shared_samples
from tests.support.screen_app import screen_app
from tests.support.screen_text import screen_text, until
from tests.support.session_fakes import FakeDevice
from tests.tui.conftest import Tui
from tuitune.core.host.ethtool import DriverInfo
from tuitune.core.host.root import HostRoot
from tuitune.core.session import HostAccess
from tuitune.core.session.access import write_file
from tuitune.core.session.service import Services
from tuitune.core.values import Unavailable
from tuitune.tui.app import TuituneApp

DEV = "eth0"
SYSCTLS = {
    "net.core.somaxconn": "4096",
    "net.core.netdev_max_backlog": "1000",
    "net.ipv4.tcp_rmem": "4096\t131072\t6291456",
    "net.ipv4.tcp_congestion_control": "cubic",
    "net.ipv4.tcp_available_congestion_control": "reno cubic bbr",
    "net.ipv4.tcp_allowed_congestion_control": "reno cubic",
    "net.core.default_qdisc": "fq_codel",
}


class ScreenDevice(FakeDevice):
    """FakeDevice with the reads the live screen also makes."""

    def driver_info(self) -> DriverInfo | Unavailable:
        return DriverInfo("igb", "5.6.0-k", "1.63", "", "0000:02:00.0", 0, 0, 0, 0, 0)

    def stats(self) -> tuple[tuple[str, int], ...] | Unavailable:
        return Unavailable("unsupported", "stats: not recorded")


@dataclass
class Writes:
    """Every file write the journal makes (sysctls, IRQs, RPS/XPS, MTU on a tree), in order;
    `refuse` maps a path (relative to the tree) to the errno the kernel would answer."""

    tree: Path
    refuse: Mapping[str, int] = field(default_factory=dict)
    log: list[tuple[str, str]] = field(default_factory=list)

    def __call__(self, path: Path, text: str) -> None:
        rel = str(path.relative_to(self.tree))
        self.log.append((rel, text))
        code = self.refuse.get(rel)
        if code is not None:
            raise OSError(code, errno.errorcode.get(code, "refused"))
        write_file(path, text)


@dataclass
class EditHost:
    tui: Tui
    device: ScreenDevice
    writes: Writes

    @property
    def app(self) -> TuituneApp:
        return self.tui.app

    @property
    def tree(self) -> Path:
        return self.writes.tree

    def nothing_written(self) -> bool:
        return not self.writes.log and not self.device.writes

    def shown(self, widget: Widget) -> str:
        """What the user reads in `widget`, its wrapped lines joined."""
        return " ".join(" ".join(self.tui.text_of(widget)).split())

    def screen(self) -> str:
        return screen_text(self.app)

    def row(self, panel: str, key: str) -> str:
        """A panel row as drawn, found by its key."""
        view = self.app.panels[panel].view
        assert view.move_cursor_to(key), key
        line = self.tui.cursor_line(panel)
        assert line is not None
        return line

    async def wait(self, ok: Callable[[], object]) -> None:
        await until(self.tui.pilot, ok)

    async def type(self, text: str) -> None:
        keys = {" ": "space"}
        await self.tui.pilot.press(*(keys.get(ch, ch) for ch in text))


def write_sysctls(tree: Path, values: Mapping[str, str]) -> None:
    for key, value in values.items():
        path = tree / "proc/sys" / key.replace(".", "/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")


@asynccontextmanager
async def editing(
    tmp_path: Path,
    *,
    device: ScreenDevice | None = None,
    refuse: Mapping[str, int] | None = None,
    services: Callable[[HostRoot], Services] | None = None,
    limit: int | None = None,
    interval: float = 1.0,
    samples: int = 200,
    netns: str | None = None,
    possible: str | None = None,
    size: tuple[int, int] = (160, 48),
    sysctls: Mapping[str, str] | None = None,
) -> AsyncIterator[EditHost]:
    # Enough samples that the CPU rows (drop targets) stay for the whole test: replayed from a
    # series shared by every test of the process; this test's own tree holds sample 0 only.
    # A 1 s interval, as the command's: a change's own tick comes at once (the editor asks the
    # sampler for it), and a sampler at 0.25 s drew four frames a second for nothing (21
    # editing tests: 37.1 -> 31.5 s of CPU).
    built, _ = host_32cpu(tmp_path / "host", samples=1)
    built.close()
    tree = built.root.proc.parent
    write_sysctls(tree, {**SYSCTLS, **(sysctls or {})})
    (tree / "sys/devices/system/cpu/online").write_text("0-30\n")
    (tree / "sys/devices/system/cpu/present").write_text("0-31\n")
    if possible is not None:  # devices/system/cpu/possible: the bound of a typed CPU list
        (tree / "sys/devices/system/cpu/possible").write_text(possible + "\n")
    dev = device or ScreenDevice(DEV)
    writes = Writes(tree, refuse or {})

    def eth(name: str) -> ScreenDevice:
        return dev if name == DEV else ScreenDevice(name)

    reader = ReplayReader(
        tree, ethtool=eth, netns=netns, samples=shared_samples(host_32cpu, samples)
    )
    root = reader.root

    def access() -> HostAccess:
        svc = services(root) if services is not None else None
        return HostAccess(
            root, call=reader.call, ethtool=eth, writer=writes, services=svc, host_writes=True
        )

    app = screen_app(
        reader,
        DEV,
        interval=interval,
        limit=limit,
        editable=True,
        journal_dir=tmp_path / "journal",
        access=access,
    )
    try:
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.samples_drawn >= 2 and app.nic is not None)
            yield EditHost(Tui(app, pilot, reader), dev, writes)
            app.sampler.stop()
            if app.is_running:
                await pilot.pause()
    finally:
        reader.close()
