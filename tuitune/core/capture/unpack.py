"""A capture (tar.gz) back into a directory `HostRoot.fixture` reads: hostile input.

A capture may come from anyone (a bug report, a shared directory), and root unpacks it. So:
the archive is read through `fsutil` (no link of another user, a regular file, bounded); the
gzip stream is cut at UNPACKED_MAX bytes whatever the headers claim (a bomb stops there, pax
headers included); at most MEMBERS_MAX members; each name relative, without `..`, empty or
odd parts, under the capture's own tops; only files, directories and links, each link's target
relative and inside the tree; nothing else (no hard link, device, FIFO). Members are written
by tuitune itself (not `extractall`) into a new private directory (0700), files first and
links last, so that no write goes through a link the archive made; a name twice is refused.
Every refusal is one line naming the archive and the member.
"""

from __future__ import annotations

import atexit
import gzip
import io
import os
import posixpath
import shutil
import tarfile
import tempfile
from pathlib import Path

from tuitune.core import fsutil
from tuitune.core.docfile import DocumentError, shown
from tuitune.core.text import printable

ARCHIVE_MAX = 512 << 20  # compressed
UNPACKED_MAX = 2 << 30  # every byte the gzip stream gives, headers included
MEMBERS_MAX = 200_000  # a 1152-CPU host's capture is ~60k
NAME_MAX = 1024
TOPS = ("proc", "sys", "etc", "ethtool", "manifest.json", "recording.rec")


class CaptureError(DocumentError):
    """An archive refused; str() is one line naming it (and the member)."""


class _Bounded(io.RawIOBase):
    """The decompressed stream, refused past `limit` bytes."""

    def __init__(self, inner: gzip.GzipFile, limit: int, name: str) -> None:
        self.inner, self.left, self.name = inner, limit, name

    def readable(self) -> bool:
        return True

    def readinto(self, b: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(min(len(b), self.left + 1))
        if len(data) > self.left:
            raise CaptureError(f"{self.name}: unpacks to more than {UNPACKED_MAX >> 20} MiB")
        self.left -= len(data)
        b[: len(data)] = data
        return len(data)


def is_capture(path: Path) -> bool:
    """A --root that names a regular file (not a tree directory): read as a capture. Anything
    else (a directory, nothing, a FIFO) is for the tree check to name."""
    return path.is_file()


def _name_problem(name: str) -> str | None:
    if not name or len(name) > NAME_MAX or "\0" in name or "\\" in name:
        return "not a name tuitune writes"
    if name.startswith("/"):
        return "an absolute path"
    parts = name.rstrip("/").split("/")
    if any(p in ("", ".", "..") for p in parts):
        return "a path with '..' or empty parts"
    if parts[0] not in TOPS:
        return "not a part of a capture"
    return None


def _link_problem(name: str, target: str) -> str | None:
    if not target or target.startswith("/") or "\0" in target or len(target) > NAME_MAX:
        return "a link out of the tree"
    where = posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
    if where == ".." or where.startswith("../"):
        return "a link out of the tree"
    return None


def unpack(archive: Path, into: Path) -> None:
    """Unpack `archive` into the new, empty, private directory `into` (CaptureError)."""
    name = shown(archive)
    try:
        data = fsutil.read_file(archive, ARCHIVE_MAX, follow=True)
    except OSError as exc:
        raise CaptureError(printable(exc)) from None
    if data is None:
        raise CaptureError(f"{name}: no such file")
    links: list[tuple[str, str]] = []
    seen: set[str] = set()
    stream = _Bounded(gzip.GzipFile(fileobj=io.BytesIO(data)), UNPACKED_MAX, name)
    try:
        with tarfile.open(fileobj=io.BufferedReader(stream), mode="r|") as tar:
            for count, member in enumerate(tar, 1):
                if count > MEMBERS_MAX:
                    raise CaptureError(f"{name}: more than {MEMBERS_MAX} members")
                _member(tar, member, into, name, seen, links)
    except (tarfile.TarError, EOFError, OSError, gzip.BadGzipFile, ValueError) as exc:
        if isinstance(exc, CaptureError):
            raise
        raise CaptureError(f"{name}: not a capture (tar.gz): {printable(exc, 120)}") from None
    for rel, target in links:  # last: no file above was written through one
        try:
            os.symlink(target, into / rel)
        except OSError as exc:
            raise CaptureError(f"{name}: {printable(rel, 200)}: {exc.strerror}") from None


def _member(
    tar: tarfile.TarFile,
    m: tarfile.TarInfo,
    into: Path,
    name: str,
    seen: set[str],
    links: list[tuple[str, str]],
) -> None:
    rel = m.name.rstrip("/")
    what = f"{name}: {printable(m.name, 200)}"
    problem = _name_problem(m.name)
    if problem is not None:
        raise CaptureError(f"{what}: {problem}")
    if rel in seen:
        raise CaptureError(f"{what}: twice in the archive")
    seen.add(rel)
    parent = posixpath.dirname(rel)
    if parent and parent not in seen:
        raise CaptureError(f"{what}: its directory comes after it (not a capture tuitune wrote)")
    if m.isdir():
        os.mkdir(into / rel, 0o755)
    elif m.issym():
        problem = _link_problem(rel, m.linkname)
        if problem is not None:
            raise CaptureError(f"{what}: {problem}")
        links.append((rel, m.linkname))
    elif m.isreg():
        src = tar.extractfile(m)
        if src is None:
            raise CaptureError(f"{what}: unreadable")
        fd = os.open(into / rel, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        # Its mode says whether a module parameter could be written; never set-id, never
        # writable by group or others.
        os.fchmod(fd, m.mode & 0o755)
        with os.fdopen(fd, "wb") as out:
            shutil.copyfileobj(src, out)
    else:
        raise CaptureError(f"{what}: a {_kind(m)}, not a file, directory or link")


def _kind(m: tarfile.TarInfo) -> str:
    if m.islnk():
        return "hard link"
    if m.ischr() or m.isblk():
        return "device"
    if m.isfifo():
        return "FIFO"
    return "special member"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's now (a pid used again): its directory waits
    return True


def _private_parent(where: Path | None) -> Path | None:
    """`where`, made 0700 if missing, when it is ours alone (nobody else can put or
    remove anything in it); None otherwise."""
    if where is None:
        return None
    try:
        fsutil.open_dir(where.parent, create=True).close()  # /run/tuitune as its users make it
        with fsutil.open_dir(where, create=True, mode=0o700) as d:
            st = os.fstat(d.fd)
    except OSError:
        return None
    return where if st.st_uid == os.geteuid() and not st.st_mode & 0o077 else None


def sweep(parent: Path) -> list[str]:
    """Remove the unpack directories in `parent` whose process is gone (killed by SIGKILL,
    or a crash: no atexit ran); the names removed."""
    gone = []
    for name in sorted(os.listdir(parent)):
        pid = name.split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and not _alive(int(pid)):
            shutil.rmtree(parent / name, ignore_errors=True)
            gone.append(name)
    return gone


def unpacked(archive: Path, parent: Path | None = None) -> Path:
    """`archive` unpacked into a new private directory, removed when tuitune exits; named
    by this process's pid under paths.unpack_dir(), where the ones of processes gone (a
    SIGKILL skips atexit) are swept first."""
    from tuitune.core import paths

    home = _private_parent(parent or paths.unpack_dir())
    if home is not None:
        sweep(home)
    where = None if home is None else str(home)
    work = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-" if home else "tuitune-root-", dir=where))
    atexit.register(shutil.rmtree, work, True)
    try:
        unpack(archive, work)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return work
