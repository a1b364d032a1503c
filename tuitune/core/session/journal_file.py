"""The journal on disk: an append-only file of JSON lines, root-only, with a lock.

Where: /run/tuitune/ by default. Every value tuitune records is a live kernel value that a
reboot resets anyway (sysctls, offloads, rings, IRQ affinity...). A journal that survived a
reboot, as one under /var/lib would, would "restore" an earlier boot's values over the freshly
booted machine's own configuration (sysctl.d, udev rules). /run is emptied at every boot; for a
journal directory elsewhere (--journal-dir), the boot id in the header catches the same case.
What is trusted in a journal directory, and how it is opened: journal_dir.py.

Crash safety: each append is one write(2) followed by fsync, and a creation also fsyncs the
directory, so a record the caller has appended is on disk before the kernel write it guards.
A crash in the middle of an append leaves a torn last line, which is dropped on the next open.
An append that fails (a full disk) is cut off again and raises JournalWriteError: nothing of
it stays, so the journal never holds half a record.

Concurrency: `NAME.lock` is held with flock(2) by the process journaling that host and holds
its pid, so a second tuitune can say who is in the way. The kernel drops the lock when the
holder dies, even by SIGKILL, so `tuitune restore` after a crash is never locked out. The lock
of the live host or one of its namespaces is in /run/tuitune whatever the journal directory
(LOCK_DIR), so a second --journal-dir cannot let two tuitunes change one host; its holder
removes it as it leaves (still holding it), so namespaces that come and go leave no lock files.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
from pathlib import Path
from typing import Any

from tuitune.core.host.root import HostRoot
from tuitune.core.session import journal_dir as jdir
from tuitune.core.session.journal_dir import (
    DEFAULT_DIR,
    JournalError,
    JournalWriteError,
    create_in,
    open_dir,
    open_in,
    read_in,
    why,
)

__all__ = ["DEFAULT_DIR", "JournalError", "JournalWriteError"]

SUFFIX = ".journal"
UNREADABLE = "unreadable"  # the type of the stand-in for a line that is not a record
_SAFE = re.compile(r"[A-Za-z0-9_.-]+")
_NAME_MAX = 200  # longer escaped names are hashed: a file name has 255 bytes at most

Record = dict[str, Any]


class JournalBusy(JournalError):
    def __init__(self, host: str, pid: int | None) -> None:
        who = f"tuitune (pid {pid})" if pid else "another tuitune"
        super().__init__(f"{who} is already changing {host}; quit it first")
        self.pid = pid


def _file_part(name: str) -> str:
    """A file-name part for a namespace name, one per name (injective): a name made only of
    [A-Za-z0-9_.-] is itself (the names journals always had), any other byte is written %XX
    ('%' is never in a plain name, so no plain name reads like an escaped one), and a very long
    result is %% and a SHA-256 (no escaped name starts with %%)."""
    if _SAFE.fullmatch(name) and len(name) <= _NAME_MAX:
        return name
    raw = name.encode("utf-8", "surrogateescape")
    out = "".join(
        chr(b) if _SAFE.fullmatch(chr(b)) else f"%{b:02X}" for b in raw
    )  # ASCII bytes only reach chr(b) unescaped
    if len(out) > _NAME_MAX:
        import hashlib  # here: only a long name needs it (issue 38: OpenSSL's digests)

        return "%%" + hashlib.sha256(raw).hexdigest()
    return out


def host_id(root: HostRoot) -> str:
    """Which host a journal belongs to: "host", "netns-NAME" (NAME escaped, see `_file_part`),
    or "tree-HASH" for a recorded tree (its path, hashed: tests and --root users get their own
    journals)."""
    if not root.live:
        import hashlib  # here: a live host's journal never needs it (issue 38)

        digest = hashlib.sha256(str(root.proc.resolve()).encode()).hexdigest()[:12]
        return f"tree-{digest}"
    if root.netns is not None:
        return "netns-" + _file_part(root.netns)
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


def journal_path(directory: Path, host: str) -> Path:
    return directory / f"{host}{SUFFIX}"


def lock_dir(directory: Path, host: str) -> Path:
    """Where the lock of `host` is: LOCK_DIR for the live host and its namespaces, beside the
    journal for a recorded tree."""
    return directory if host.startswith("tree-") else jdir.LOCK_DIR


def parse(data: bytes) -> list[Record]:
    """The records of complete lines (a torn last line, without its newline, is left out).
    A line that is not a JSON object becomes an UNREADABLE stand-in, so that it is counted."""
    out: list[Record] = []
    *lines, _torn = data.split(b"\n")
    for line in lines:
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            rec = None
        if isinstance(rec, dict):
            out.append(rec)
        else:
            text = line[:80].decode("utf-8", "replace")
            out.append({"t": UNREADABLE, "why": f"not a journal record: {text}"})
    return out


def read_records(path: Path) -> list[Record]:
    """Every complete record of a journal file; a torn last line is ignored. [] when there is
    no such file. Raises JournalError when it cannot be read or trusted."""
    data = read_in(path.parent, path.name)
    return [] if data is None else parse(data)


def journal_exists(directory: Path, host: str) -> bool:
    """Whether `host` has a journal in `directory`. Raises JournalError when the directory or
    the file cannot be read or trusted (another user's, a link...)."""
    dfd = open_dir(directory, create=False)
    if dfd is None:
        return False
    try:
        fd = open_in(dfd, journal_path(directory, host).name, os.O_RDONLY, directory)
    finally:
        os.close(dfd)
    if fd is None:
        return False
    os.close(fd)
    return True


def lock_holder(directory: Path, host: str) -> int | None:
    """The pid holding the journal lock of `host`, or None when nobody does (or it cannot be
    told: the lock is then found busy when taken)."""
    where = lock_dir(directory, host)
    try:
        dfd = open_dir(where, create=False)
        if dfd is None:
            return None
        try:
            fd = open_in(dfd, f"{host}.lock", os.O_RDONLY, where)
        finally:
            os.close(dfd)
    except JournalError:
        return None
    if fd is None:
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


def _named(fd: int, dfd: int, name: str) -> bool:
    """Whether `name` in directory `dfd` is still the file open as `fd`."""
    try:
        there = os.stat(name, dir_fd=dfd, follow_symlinks=False)
    except OSError:
        return False
    here = os.fstat(fd)
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _pid_in(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return int(text) if text.isascii() and text.isdigit() else None


class JournalFile:
    """One host's journal file, opened for appending, with its lock held (or, for the trial
    watchdog, attached without the lock: see `attach`)."""

    def __init__(self, directory: Path, host: str, *, lock: bool = True) -> None:
        self.directory = directory
        self.host = host
        self.path = journal_path(directory, host)
        self._dfd = -1
        self._lock_fd = -1
        self._lock_dfd = -1  # where a lock to remove on release is
        self._fd = -1
        try:
            dfd = open_dir(directory, create=True)
            if dfd is None:  # removed between its creation and its opening
                raise JournalError(f"cannot open the journal directory {directory}")
            self._dfd = dfd
            if lock:
                self._lock_fd = self._lock()
            self._fd, created = self._open()
            if created:
                self._sync_dir()
        except BaseException:
            self.release()
            raise

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
        return parse(data[:end]), offset + end

    def _lock(self) -> int:
        """Take the host's lock. A live host's lock file is removed by its holder as it leaves
        (/run/tuitune is shared by every namespace that comes and goes), so a lock taken on a
        file that is no longer the one under that name is dropped and taken again."""
        where = lock_dir(self.directory, self.host)
        dfd = open_dir(where, create=True)
        if dfd is None:
            raise JournalError(f"cannot open the lock directory {where}")
        name = f"{self.host}.lock"
        try:
            for _ in range(8):
                fd, _ = create_in(dfd, name, os.O_RDWR, where)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    pid = _pid_in(fd)
                    os.close(fd)
                    raise JournalBusy(self.host, pid) from None
                if _named(fd, dfd, name):
                    break
                os.close(fd)  # its holder removed it while leaving: take the new one
            else:
                raise JournalBusy(self.host, None)
        except BaseException:
            os.close(dfd)
            raise
        if self.host.startswith("tree-"):
            os.close(dfd)  # a tree's lock stays beside its journal
        else:
            self._lock_dfd = dfd
        # Who holds it, for the message of a second tuitune; a full disk only loses that.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        return fd

    def _open(self) -> tuple[int, bool]:
        fd, created = create_in(self._dfd, self.path.name, os.O_RDWR | os.O_APPEND, self.directory)
        # Drop a line torn by a crash, so the next append starts on a line of its own.
        size = os.fstat(fd).st_size
        if size:
            tail = os.pread(fd, min(size, 1 << 16), max(0, size - (1 << 16)))
            if not tail.endswith(b"\n"):
                cut = tail.rfind(b"\n")
                os.ftruncate(fd, size - len(tail) + cut + 1 if cut >= 0 else 0)
        return fd, created

    def _sync_dir(self) -> None:
        os.fsync(self._dfd)

    def records(self) -> list[Record]:
        if self._fd < 0:
            return read_records(self.path)
        size = os.fstat(self._fd).st_size
        return parse(os.pread(self._fd, size, 0)) if size else []

    def append(self, *records: Record) -> None:
        """Write records as one append and wait until they are on disk. Raises
        JournalWriteError, with nothing of them left in the file, when that fails."""
        if not records:
            return
        data = b"".join(
            json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
            for r in records
        )
        start = os.fstat(self._fd).st_size
        written = 0
        try:
            view = memoryview(data)
            while view:
                n = os.write(self._fd, view)
                written += n
                view = view[n:]
            os.fsync(self._fd)
        except OSError as exc:
            # Cut what this append wrote, unless someone appended after it (the watchdog):
            # a torn line in the middle is then read as an unreadable record.
            with contextlib.suppress(OSError):
                if written and os.fstat(self._fd).st_size == start + written:
                    os.ftruncate(self._fd, start)
            raise JournalWriteError(
                f"cannot write the change journal {self.path}: {why(exc)}"
            ) from exc

    def remove(self) -> None:
        """Delete the journal (nothing left to restore) and release the lock."""
        if self._dfd >= 0:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path.name, dir_fd=self._dfd)
            self._sync_dir()
        self.release()

    def set_aside(self, suffix: str, *, reopen: bool = True) -> Path:
        """Move the journal out of the way (a stale one), keep it for a human to read: under
        NAME+suffix, or NAME+suffix-2... when an earlier one already has that name. A new
        empty journal is opened in its place unless `reopen` is false."""
        dest = jdir.set_aside(self._dfd, self.path.name, self.path.name + suffix)
        os.close(self._fd)
        self._fd = -1
        if reopen:
            self._fd, _ = self._open()
        self._sync_dir()
        return self.directory / dest

    def release(self) -> None:
        """Close the file and drop the lock; the journal stays on disk for `tuitune restore`."""
        if self._lock_fd >= 0 and self._lock_dfd >= 0:  # removed while still held
            name = f"{self.host}.lock"
            if _named(self._lock_fd, self._lock_dfd, name):
                with contextlib.suppress(OSError):
                    os.unlink(name, dir_fd=self._lock_dfd)
        for name in ("_fd", "_lock_fd", "_lock_dfd", "_dfd"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)
