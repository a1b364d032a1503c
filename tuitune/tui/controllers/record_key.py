"""`w` on the live screen: start a recording (its file asked for, a new one under the state
directory offered), `w` again stops it with one line naming the file and its size. The
recording is the one `--record FILE` makes (core/record/live.py): the same sampler, the same
file rules (0600, never over a file that exists, no link followed)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Protocol

from tuitune.core import fsutil
from tuitune.core.paths import state_home
from tuitune.core.record.live import LiveRecording, short_path
from tuitune.core.text import printable
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.sampler import Sampler
from tuitune.core.watch.snapshot import HostState
from tuitune.tui.screens.dialogs import EditorScreen
from tuitune.tui.shell import Shell


class RecordShell(Shell, Protocol):
    """The App as the record key needs it."""

    sampler: Sampler
    reader: HostReader
    rec: LiveRecording
    interval: float
    host: HostState | None


def recordings_dir() -> Path:
    """Where a recording started by the key goes unless told: the user's state directory."""
    return state_home() / "tuitune" / "recordings"


class RecordKey:
    def __init__(self, app: RecordShell) -> None:
        self.app = app

    def default_path(self, ifname: str | None) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return recordings_dir() / f"{ifname or 'host'}-{stamp}.rec"

    def toggle(self) -> None:
        app = self.app
        if app.rec.recorder is not None:
            line = app.rec.stop()
            app.sampler.record_affinity = False
            app.notify_line(line or "", app.rec.recorder is not None)
            return
        ifname = app.selection().ifname
        app.push_screen(
            EditorScreen(
                "recording",
                str(self.default_path(ifname)),
                "Enter starts recording every sample to this new file (w again stops it), "
                "Esc cancels; a file that exists is never overwritten",
                title="Record every sample to a new file",
                enter="start recording",
            ),
            lambda typed: self._start(typed, ifname),
        )

    def _start(self, typed: str | None, ifname: str | None) -> None:
        if typed is None or not typed.strip():
            return
        app = self.app
        path = Path(os.path.expanduser(typed.strip()))
        try:
            if path.parent == recordings_dir():  # the offered place: made, private
                fsutil.open_dir(path.parent, create=True, mode=0o700).close()
            host = app.host if app.host is not None else app.reader.host_state()
            app.rec.start(
                path,
                iface=ifname,
                netns=app.session.root.netns,
                interval=app.interval,
                host=host,
            )
        except OSError as exc:  # a bad path, a file that exists, a directory not safe
            # The reason whole, the path elided: in a long path's middle the "why" was lost.
            why = printable(exc.strerror or exc, 160)
            where = printable(short_path(str(exc.filename)), 60) if exc.filename else ""
            app.notify_line(
                f"not recording: {where}: {why}" if where else f"not recording: {why}", True
            )
            return
        app.sampler.record_affinity = True  # every IRQ's affinity, at whole-table ticks
        app.sampler.refresh_state()  # the next tick holds the NIC and host state (and those)
        # The offered place was in the box just confirmed: its file's name is enough here.
        shown = path.name if path.parent == recordings_dir() else short_path(os.fspath(path))
        app.notify_line(f"recording to {printable(shown, 120)} (w stops)")
