"""The journal on disk: an append-only file of JSON lines, root-only, with a lock beside it.

Where: /run/tuitune/ by default. Every value tuitune records is a live kernel value that a
reboot resets anyway (sysctls, offloads, rings, IRQ affinity...). A journal that survived a
reboot, as one under /var/lib would, would "restore" an earlier boot's values over the freshly
booted machine's own configuration (sysctl.d, udev rules). /run is emptied at every boot; for a
journal directory elsewhere (--journal-dir), the boot id in the header catches the same case.

Crash safety: each append is one write(2) followed by fsync, and a creation also fsyncs the
directory, so a record the caller has appended is on disk before the kernel write it guards.
A crash in the middle of an append leaves a torn last line, which is dropped on the next open.

Concurrency: `NAME.lock` is held with flock(2) by the process journaling that host and holds
its pid, so a second tuitune can say who is in the way. The kernel drops the lock when the
holder dies, even by SIGKILL, so `tuitune restore` after a crash is never locked out.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
from pathlib import Path
from typing import Any

from tuitune.core.host.root import HostRoot

DEFAULT_DIR = Path("/run/tuitune")
SUFFIX = ".journal"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")

Record = dict[str, Any]


class JournalError(Exception):
    """The journal cannot be used (directory not creatable, unsafe, unreadable)."""


class JournalBusy(JournalError):
    def __init__(self, host: str, pid: int | None) -> None:
        who = f"tuitune (pid {pid})" if pid else "another tuitune"
        super().__init__(f"{who} is already changing {host}; quit it first")
        self.pid = pid


def host_id(root: HostRoot) -> str:
    """Which host a journal belongs to: "host", "netns-NAME", or "tree-HASH" for a recorded
    tree (its path, hashed: tests and --root users get their own journals)."""
    if not root.live:
        digest = hashlib.sha256(str(root.proc.resolve()).encode()).hexdigest()[:12]
        return f"tree-{digest}"
    if root.netns is not None:
        return "netns-" + _SAFE.sub("_", root.netns)
    return "host"


def identity(root: HostRoot) -> dict[str, Any]:
    """What makes a journal stale: another boot, or another namespace under the same name."""
    boot: str | None = None
    with contextlib.suppress(OSError):
        boot = root.read_proc("sys/kernel/random/boot_id").strip() or None
    ns: list[int] | None = None
    if root.live and root.netns is not None:
        with contextlib.suppress(OSError):
            st = os.stat(os.path.join("/run/netns", root.netns))
            ns = [st.st_dev, st.st_ino]
    return {"boot": boot, "ns": ns}


def ensure_dir(directory: Path) -> None:
    """Create the journal directory 0700, or check an existing one is ours and private."""
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        st = os.lstat(directory)
    except OSError as exc:
        raise JournalError(f"cannot create the journal directory {directory}: {_why(exc)}") from exc
    if not os.path.isdir(directory) or os.path.islink(directory):
        raise JournalError(f"{directory} is not a directory")
    if st.st_uid != os.geteuid():
        raise JournalError(f"{directory} belongs to uid {st.st_uid}, not to this user")
    if st.st_mode & 0o077:
        os.chmod(directory, 0o700)


def _why(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "needs root"
    return exc.strerror or str(exc)


def journal_path(directory: Path, host: str) -> Path:
    return directory / f"{host}{SUFFIX}"


def read_records(path: Path) -> list[Record]:
    """Every complete record of a journal file; a torn last line is ignored."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise JournalError(f"cannot read {path}: {_why(exc)}") from exc
    out = []
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            continue  # torn by a crash mid-append (only ever the last line)
        if isinstance(rec, dict):
            out.append(rec)
    return out


def lock_holder(directory: Path, host: str) -> int | None:
    """The pid holding the journal lock of `host`, or None when nobody does."""
    path = directory / f"{host}.lock"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return _pid_in(fd) or -1
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _pid_in(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


class JournalFile:
    """One host's journal file, opened for appending, with its lock held (or, for the trial
    watchdog, attached without the lock: see `attach`)."""

    def __init__(self, directory: Path, host: str, *, lock: bool = True) -> None:
        ensure_dir(directory)
        self.directory = directory
        self.host = host
        self.path = journal_path(directory, host)
        self._lock_fd = self._lock() if lock else -1
        try:
            self._fd, created = self._open()
        except BaseException:
            if self._lock_fd >= 0:
                os.close(self._lock_fd)
            raise
        if created:
            self._sync_dir()

    @classmethod
    def attach(cls, directory: Path, host: str) -> JournalFile:
        """Append to a journal another process may hold. Only the trial watchdog does this,
        for the one thing that must happen even while a hung tuitune holds the lock: putting
        a trial change back. Each append is one O_APPEND write, so records never interleave."""
        return cls(directory, host, lock=False)

    def read_from(self, offset: int) -> tuple[list[Record], int]:
        """Complete records appended after `offset`, and the offset after the last of them
        (a line still being written by another process is left for the next call).
        A released journal has nothing new: the screen may still ask while the app leaves."""
        if self._fd < 0:
            return [], offset
        size = os.fstat(self._fd).st_size
        if size <= offset:
            return [], offset
        data = os.pread(self._fd, size - offset, offset)
        end = data.rfind(b"\n") + 1
        out = []
        for line in data[:end].split(b"\n"):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line torn by a crash, cut off on the next open
            if isinstance(rec, dict):
                out.append(rec)
        return out, offset + end

    def _lock(self) -> int:
        path = self.directory / f"{self.host}.lock"
        flags = os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            fd = os.open(path, flags, 0o600)
        except OSError as exc:
            raise JournalError(f"cannot open {path}: {_why(exc)}") from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _pid_in(fd)
            os.close(fd)
            raise JournalBusy(self.host, pid) from None
        os.fchmod(fd, 0o600)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd

    def _open(self) -> tuple[int, bool]:
        created = not self.path.exists()
        flags = os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            fd = os.open(self.path, flags, 0o600)
        except OSError as exc:
            raise JournalError(f"cannot open {self.path}: {_why(exc)}") from exc
        os.fchmod(fd, 0o600)
        # Drop a line torn by a crash, so the next append starts on a line of its own.
        size = os.fstat(fd).st_size
        if size:
            tail = os.pread(fd, min(size, 1 << 16), max(0, size - (1 << 16)))
            if not tail.endswith(b"\n"):
                cut = tail.rfind(b"\n")
                os.ftruncate(fd, size - len(tail) + cut + 1 if cut >= 0 else 0)
        return fd, created

    def _sync_dir(self) -> None:
        fd = os.open(self.directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def records(self) -> list[Record]:
        return read_records(self.path)

    def append(self, *records: Record) -> None:
        """Write records as one append and wait until they are on disk."""
        if not records:
            return
        data = b"".join(
            json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
            for r in records
        )
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        os.fsync(self._fd)

    def remove(self) -> None:
        """Delete the journal (nothing left to restore) and release the lock."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._sync_dir()
        self.release()

    def set_aside(self, suffix: str) -> Path:
        """Rename the journal out of the way (a stale one), keep it for a human to read."""
        dest = self.path.with_name(self.path.name + suffix)
        os.replace(self.path, dest)
        os.close(self._fd)
        self._fd, _ = self._open()
        self._sync_dir()
        return dest

    def release(self) -> None:
        """Close the file and drop the lock; the journal stays on disk for `tuitune restore`."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1
