"""Files written (and read) without following a link another user made.

tuitune runs as root, and a directory it writes into may be one another user can reach (an
`--out DIR`, a home, /tmp, a recorded host tree). Every file tuitune writes goes through here:

  - A directory is opened once, walking its path one component at a time (openat with
    O_NOFOLLOW). A link on the way is followed only when nobody but us could have made it
    (root's, or ours, in a directory that passes the rule below); any other is refused.
  - The directory is checked once (`dir_problem`); every later step is relative to its fd
    (openat, renameat, fchmod), so replacing the path under us afterwards changes nothing.
  - A file is written under a random name made O_CREAT|O_EXCL|O_NOFOLLOW, fsynced, renamed
    over the target. A target that is a link, a directory or a device is refused.
  - A backup reads the old file O_NOFOLLOW (a regular file only), writes the copy O_EXCL
    with the old file's owner and mode (a set-group-ID directory does not hand it to its
    group). Modes are set with fchmod on the fd, never by path.

The rule for a directory written into (`dir_problem`):
  as root: owned by root; not writable by its group or others unless sticky (in /tmp O_EXCL
    and the sticky bit keep others' names apart); not set-group-ID to a group other than
    root's. A directory a user owns (their $HOME, an --out they made) is refused: they could
    swap its entries under us, so root writes there only after `chown root`.
  as a plain user: owned by us or root; not writable by others unless sticky (writable by
    its group is allowed: user-private groups with umask 002 make every directory so).

Every failure is an `FsError` (an OSError): `filename` the path, `strerror` the reason, and
str() one line, "PATH: REASON". `UnsafePath` is the subclass for a refusal on these grounds.
"""

from __future__ import annotations

import contextlib
import errno
import grp
import os
import pwd
import stat
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from tuitune.core.closing import Closing

MAX_LINKS = 40  # the kernel's own limit on links in one lookup
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
_NEW = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO planted at the name must not hang the open; it is refused after fstat.
_OLD = os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK | os.O_NOCTTY


class FsError(OSError):
    """A file could not be read or written safely; str() is "PATH: REASON", one line."""

    def __init__(self, path: object, reason: str, err: int | None = None) -> None:
        super().__init__(reason)
        self.errno = err  # None when it is our refusal
        self.strerror = reason
        self.filename = str(path)

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


class UnsafePath(FsError):
    """Refused: following or writing it would let another user choose where or what."""


def _who(uid: int) -> str:
    with contextlib.suppress(KeyError):
        return f"{pwd.getpwuid(uid).pw_name} (uid {uid})"
    return f"uid {uid}"


def _group(gid: int) -> str:
    with contextlib.suppress(KeyError):
        return f"{grp.getgrgid(gid).gr_name} (gid {gid})"
    return f"gid {gid}"


_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
}


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _join(shown: str, name: str) -> str:
    return name if not shown else shown.rstrip("/") + "/" + name


def _wrap(exc: OSError, shown: object) -> FsError:
    return exc if isinstance(exc, FsError) else FsError(shown, exc.strerror or "", exc.errno)


def owner_ok(uid: int) -> bool:
    """Root's files, and ours: nobody else could have made them."""
    return uid in (0, os.geteuid())


def dir_problem(st: os.stat_result) -> str | None:
    """Why a directory with this stat is not one we write into (None: it is). The rule is the
    module docstring's."""
    euid = os.geteuid()
    if not owner_ok(st.st_uid):
        if euid == 0:
            return (
                f"owned by {_who(st.st_uid)}, not root: as root, tuitune writes only into "
                "directories root owns (chown it to root, or choose another)"
            )
        return f"owned by {_who(st.st_uid)}, neither you nor root"
    mode = stat.S_IMODE(st.st_mode)
    loose = mode & (0o022 if euid == 0 else 0o002)
    if loose and not mode & stat.S_ISVTX:
        who = "others" if loose == 0o002 else "its group" if loose == 0o020 else "group and others"
        return (
            f"writable by {who} (mode {mode:04o}) without the sticky bit: another user could "
            "put links there"
        )
    if mode & stat.S_ISGID and st.st_gid not in (0, os.getegid()):
        return f"set-group-ID to {_group(st.st_gid)}: files made there would belong to that group"
    return None


def _split(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _lstat(dir_fd: int, name: str) -> os.stat_result | None:
    try:
        return os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def _may_follow(dir_fd: int, link: os.stat_result, shown: str) -> None:
    """Raise unless the link is one nobody but us could have put there."""
    if not owner_ok(link.st_uid):
        raise UnsafePath(shown, f"a symbolic link owned by {_who(link.st_uid)}: not followed")
    if dir_problem(os.fstat(dir_fd)) is not None:
        raise UnsafePath(shown, "a symbolic link in a directory others can write: not followed")


def _walk(
    path: str, *, create: bool, mode: int, base: int | None = None, shown: str = ""
) -> tuple[int, str]:
    """An fd of the directory at `path` (a relative one from `base`, else from the current
    directory), walked one component at a time, and the path to name it by in messages
    (`shown`: how to name `base`)."""
    if path.startswith("/"):
        cur, shown = os.open("/", _DIR), "/"
    else:
        cur = os.open(".", _DIR) if base is None else os.dup(base)
    todo = _split(path)
    links = 0
    try:
        while todo:
            name = todo.pop(0)
            here = _join(shown, name)
            if name == "..":
                nxt = os.open("..", _DIR, dir_fd=cur)
            else:
                st = _lstat(cur, name)
                if st is None and create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, mode, dir_fd=cur)
                    st = _lstat(cur, name)
                if st is None:
                    raise FsError(here, "no such directory", errno.ENOENT)
                if stat.S_ISLNK(st.st_mode):
                    links += 1
                    if links > MAX_LINKS:
                        raise FsError(here, "too many levels of symbolic links", errno.ELOOP)
                    _may_follow(cur, st, here)
                    target = os.readlink(name, dir_fd=cur)
                    if target.startswith("/"):
                        nxt, shown = os.open("/", _DIR), "/"
                        os.close(cur)
                        cur = nxt
                    todo[:0] = _split(target)
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    raise FsError(here, f"{_kind(st.st_mode)}, not a directory", errno.ENOTDIR)
                nxt = os.open(name, _DIR, dir_fd=cur)  # O_NOFOLLOW: a link swapped in fails
            os.close(cur)
            cur, shown = nxt, here
    except OSError as exc:
        os.close(cur)
        raise _wrap(exc, shown or ".") from None
    return cur, shown or "."


class SafeDir(Closing):
    """An open directory; every method works on names in it, never on paths. `checked`: it
    passed `dir_problem` (only such a directory is written into)."""

    def __init__(self, fd: int, path: Path, checked: bool) -> None:
        self.fd, self.path, self.checked = fd, path, checked

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def shown(self, name: str) -> str:
        return str(self.path / name)

    def lstat(self, name: str) -> os.stat_result | None:
        """The entry itself (a link is not followed); None when there is none."""
        with _about(self.shown(name)):
            return _lstat(self.fd, name)

    def _writable(self) -> None:
        if not self.checked:
            problem = dir_problem(os.fstat(self.fd))
            raise UnsafePath(self.path, problem or "not checked for writing")

    def open_existing(self, name: str, flags: int = os.O_RDONLY) -> int | None:
        """`name` opened when it is a regular file (None when absent): a link, a directory, a
        device or a FIFO is refused, and so is a file with a second name (a hard link) in a
        directory others can write, which could be any file on the file system."""
        shown = self.shown(name)
        try:
            # O_PATH opens only the name: no device is opened (opening /dev/watchdog arms it),
            # no FIFO waited on; the inode checked here is the one reopened.
            handle = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=self.fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _wrap(exc, shown) from None
        try:
            st = os.fstat(handle)
            if stat.S_ISLNK(st.st_mode):
                raise UnsafePath(shown, "a symbolic link: not followed")
            if not stat.S_ISREG(st.st_mode):
                raise FsError(shown, f"{_kind(st.st_mode)}, not a file")
            fd = os.open(f"/proc/self/fd/{handle}", flags | _OLD & ~os.O_NOFOLLOW)
        except OSError as exc:
            raise _wrap(exc, shown) from None
        finally:
            os.close(handle)
        if (links := os.fstat(fd).st_nlink) > 1 and not self.checked:
            os.close(fd)
            why = f"a file with {links} names (hard links) in a directory others can write"
            raise UnsafePath(shown, why)
        with contextlib.suppress(OSError):  # reads are blocking again (O_NONBLOCK was for open)
            os.set_blocking(fd, True)
        return fd

    def read(self, name: str, limit: int) -> bytes | None:
        """The file's bytes (None when absent); more than `limit` bytes is an error."""
        fd = self.open_existing(name)
        if fd is None:
            return None
        try:
            data = bytearray()
            with _about(self.shown(name)):
                while len(data) <= limit and (
                    chunk := os.read(fd, min(1 << 20, limit + 1 - len(data)))
                ):
                    data += chunk
        finally:
            os.close(fd)
        if len(data) > limit:
            raise FsError(self.shown(name), f"larger than {limit} bytes: not read")
        return bytes(data)

    def create(self, name: str, mode: int, *, umask: bool = False) -> int:
        """A new file (O_EXCL|O_NOFOLLOW: never an existing file or link) open for writing,
        with `mode` set by fchmod, or given to open() for the umask to trim (`umask`)."""
        self._writable()
        with _about(self.shown(name)):
            fd = os.open(name, _NEW, mode if umask else 0o600, dir_fd=self.fd)
            try:
                if not umask:
                    os.fchmod(fd, mode)
            except OSError:
                os.close(fd)
                self._drop(name)
                raise
        return fd

    def _drop(self, name: str) -> None:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=self.fd)

    def _target(self, name: str) -> os.stat_result | None:
        """What is at `name` now, refused unless nothing or a regular file."""
        st = self.lstat(name)
        if st is None or stat.S_ISREG(st.st_mode):
            return st
        if stat.S_ISLNK(st.st_mode):
            why = "a symbolic link: not replaced (tuitune writes only files; remove the link)"
            raise UnsafePath(self.shown(name), why)
        raise FsError(self.shown(name), f"{_kind(st.st_mode)}, not a file: not replaced")

    def write_atomic(self, name: str, data: bytes, mode: int | None = 0o644) -> None:
        """Replace `name` with `data` in one rename: a reader sees the old file or the new one.
        `mode` None: the old file's permissions, else 0o666 trimmed by the umask. The
        temporary name starts with "." and ends in ".tmp", which udev, systemd-sysctl and
        systemd skip."""
        self._writable()
        old = self._target(name)
        if mode is None and old is not None:
            mode = stat.S_IMODE(old.st_mode) & 0o777
        # Here, not at the top: secrets brings hashlib and OpenSSL's digests, about 1 MB that
        # the live screen's start never needs (issue 38).
        import secrets

        tmps = (f".{name[:200]}.{secrets.token_hex(4)}.tmp" for _ in range(100))
        fd, tmp = self._new(name, tmps, 0o666 if mode is None else mode, umask=mode is None)
        try:
            with _about(self.shown(name)):
                try:
                    _write_all(fd, data)
                    os.fsync(fd)
                finally:
                    os.close(fd)
                os.replace(tmp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            self._drop(tmp)
            raise
        self.sync()

    def backup(self, name: str, when: float | None = None) -> str | None:
        """Copy `name` aside as NAME.tuitune-bak-YYYYmmdd-HHMMSS (then .1, .2, ... past a name
        that exists, whatever it is: O_EXCL never writes through it), with the old file's
        owner and mode. The new name, or None when there is no file to copy."""
        self._writable()
        self._target(name)
        src = self.open_existing(name)
        if src is None:
            return None
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(when))
        names = (f"{name}.tuitune-bak-{stamp}" + (f".{n}" if n else "") for n in range(1000))
        try:
            with _about(self.shown(name)):
                st = os.fstat(src)
                dst, copy = self._new(name, names, 0o600)
                try:
                    while chunk := os.read(src, 1 << 20):
                        _write_all(dst, chunk)
                    if os.geteuid() == 0:  # whoever could read the old file, and no one else
                        os.fchown(dst, st.st_uid, st.st_gid)
                    os.fchmod(dst, stat.S_IMODE(st.st_mode) & 0o777)
                    os.fsync(dst)
                except BaseException:
                    self._drop(copy)
                    raise
                finally:
                    os.close(dst)
        finally:
            os.close(src)
        return copy

    def _new(
        self, about: str, names: Iterable[str], mode: int, *, umask: bool = False
    ) -> tuple[int, str]:
        """The first of `names` that can be created (`create`), and the name."""
        for candidate in names:
            try:
                return self.create(candidate, mode, umask=umask), candidate
            except FsError as exc:
                if exc.errno != errno.EEXIST:  # said of the file it is for, not a temporary
                    raise FsError(self.shown(about), exc.strerror or "", exc.errno) from None
        raise FsError(self.shown(about), "no free name for a new file beside it")

    def open_or_create(self, name: str, flags: int, mode: int, *, umask: bool = False) -> int:
        """`name` opened with `flags` (O_WRONLY|O_APPEND, O_RDWR, ...): created O_EXCL when
        absent, else opened when it is a regular file with one name that root or we own (a
        file another user owns could be theirs to swap or to hold)."""
        self._writable()
        with _about(self.shown(name)), contextlib.suppress(FileExistsError):
            new = (_NEW & ~os.O_WRONLY) | flags
            fd = os.open(name, new, mode if umask else 0o600, dir_fd=self.fd)
            if not umask:
                os.fchmod(fd, mode)
            return fd
        self._target(name)
        old = self.open_existing(name, flags)
        if old is None:
            raise FsError(self.shown(name), "removed while it was opened", errno.ENOENT)
        st = os.fstat(old)
        if owner_ok(st.st_uid) and st.st_nlink == 1:
            return old
        os.close(old)
        if not owner_ok(st.st_uid):
            raise UnsafePath(self.shown(name), f"owned by {_who(st.st_uid)}: not used (remove it)")
        raise UnsafePath(self.shown(name), f"a file with {st.st_nlink} names (hard links)")

    def sync(self) -> None:
        """The directory's entries on disk (after a rename)."""
        with _about(self.path):
            os.fsync(self.fd)


@contextlib.contextmanager
def _about(shown: object) -> Iterator[None]:
    """An OSError inside becomes an FsError about `shown`."""
    try:
        yield
    except OSError as exc:
        raise _wrap(exc, shown) from None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def open_dir(path: Path | str, *, create: bool = False, mode: int = 0o755) -> SafeDir:
    """The directory at `path` to write into: walked without following another user's
    links, made (with `mode`, and its missing parents) when `create`, and checked by the
    rule of `dir_problem` (UnsafePath when it fails)."""
    fd, shown = _walk(os.fspath(path), create=create, mode=mode)
    problem = dir_problem(os.fstat(fd))
    if problem is not None:
        os.close(fd)
        raise UnsafePath(shown, problem)
    return SafeDir(fd, Path(path), True)


def locate(
    path: Path | str, *, write: bool, follow: bool, create: bool = False, mode: int = 0o755
) -> tuple[SafeDir, str]:
    """The directory holding `path` and the file's name in it. `follow`: a last component that
    is a link nobody but us could have made is followed (dotfiles kept elsewhere); any other
    link is left for the caller to refuse. `write`: the directory must pass `dir_problem`."""
    p = os.fspath(path)
    base: int | None = None  # after a link: its directory, where a relative target starts
    shown = ""
    try:
        for _ in range(MAX_LINKS):
            head, name = os.path.split(p)
            if name in ("", ".", ".."):
                raise FsError(path, "not a file name")
            fd, shown = _walk(head, create=create, mode=mode, base=base, shown=shown)
            if base is not None:
                os.close(base)
            base = None
            d = SafeDir(fd, Path(shown), False)
            st = d.lstat(name) if follow else None
            if st is None or not stat.S_ISLNK(st.st_mode):
                problem = dir_problem(os.fstat(fd))
                if write and problem is not None:
                    d.close()
                    raise UnsafePath(shown, problem)
                d.checked = problem is None
                return d, name
            try:
                _may_follow(fd, st, d.shown(name))
                p = os.readlink(name, dir_fd=fd)
            except BaseException:
                d.close()
                raise
            base = fd
        raise FsError(path, "too many levels of symbolic links", errno.ELOOP)
    except OSError as exc:
        if base is not None:
            os.close(base)
        raise _wrap(exc, path) from None


def read_file(path: Path | str, limit: int, *, follow: bool = True) -> bytes | None:
    """The bytes of the regular file at `path` (None when it does not exist), reached without
    following another user's links; more than `limit` bytes is an error."""
    try:
        d, name = locate(path, write=False, follow=follow)
    except FsError as exc:
        if exc.errno == errno.ENOENT:
            return None  # a missing directory: no file either
        raise
    with d:
        return d.read(name, limit)


def write_file(path: Path | str, data: bytes, mode: int | None = 0o644, *, follow: bool) -> None:
    """Replace the file at `path` atomically (`SafeDir.write_atomic`), its directory made
    first when missing. `follow`: as for `locate`."""
    d, name = locate(path, write=True, follow=follow, create=True)
    with d:
        d.write_atomic(name, data, mode)


def append_file(path: Path | str, data: bytes, mode: int = 0o644, *, follow: bool = True) -> None:
    """Append `data` with one write(2) (O_APPEND keeps concurrent writers' lines apart); the
    file (and its directory) made when missing, `mode` trimmed by the umask."""
    d, name = locate(path, write=True, follow=follow, create=True)
    with d:
        fd = d.open_or_create(name, os.O_WRONLY | os.O_APPEND, mode, umask=True)
        try:
            with _about(d.shown(name)):
                _write_all(fd, data)
        finally:
            os.close(fd)
