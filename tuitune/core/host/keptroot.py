"""The live host's per-tick files kept open from one tick to the next (issue 38).

A tick of the live screen reads the same ten small files (/proc/stat, /proc/softirqs, the
kernel thread's /proc/net/softnet_stat and /proc/net/dev, the NIC's rx_missed_errors and its
IRQs' per_cpu_count, the CPU lists); opening and closing each cost more than reading it
(posix.open was the kernel thread's largest own-time item, pathlib's path building next).
A /proc seq_file and a sysfs (kernfs) attribute format their text afresh for a read at offset
0 (fs/seq_file.c resets its iterator there), so an fd kept open and read again with pread from
0 gives what a fresh open gives; paths are plain strings, built once a read.

Only for the live host: a --root tree's files are replaced by rename between ticks (tests,
a capture being written), and a kept fd would go on reading the old one. Only on the thread
that reads them, the host's kernel thread: /proc/thread-self/net/* is that thread's network
namespace, and an fd keeps the namespace it was opened in, which is the one wanted (the thread
never leaves it).

A kept fd that fails to read is closed and the file opened again once: a device that went away
answers ENODEV on its old fd, and the fresh open then says what it always said (ENOENT: gone).
A device that goes and comes back under the same name leaves a working fd on the old one, so
the holder (HostReader) drops every fd with `forget` when the tick's interface or IRQs change,
at every whole tick (a device event forces one) and when it closes.
"""

from __future__ import annotations

import os
from pathlib import Path

from tuitune.core.host.root import (
    SMALL_FILE,
    HostRoot,
    KernelFileError,
    decode_text,
    fill_from_fd,
    open_bounded,
    span_of_fd,
)
from tuitune.core.values import Unavailable, from_oserror

__all__ = ["KeptRoot", "keeps_files"]

# The files of one tick: a NIC with hundreds of queue IRQs keeps at most this many open (the
# process may be allowed only 1024); the others are opened for each read, as before.
MAX_KEPT = 256


def keeps_files(root: HostRoot) -> bool:
    """Whether a KeptRoot may stand for `root`: the live host, read as HostRoot reads it."""
    return type(root) is HostRoot and root.live and root.jail is None


class KeptRoot(HostRoot):
    """`root` whose proc_text, net_text, sys_text and proc_span keep their files open (module
    docstring). Used by one thread only; `forget` closes every kept fd."""

    __slots__ = ("_buf", "_fds", "_proc_dir", "_sys_dir")

    def __init__(self, root: HostRoot) -> None:
        if not keeps_files(root):
            raise ValueError("only the live host's files are kept open")
        super().__init__(root.proc, root.sys, root.netns, root.live, root.etc, root.jail)
        object.__setattr__(self, "_fds", {})  # path -> fd
        object.__setattr__(self, "_buf", bytearray(1 << 12))  # kept: grown to the largest file
        object.__setattr__(self, "_proc_dir", str(root.proc))
        object.__setattr__(self, "_sys_dir", str(root.sys))

    _fds: dict[str, int]
    _buf: bytearray
    _proc_dir: str
    _sys_dir: str

    def kept(self) -> int:
        """How many fds are kept open now."""
        return len(self._fds)

    def forget(self) -> None:
        """Close every kept fd: the next read of each file opens it afresh."""
        fds = list(self._fds.values())
        self._fds.clear()
        for fd in fds:
            os.close(fd)

    # -- HostRoot's tick reads, through kept fds ----------------------------------------------
    def proc_text(self, rel: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return self._text(f"{self._proc_dir}/{rel}", f"/proc/{rel}", limit)

    def net_text(self, rel: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return self._text(f"{self._proc_dir}/{self._net_rel(rel)}", f"/proc/net/{rel}", limit)

    def sys_text(self, rel: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return self._text(f"{self._sys_dir}/{rel}", f"/sys/{rel}", limit)

    def proc_span(self, rel: str, offset: int, size: int) -> str | Unavailable:
        if offset < 0 or not 0 < size <= SMALL_FILE:
            return super().proc_span(rel, offset, size)  # refused (or huge) as before
        path, what = f"{self._proc_dir}/{rel}", f"/proc/{rel}"
        try:
            fd = self._fd(path, what, SMALL_FILE)
            if fd is None:
                return super().proc_span(rel, offset, size)
            try:
                return span_of_fd(fd, what, offset, size)
            except OSError:
                self._drop(path)
                fd = self._fd(path, what, SMALL_FILE)  # once more, opened afresh
                if fd is None:
                    return super().proc_span(rel, offset, size)
                return span_of_fd(fd, what, offset, size)
        except KernelFileError as exc:
            return exc.state
        except OSError as exc:
            return from_oserror(exc, what)

    # -- the kept fds ---------------------------------------------------------------------------
    def _text(self, path: str, what: str, limit: int) -> str | Unavailable:
        try:
            fd = self._fd(path, what, limit)
            if fd is None:  # MAX_KEPT reached: read as HostRoot does
                return self.read_file(Path(path), what, limit)
            try:
                n = fill_from_fd(fd, what, self._buf, limit, 1, pread=True)
            except OSError:
                self._drop(path)
                fd = self._fd(path, what, limit)  # once more, opened afresh
                if fd is None:
                    return self.read_file(Path(path), what, limit)
                n = fill_from_fd(fd, what, self._buf, limit, 1, pread=True)
            return decode_text(self._buf[:n], what)
        except KernelFileError as exc:
            return exc.state
        except OSError as exc:
            return from_oserror(exc, what)

    def _fd(self, path: str, what: str, limit: int) -> int | None:
        """The kept fd of `path`, opened (as read_text opens it) when it is not yet; None when
        MAX_KEPT are kept already. Raises OSError as the open does."""
        fd = self._fds.get(path)
        if fd is None and len(self._fds) < MAX_KEPT:
            fd = self._fds[path] = open_bounded(Path(path), what, limit, self.jail)
        return fd

    def _drop(self, path: str) -> None:
        fd = self._fds.pop(path, None)
        if fd is not None:
            os.close(fd)
