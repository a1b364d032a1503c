"""Putting files on disk: atomic (a temporary file in the same directory, fsync, rename), an
existing file copied aside first, and read back after. Nothing here decides whether to write:
the caller asks (`--install`, or the TUI after the user confirmed)."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from tuitune.core.export.model import ExportFile


def read_installed(path: Path) -> str | None:
    try:
        return path.read_text()
    except (OSError, UnicodeDecodeError):
        return None


def with_installed(files: Iterable[ExportFile]) -> tuple[ExportFile, ...]:
    """The files with the text installed at their path now (for the diff), unless already set."""
    return tuple(
        f if f.installed is not None else replace(f, installed=read_installed(f.path))
        for f in files
    )


def atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    """Replace `path` with `text` in one rename: a reader sees the old file or the new one.
    The temporary name starts with "." and does not end in .rules/.conf/.link, so udev,
    systemd-sysctl or systemd never read a half-written file."""
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
            f.flush()
            os.fchmod(f.fileno(), mode)
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def backup_path(path: Path, when: float | None = None) -> Path:
    """PATH.tuitune-bak-YYYYmmdd-HHMMSS: a name udev, sysctl and systemd ignore."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
    candidate = path.with_name(f"{path.name}.tuitune-bak-{stamp}")
    n = 1
    while candidate.exists():
        candidate = path.with_name(f"{path.name}.tuitune-bak-{stamp}.{n}")
        n += 1
    return candidate


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


def install(files: Iterable[ExportFile]) -> list[Written]:
    """Write each installable file to its path: skipped when the same text is there, else the
    old file is copied aside first, then replaced atomically and read back."""
    out = []
    for f in files:
        if not f.installable:
            out.append(Written(f.path, "not installed", reason="a snippet to merge by hand"))
            continue
        current = read_installed(f.path)
        if current == f.text:
            out.append(Written(f.path, "unchanged"))
            continue
        backup = None
        if f.path.exists():
            backup = backup_path(f.path)
            shutil.copy2(f.path, backup)
        atomic_write(f.path, f.text, f.mode)
        if read_installed(f.path) != f.text:
            raise OSError(f"{f.path}: read back differs from what was written")
        out.append(Written(f.path, "written", backup))
    return out


def write_out(files: Iterable[ExportFile], directory: Path) -> list[Written]:
    """Each file into `directory` under its own name, for a look before installing (the same
    care as an install: atomic, an older copy set aside)."""
    moved = [replace(f, path=directory / f.path.name, installable=True) for f in files]
    return install(moved)
