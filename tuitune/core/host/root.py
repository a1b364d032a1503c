"""One root object for every kernel path, so tests and --root read a fixture tree instead.

Every read of a kernel file (or a recorded tree's file) goes through `read_kernel_file`: a
refusal, a missing file, a directory or a loop where a file should be, bytes that are not
UTF-8, a file larger than its bound, or a link out of a --root tree all become an
`Unavailable`. A --root tree is another user's: it may hold links to root-only files, FIFOs,
devices or endless files, and tuitune reads it as root.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from tuitune.core.values import Unavailable, from_oserror

T = TypeVar("T")

# A one-value file (a sysfs attribute is one page, a sysctl a few bytes; a cpulist of 8192
# CPUs a few KB). Text beyond this is not a kernel value.
SMALL_FILE = 1 << 20
# /proc/interrupts is 13 MB on a 1152-CPU host; this leaves room for about 5000 CPUs. A bigger
# file in a --root tree is refused rather than read into memory.
BIG_FILE = 64 << 20


class KernelFileError(OSError):
    """A kernel file that could not be read for a reason other than the kernel's own errno
    (not UTF-8, too large, a link out of the tree). An OSError, so that callers which already
    treat a refusal as a state treat this one the same way."""

    def __init__(self, state: Unavailable) -> None:
        super().__init__(errno.EIO, state.reason)
        self.state = state


def _inside(real: str, jail: str) -> bool:
    return real == jail or real.startswith(jail.rstrip("/") + "/")


# `tuitune capture` lists the files the tree reading code opens (core/capture/trace.py): the
# capture then holds exactly what --root reads. None (always, outside a capture): no cost.
TRACE: list[tuple[Path, bool]] | None = None


def open_in_tree(path: Path, flags: int, jail: str | None, what: str) -> int:
    """os.open(path, flags), except that inside a --root tree (`jail`, a resolved directory)
    the file must be a regular file that is really inside the tree.

    The path is resolved once with O_PATH, which opens nothing for I/O (no driver's open()
    runs: a link to a device or a FIFO has no effect), the resolved file is checked, and that
    same inode is then reopened through /proc/self/fd: no second walk for a racing rename or
    a swapped link to change."""
    if TRACE is not None:
        TRACE.append((path, bool(flags & os.O_DIRECTORY)))
    if jail is None:
        return os.open(path, flags | os.O_CLOEXEC)
    # O_NOFOLLOW asked for: a link as the last part is then refused below (not a regular file).
    pfd = os.open(path, os.O_PATH | os.O_CLOEXEC | (flags & os.O_NOFOLLOW))
    try:
        real = os.readlink(f"/proc/self/fd/{pfd}")
        if not _inside(real, jail):
            raise KernelFileError(
                Unavailable("error", f"{what}: a link out of the host tree, not followed")
            )
        mode = os.fstat(pfd).st_mode
        want_dir = bool(flags & os.O_DIRECTORY)
        if want_dir and not stat.S_ISDIR(mode):
            raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR))
        if not want_dir and not stat.S_ISREG(mode):
            kind = "a directory" if stat.S_ISDIR(mode) else "not a regular file"
            raise KernelFileError(Unavailable("error", f"{what}: {kind}, not read"))
        return os.open(f"/proc/self/fd/{pfd}", (flags & ~os.O_NOFOLLOW) | os.O_CLOEXEC)
    finally:
        os.close(pfd)


def read_text(path: Path, what: str, limit: int = SMALL_FILE, jail: str | None = None) -> str:
    """The text of one kernel file, at most `limit` bytes; raises OSError (KernelFileError
    for what is not an errno). Prefer read_kernel_file, which returns a state instead."""
    # read_into's open and bound: one reader. A page first (a sysfs value, a sysctl), grown
    # only when full: a small file then costs one page, not read_into's 64 KiB of room.
    buf = bytearray(min(limit + 1, 1 << 12))
    n = _read_into(path, what, buf, limit, jail, room=1)
    del buf[n:]
    return decode_text(buf, what)


def decode_text(data: bytes | bytearray | memoryview, what: str) -> str:
    """A kernel file's bytes as read_text gives them; raises KernelFileError if not UTF-8."""
    try:
        text = str(data, "utf-8")
    except UnicodeDecodeError:
        raise KernelFileError(Unavailable("error", f"{what}: not UTF-8 text, not read")) from None
    # As Path.read_text() did: the kernel never writes \r, a copied capture might.
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_span(path: Path, what: str, offset: int, size: int, jail: str | None = None) -> str:
    """Bytes [offset, offset + size) of one kernel file (fewer at its end), through the same
    safe open as read_text; raises OSError likewise. A /proc seq_file still formats the whole
    file for each open (single_open): this cuts what is copied and parsed, not that. A CR
    (a copied capture) is refused rather than mapped: the caller's offsets would not hold."""
    if offset < 0 or not 0 < size <= BIG_FILE:
        raise KernelFileError(Unavailable("error", f"{what}: no such span, not read"))
    fd = open_in_tree(path, os.O_RDONLY | os.O_NOCTTY, jail, what)
    try:
        return span_of_fd(fd, what, offset, size)
    finally:
        os.close(fd)


def span_of_fd(fd: int, what: str, offset: int, size: int) -> str:
    """read_span's read and checks, on an open file (kept open between ticks: keptroot.py)."""
    chunks: list[bytes] = []
    total = 0
    while total < size and (chunk := os.pread(fd, min(1 << 20, size - total), offset + total)):
        chunks.append(chunk)
        total += len(chunk)
    try:
        text = b"".join(chunks).decode("ascii")  # a span may cut a UTF-8 character: kernel
    except UnicodeDecodeError:  # counters are ASCII, so anything else is not one
        raise KernelFileError(Unavailable("error", f"{what}: not ASCII text, not read")) from None
    if "\r" in text:
        raise KernelFileError(Unavailable("error", f"{what}: CR line ends, not read by span"))
    return text


def read_binary(path: Path, what: str, limit: int, jail: str | None = None) -> bytes:
    """At most `limit` bytes of a binary kernel file (a PCI device's config space), through
    the same safe open as read_text; raises OSError. Fewer bytes than the file holds is not an
    error: config space is read from its start, and the caller says how much it got."""
    fd = open_in_tree(path, os.O_RDONLY | os.O_NOCTTY, jail, what)
    try:
        chunks: list[bytes] = []
        total = 0
        while total < limit and (chunk := os.pread(fd, limit - total, total)):
            chunks.append(chunk)
            total += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_into(path: Path, what: str, buf: bytearray, limit: int, jail: str | None = None) -> int:
    """read_text's open and bound, the bytes put into `buf` (grown when too small, kept by the
    caller from one read to the next): how many were read. A big file read every tick then
    costs no new memory: a 13 MB /proc/interrupts read by read_text took 30 ms on the sampler's
    kernel thread, most of it the kernel handing fresh pages to its three copies (3 ms so).
    Raises OSError (KernelFileError for what is not an errno); the caller decodes."""
    return _read_into(path, what, buf, limit, jail, room=1 << 16)


def _read_into(
    path: Path, what: str, buf: bytearray, limit: int, jail: str | None, room: int
) -> int:
    """The one bounded, link-safe read behind read_text and read_into (the tests' read log
    patches those two: each calls this, not the other). `buf` is grown while less than
    `room` bytes are free in it, up to the bound."""
    fd = open_bounded(path, what, limit, jail)
    try:
        return fill_from_fd(fd, what, buf, limit, room)
    finally:
        os.close(fd)


def open_bounded(path: Path, what: str, limit: int, jail: str | None) -> int:
    """open_in_tree for reading, refusing at once a file whose size says it is over `limit`
    (a tree's file; /proc files say 0, sysfs attributes a page)."""
    fd = open_in_tree(path, os.O_RDONLY | os.O_NOCTTY, jail, what)
    try:
        if os.fstat(fd).st_size > limit:
            raise _too_big(what, limit)
    except BaseException:
        os.close(fd)
        raise
    return fd


def fill_from_fd(
    fd: int, what: str, buf: bytearray, limit: int, room: int, pread: bool = False
) -> int:
    """The whole of an open file into `buf`, at most `limit` bytes: how many. `pread`: from
    offset 0 whatever the file's position (an fd kept open between ticks: keptroot.py)."""
    total = 0
    # /proc files report size 0: read until EOF, one byte past the bound to know it is over.
    while True:
        # Doubled (at least 64 KiB more) while less than `room` is free, up to the bound.
        if len(buf) - total < room and len(buf) <= limit:
            buf.extend(bytes(min(max(len(buf), 1 << 16), limit + 1 - len(buf))))
        with memoryview(buf) as view:  # the slice dies with the call: buf may grow again
            if pread:
                got = os.preadv(fd, [view[total : limit + 1]], total)
            else:
                got = os.readv(fd, [view[total : limit + 1]])
        if not got:
            return total
        total += got
        if total > limit:
            raise _too_big(what, limit)


def _too_big(what: str, limit: int) -> KernelFileError:
    # Made only when raised: every tick reads a dozen files that fit.
    return KernelFileError(Unavailable("error", f"{what}: larger than {_size(limit)}, not read"))


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


def read_kernel_file(
    path: Path, what: str, limit: int = SMALL_FILE, jail: str | None = None
) -> str | Unavailable:
    """Read a kernel file; every failure is an Unavailable state, never an exception."""
    try:
        return read_text(path, what, limit, jail)
    except KernelFileError as exc:
        return exc.state
    except OSError as exc:
        return from_oserror(exc, what)


@dataclass(frozen=True, slots=True)
class HostRoot:
    """Where /proc and /sys are, and which network namespace (if any) the host layer reads.

    With a fixture tree, `proc` and `sys` point into it; `live` is False there so that nothing
    tries netlink or ioctl against this machine's kernel on behalf of a recorded host, and
    `jail` (the tree, resolved) keeps every read inside it.
    """

    proc: Path = Path("/proc")
    sys: Path = Path("/sys")
    netns: str | None = None
    live: bool = True
    etc: Path = Path("/etc")
    jail: str | None = None  # a --root tree: no read follows a link out of it

    @classmethod
    def fixture(cls, tree: Path) -> HostRoot:
        """A recorded host: `tree/proc` and `tree/sys`, read-only, no netlink."""
        real = os.path.realpath(tree)
        return cls(proc=tree / "proc", sys=tree / "sys", live=False, etc=tree / "etc", jail=real)

    def proc_path(self, rel: str) -> Path:
        return self.proc / rel

    def sys_path(self, rel: str) -> Path:
        return self.sys / rel

    def _net_rel(self, rel: str) -> str:
        """/proc/net/REL as the calling thread sees it. /proc/net is /proc/self/net, the main
        thread's namespace; the kernel thread of a --netns host must read thread-self."""
        return f"thread-self/net/{rel}" if self.live else f"net/{rel}"

    # -- reads that return a state (the host layer's) ----------------------------------------
    def read_file(self, path: Path, what: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return read_kernel_file(path, what, limit, self.jail)

    def proc_text(self, rel: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return self.read_file(self.proc / rel, f"/proc/{rel}", limit)

    def net_text(self, rel: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return self.read_file(self.proc / self._net_rel(rel), f"/proc/net/{rel}", limit)

    def sys_text(self, rel: str, limit: int = SMALL_FILE) -> str | Unavailable:
        return self.read_file(self.sys / rel, f"/sys/{rel}", limit)

    def proc_span(self, rel: str, offset: int, size: int) -> str | Unavailable:
        """Bytes [offset, offset + size) of /proc/REL (fewer at its end): read_span."""
        what = f"/proc/{rel}"
        try:
            return read_span(self.proc / rel, what, offset, size, self.jail)
        except KernelFileError as exc:
            return exc.state
        except OSError as exc:
            return from_oserror(exc, what)

    def proc_into(self, rel: str, buf: bytearray, limit: int = SMALL_FILE) -> int | Unavailable:
        """/proc/REL into `buf` (read_into): its length, or a state."""
        what = f"/proc/{rel}"
        try:
            return read_into(self.proc / rel, what, buf, limit, self.jail)
        except KernelFileError as exc:
            return exc.state
        except OSError as exc:
            return from_oserror(exc, what)

    def sys_bytes(self, rel: str, limit: int) -> bytes | Unavailable:
        """The first `limit` bytes of binary /sys/REL (read_binary), or a state."""
        what = f"/sys/{rel}"
        try:
            return read_binary(self.sys / rel, what, limit, self.jail)
        except KernelFileError as exc:
            return exc.state
        except OSError as exc:
            return from_oserror(exc, what)

    # -- reads that raise OSError (KernelFileError included) ----------------------------------
    def read_proc(self, rel: str, limit: int = BIG_FILE) -> str:
        return read_text(self.proc / rel, f"/proc/{rel}", limit, self.jail)

    def read_net(self, rel: str, limit: int = BIG_FILE) -> str:
        return read_text(self.proc / self._net_rel(rel), f"/proc/net/{rel}", limit, self.jail)

    def read_sys(self, rel: str, limit: int = SMALL_FILE) -> str:
        return read_text(self.sys / rel, f"/sys/{rel}", limit, self.jail)

    def listdir(self, path: Path) -> list[str]:
        """The names in a directory (raises OSError); inside the tree, as for reads."""
        fd = open_in_tree(path, os.O_RDONLY | os.O_DIRECTORY, self.jail, str(path))
        try:
            return os.listdir(fd)
        finally:
            os.close(fd)


def read_value(root: HostRoot, path: Path, what: str) -> str | Unavailable:
    """Read a one-value kernel file; a refusal becomes an Unavailable state."""
    text = root.read_file(path, what)
    return text if isinstance(text, Unavailable) else text.strip()


def read_parsed(
    root: HostRoot, path: Path, what: str, parse: Callable[[str], T]
) -> T | Unavailable:
    """Read a one-value kernel file and parse it; a refusal or a malformed value is a state.
    `parse` raises ValueError (CpuListError is one) for text it cannot read."""
    text = read_value(root, path, what)
    if isinstance(text, Unavailable):
        return text
    try:
        return parse(text)
    except ValueError as exc:
        return Unavailable("error", f"{what}: {exc}")


def read_int(root: HostRoot, path: Path, what: str) -> int | Unavailable:
    text = read_value(root, path, what)
    return text if isinstance(text, Unavailable) else parse_int(text, what)


def parse_int(text: str, what: str) -> int | Unavailable:
    """A one-value kernel file's stripped text as an int, or a state."""
    digits = text[1:] if text.startswith("-") else text
    # ASCII digits, and few: int() also takes other scripts' digits, and raises ValueError
    # past 4300 of them; neither is a kernel number.
    if not (digits.isascii() and digits.isdigit()) or len(digits) > 40:
        return Unavailable("error", f"{what}: unexpected value {text[:40]!r}")
    return int(text)
