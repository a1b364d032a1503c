"""Where journals live, checked before anything in it is trusted.

A journal decides what root writes into the kernel on `tuitune restore` (a service record even
names a program to start), so a journal someone else could have written is never read, and a
directory someone else could write into is never used. The rules, for every journal directory
(the default /run/tuitune, or --journal-dir) and every file in it:

- the directory and its files belong to the user running tuitune (root, as a rule) and nobody
  else can write them: not owned by another uid, no group or other write bit (a 1777 /tmp is
  refused, not "fixed": tuitune never changes the mode of a directory it did not create);
- the directory is opened once, without following a link in its last component, and every
  file is then opened relative to that descriptor, again without following links (a file is
  created with O_EXCL): renaming or replacing the path afterwards changes nothing;
- only the last component is created (mode 0700); its parent must already exist. The parent
  path may go through links (/var/run -> /run): a parent another user controls can only swap
  the journal directory for one of their own, which the checks above refuse.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path

from tuitune.core.paths import RUN_DIR

DEFAULT_DIR = RUN_DIR  # one place for it: core/paths.py
# The one-writer locks of the live host and its namespaces, whatever --journal-dir says: two
# journal directories must not let two tuitunes change one host. (Recorded host trees are not
# a shared host: their lock stays beside their journal.)
LOCK_DIR = DEFAULT_DIR


class JournalError(Exception):
    """The journal cannot be used (directory not creatable, unsafe, unreadable)."""


class JournalWriteError(JournalError):
    """An append failed (a full disk): nothing of it is on disk."""


def why(exc: OSError) -> str:
    """The reason of a failed file operation, in a few words."""
    if isinstance(exc, PermissionError) and os.geteuid() != 0:
        return "needs root"
    return exc.strerror or str(exc)


def _untrusted(what: str, st: os.stat_result) -> str | None:
    """Why a directory or file with this owner and mode cannot be trusted (None: it can)."""
    me = os.geteuid()
    if st.st_uid != me:
        if me != 0 and st.st_uid == 0:
            return f"{what} belongs to root: it needs root"
        owner = "root" if me == 0 else "this user"
        return (
            f"{what} belongs to uid {st.st_uid}, not to {owner}: another user could have "
            "written it; tuitune does not use it"
        )
    if st.st_mode & 0o022:
        mode = oct(stat.S_IMODE(st.st_mode))[2:]
        return (
            f"{what} is writable by others (mode {mode}): tuitune keeps journals only where "
            "nobody else can write"
        )
    return None


def open_dir(directory: Path, *, create: bool) -> int | None:
    """A descriptor of `directory`, checked as the module says; None when it does not exist
    and `create` is false. Raises JournalError with a one-line reason."""
    path = Path(os.path.abspath(directory))
    parent, name = path.parent, path.name
    if not name:  # "/": nothing to create, only to check
        parent, name = path, "."
    try:
        pfd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        if not create:
            return None
        raise JournalError(f"cannot use {path}: {parent} does not exist") from None
    except OSError as exc:
        raise JournalError(f"cannot use {path}: {parent}: {why(exc)}") from exc
    try:
        if create:
            try:
                os.mkdir(name, 0o700, dir_fd=pfd)
            except FileExistsError:
                pass
            except OSError as exc:
                msg = f"cannot create the journal directory {path}: {why(exc)}"
                raise JournalError(msg) from exc
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
        try:
            fd = os.open(name, flags, dir_fd=pfd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                kind = "a symbolic link" if exc.errno == errno.ELOOP else "not a directory"
                raise JournalError(f"{path} is {kind}: not used as a journal directory") from exc
            raise JournalError(f"cannot open the journal directory {path}: {why(exc)}") from exc
    finally:
        os.close(pfd)
    problem = _untrusted(str(path), os.fstat(fd))
    if problem is not None:
        os.close(fd)
        raise JournalError(problem)
    return fd


def open_in(dfd: int, name: str, flags: int, where: Path) -> int | None:
    """Open file `name` of a checked directory without following a link, and check it like
    the directory. None when it does not exist (and O_CREAT is not in `flags`)."""
    path = where / name
    try:
        fd = os.open(name, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, 0o600, dir_fd=dfd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise JournalError(f"{path} is a symbolic link: not followed") from exc
        raise JournalError(f"cannot open {path}: {why(exc)}") from exc
    st = os.fstat(fd)
    problem = None if stat.S_ISREG(st.st_mode) else f"{path} is not a regular file"
    problem = problem or _untrusted(str(path), st)
    if problem is not None:
        os.close(fd)
        raise JournalError(problem)
    # Back to blocking: O_NONBLOCK was only there so that a FIFO could not hang the open.
    os.set_blocking(fd, True)
    return fd


def create_in(dfd: int, name: str, flags: int, where: Path) -> tuple[int, bool]:
    """Open `name` for writing, created 0600 with O_EXCL if absent (never through a link),
    else the existing file, checked. Returns (fd, created)."""
    path = where / name
    try:
        fd = os.open(
            name, flags | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=dfd
        )
        return fd, True
    except FileExistsError:
        pass
    except OSError as exc:
        raise JournalError(f"cannot create {path}: {why(exc)}") from exc
    fd_or_none = open_in(dfd, name, flags, where)
    if fd_or_none is None:  # removed in between: only another tuitune of ours would do that
        raise JournalError(f"cannot open {path}: it vanished while being opened")
    return fd_or_none, False


def read_in(directory: Path, name: str) -> bytes | None:
    """The content of `name` in a checked `directory`; None when either does not exist."""
    dfd = open_dir(directory, create=False)
    if dfd is None:
        return None
    try:
        fd = open_in(dfd, name, os.O_RDONLY, Path(os.path.abspath(directory)))
    finally:
        os.close(dfd)
    if fd is None:
        return None
    try:
        with os.fdopen(fd, "rb", closefd=False) as f:
            return f.read()
    except OSError as exc:
        raise JournalError(f"cannot read {directory / name}: {why(exc)}") from exc
    finally:
        os.close(fd)


def names_in(directory: Path, suffix: str) -> list[str] | None:
    """The names ending in `suffix` in a checked `directory` (None: it does not exist)."""
    dfd = open_dir(directory, create=False)
    if dfd is None:
        return None
    try:
        return sorted(n for n in os.listdir(dfd) if n.endswith(suffix))
    except OSError as exc:
        raise JournalError(f"cannot list {directory}: {why(exc)}") from exc
    finally:
        os.close(dfd)


def unused_name(dfd: int, base: str) -> str:
    """`base`, or `base-2`, `base-3`... : the first name not taken in the directory."""
    name, n = base, 1
    while True:
        try:
            os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            return name
        n += 1
        name = f"{base}-{n}"


def set_aside(dfd: int, name: str, dest: str) -> str:
    """Rename `name` to an unused name starting with `dest`, never over an existing file (a
    link then an unlink: a rename would silently replace what an earlier set-aside kept)."""
    while True:
        target = unused_name(dfd, dest)
        try:
            os.link(name, target, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
        except FileExistsError:
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(name, dir_fd=dfd)
        return target
