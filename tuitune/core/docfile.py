"""Reading a document a user hands to tuitune (a profile, a `show --json` file, an affinity
file): a regular file of at most MAX_BYTES of UTF-8 text, or a one-line `DocumentError`.

Whoever wrote the file is not trusted, and the path may name anything: a device (/dev/zero
never ends, and merely opening /dev/watchdog arms it), a FIFO (an open would wait for a
writer), a directory, a file swapped under us. So the path is opened with O_PATH (which
opens nothing but the name), checked to be a regular file with fstat, and only that same
inode is opened for reading, through /proc/self/fd; at most MAX_BYTES + 1 bytes are read.
"""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from tuitune.core import fsutil

MAX_BYTES = 4 * 1024 * 1024  # far above any real profile or show document (~100 KB)

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
)
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32"),
    (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"),
    (codecs.BOM_UTF16_BE, "UTF-16"),
)


class DocumentError(ValueError):
    """The file cannot be read as a document; the message names it and says why. `errno`:
    the system's answer when opening or reading failed (ENOENT: no such file), else None."""

    def __init__(self, message: str, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno


def shown(path: Path | str) -> str:
    """A path as messages print it: on one line, whatever bytes its name holds."""
    text = str(path)
    return text if text.isprintable() else repr(text)


def read_document(path: Path, *, limit: int = MAX_BYTES, follow_links: bool = True) -> str:
    """The text of `path`; DocumentError when it is not a regular file, is larger than
    `limit` bytes, or is not UTF-8 text (a UTF-8 byte order mark is dropped). A link another
    user made (or one in a directory others can write) is never followed; with
    `follow_links=False` no link as the last component is."""
    name = shown(path)
    try:
        # The path walked the way root reads any file another user may have placed: a link
        # (on the way, or the file's own) is followed only when nobody else could have made
        # it (fsutil's rule), so a user's profile swapped for a link to /etc/shadow is not.
        where, last = fsutil.locate(path, write=False, follow=follow_links)
    except OSError as exc:
        raise DocumentError(f"cannot read {name}: {exc.strerror or exc}", exc.errno) from None
    try:
        handle = os.open(last, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW, dir_fd=where.fd)
    except OSError as exc:
        raise DocumentError(f"cannot read {name}: {exc.strerror or exc}", exc.errno) from None
    finally:
        where.close()
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            kind = next((k for test, k in _KINDS if test(mode)), "not a regular file")
            raise DocumentError(f"{name}: {kind}, not a file to read")
        # The inode checked above, not whatever the name points to by now.
        fd = os.open(f"/proc/self/fd/{handle}", os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError as exc:
        raise DocumentError(f"cannot read {name}: {exc.strerror or exc}", exc.errno) from None
    finally:
        os.close(handle)
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise DocumentError(f"cannot read {name}: {exc.strerror or exc}", exc.errno) from None
    finally:
        os.close(fd)
    if size > limit:
        raise DocumentError(f"{name}: larger than {limit // (1024 * 1024)} MiB, not a document")
    return decode(b"".join(chunks), name)


def decode(data: bytes, name: str) -> str:
    """UTF-8 text without NUL bytes; anything else is refused with where it goes wrong."""
    for bom, encoding in _WIDE_BOMS:
        if data.startswith(bom):
            raise DocumentError(f"{name}: {encoding} text; save it as UTF-8")
    data = data.removeprefix(codecs.BOM_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = data[exc.start]
        raise DocumentError(
            f"{name}: not UTF-8 text (byte 0x{bad:02x} at offset {exc.start})"
        ) from None
    nul = text.find("\0")
    if nul >= 0:
        at = len(text[:nul].encode())
        raise DocumentError(f"{name}: a NUL byte at offset {at}: not UTF-8 text")
    return text
