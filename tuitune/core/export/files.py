"""Putting files on disk: atomic (a temporary file in the same directory, fsync, rename), an
existing file copied aside first, and read back after, all through `tuitune.core.fsutil`: no
link another user made is followed, and a directory they could change is refused. Nothing
here decides whether to write: the caller asks (`--install`, or the TUI after the user
confirmed)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from tuitune.core import fsutil
from tuitune.core.export.model import ExportFile, same_text

INSTALLED_LIMIT = 1 << 20  # the files tuitune writes are a few KiB; more is not one of them


def read_installed(path: Path) -> str | None:
    """The text at `path` now, for the diff; None when there is none, or it cannot be read
    without following a link another user made (a link is never shown through)."""
    try:
        data = fsutil.read_file(path, INSTALLED_LIMIT, follow=False)
        return None if data is None else data.decode()
    except (OSError, UnicodeDecodeError):
        return None


def with_installed(files: Iterable[ExportFile]) -> tuple[ExportFile, ...]:
    """The files with the text installed at their path now (for the diff), unless already set."""
    return tuple(
        f if f.installed is not None else replace(f, installed=read_installed(f.path))
        for f in files
    )


@dataclass(frozen=True, slots=True)
class Written:
    path: Path
    status: Literal["written", "unchanged", "not installed"]
    backup: Path | None = None
    reason: str = ""

    def __str__(self) -> str:
        if self.status == "written":
            saved = f" (the old one is {self.backup})" if self.backup else ""
            return f"wrote {self.path}{saved}"
        if self.status == "unchanged":
            return f"unchanged {self.path}"
        return f"not installed {self.path}: {self.reason}"


def _put(d: fsutil.SafeDir, f: ExportFile, path: Path) -> Written:
    """One file into the open directory `d` (checked once, every step relative to it): left
    alone when it holds the same text, else the old one copied aside, the new one renamed
    in, and read back. A link or anything but a file at the name is refused, never followed."""
    name, data = path.name, f.text.encode()
    old = d.lstat(name)
    if old is not None and old.st_size == len(data):
        there = d.read(name, len(data))
        if there is not None and same_text(there.decode("utf-8", "replace"), f.text):
            return Written(path, "unchanged")
    backup = d.backup(name)
    d.write_atomic(name, data, f.mode)
    if d.read(name, len(data)) != data:
        raise fsutil.FsError(path, "read back differs from what was written")
    return Written(path, "written", path.with_name(backup) if backup else None)


def install(files: Iterable[ExportFile]) -> list[Written]:
    """Write each installable file to its path: skipped when the same text is there, else the
    old file is copied aside first, then replaced atomically and read back. Raises OSError
    (an `fsutil.FsError`, one line, for a directory or a file it refuses) at the first
    failure."""
    out = []
    for f in files:
        if not f.installable:
            out.append(Written(f.path, "not installed", reason="a snippet to merge by hand"))
            continue
        with fsutil.open_dir(f.path.parent, create=True) as d:
            out.append(_put(d, f, f.path))
    return out


def write_out(files: Iterable[ExportFile], directory: Path) -> list[Written]:
    """Each file into `directory` under its own name, for a look before installing (the same
    care as an install: atomic, an older copy set aside). The directory is opened and checked
    once, before anything is written."""
    with fsutil.open_dir(directory, create=True) as d:
        return [_put(d, f, directory / f.path.name) for f in files]
