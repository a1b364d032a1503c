"""The app's side of the export preview (E): which interface, which journal, which host access,
and where files go. The screen (export_screen.py) draws; the core (tuitune.core.export) builds
and writes. Everything that touches the kernel or the disk runs in the screen's thread workers.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tuitune.core.host.netns import NetnsError
from tuitune.core.paths import state_home
from tuitune.core.session import JournalError
from tuitune.tui.shell import Shell

# The export code (25 modules, 1.4 MB resident) loads at the first E, not with the live
# screen, which most sessions never leave (issue 18, goal 5).
if TYPE_CHECKING:
    from tuitune.core.export import ExportFile
    from tuitune.core.export.fleet_write import PlaybookWritten
    from tuitune.core.export.preview import Installed, Preview


class Exporter:
    """`export_root` stands for `/` when set: files are previewed against, and installed
    under, that directory (tests, or staging files for another host); None: the real paths."""

    def __init__(self, shell: Shell, export_root: Path | None = None, lab: bool = False) -> None:
        self.shell = shell
        self.export_root = export_root
        self.lab = lab  # `tuitune lab`: installing asks, naming what it writes outside the lab

    def open(self) -> None:
        shell = self.shell
        ifname = shell.selection().ifname
        if ifname is None:
            shell.notify_line("no interface picked: press n to pick one, then E", True)
            return
        netns = shell.session.root.netns
        title = f"Export {ifname}" + (f" (netns {netns})" if netns else "")
        look = shell.look()
        base = self.export_root if self.export_root is not None else state_home() / "tuitune"
        from tuitune.tui.screens.export import ExportScreen

        shell.push_screen(
            ExportScreen(
                title,
                lambda: self.load(ifname),
                self.install,
                look.palette,
                playbook=lambda out: self.playbook(ifname, out),
                playbook_dir=base / f"ansible-{ifname}",
                lab=self.lab,
            )
        )

    def load(self, ifname: str) -> Preview | str:
        """Worker thread: the preview, from the journal `tuitune export` reads too."""
        session = self.shell.session
        if not session.settled(timeout=30.0):  # E pressed right after Enter: show that change
            return "a change is still being written: press E again when it has been"
        try:
            # The session's access (made on first use, shared with its journal): the app's way
            # to reach the host, which tests inject.
            access = session.access()
            from tuitune.core.export.preview import prepare

            return prepare(access, session.journal_dir, ifname, dest_root=self.export_root)
        except JournalError as exc:
            return f"cannot read the change journal: {exc}"
        except NetnsError as exc:
            return f"cannot reach the host: {exc}"

    def install(self, files: Sequence[ExportFile]) -> Installed:
        """Worker thread, after the user confirmed."""
        from tuitune.core.export.preview import install_each

        return install_each(files)

    def playbook(self, ifname: str, out: Path) -> PlaybookWritten | str:
        """Worker thread: the playbook and role in `out`, or why not (one line)."""
        from tuitune.core.export import ExportRefused
        from tuitune.core.export.fleet_write import NothingToWrite, write_playbook

        session = self.shell.session
        if not session.settled(timeout=30.0):
            return "not written: a change is still being written; try again when it has been"
        try:
            return write_playbook(session.access(), session.journal_dir, ifname, out)
        except NothingToWrite as exc:
            return str(exc)
        except ExportRefused as exc:
            return f"not written: {exc.problems[0] if exc.problems else exc}"
        except (JournalError, NetnsError) as exc:
            return f"not written: {exc}"
        except OSError as exc:
            return f"not written: {exc.strerror or exc}"
