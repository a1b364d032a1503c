"""The files `trace.py` listed, with the links on their way, into a tar.gz made 0600.

Everything is gathered in memory first (a 2-CPU host's capture is a few MB; the 1152-CPU
host's /proc/interrupts 13 MB), then written in one go to a new file (O_EXCL, no link
followed, 0600): a write cut short (a full disk) leaves what was written, and says so.
"""

from __future__ import annotations

import io
import json
import os
import stat
import tarfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tuitune.core import fsutil
from tuitune.core.capture.anon import Anonymiser
from tuitune.core.host.root import BIG_FILE

FORMAT = "tuitune-capture"
VERSION = 1
MANIFEST = "manifest.json"
RECORDING = "recording.rec"
_TOPS = ("/proc", "/sys", "/etc")
# The kernel thread's /proc/net (a --netns host's) and this process's are the tree's proc/net.
_NETS = ("/proc/thread-self/net/", "/proc/self/net/", "/proc/net/")
_OWN = frozenset({"/proc/self", "/proc/thread-self", "/proc/net"})


@dataclass
class Tree:
    """A capture's tree in memory: tree-relative path -> bytes (a file), None (a directory)
    or a str (a link's target, relative)."""

    files: dict[str, bytes | str | None] = field(default_factory=dict)
    listed: set[str] = field(default_factory=set)  # files named by a listing, not read
    modes: dict[str, int] = field(default_factory=dict)  # a file's, when not 0644
    extra: dict[str, bytes] = field(default_factory=dict)  # ethtool/, the recording

    def add_dirs(self, rel: str) -> bool:
        """The directories above `rel`; False when one of them is already a link."""
        parts = rel.split("/")
        for i in range(1, len(parts)):
            if isinstance(self.files.setdefault("/".join(parts[:i]), None), str):
                return False
        return True

    def put(self, rel: str, value: bytes | str | None) -> None:
        if not self.add_dirs(rel):
            return  # under a link: stored where the link leads instead
        # A directory stays one (the readers followed a link to it).
        if not (rel in self.files and self.files[rel] is None and isinstance(value, str)):
            self.files[rel] = value


def _ours(path: str) -> bool:
    return any(path == t or path.startswith(t + "/") for t in _TOPS)


def _read(path: str, tree: Tree | None = None, rel: str = "") -> bytes | None:
    """The bytes of a regular file (None: not one, or not readable); its mode into `tree`
    when not 0644 (a module parameter's says whether it can be written), never writable by
    group or others."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return None
        if tree is not None and mode & 0o777 != 0o644:
            tree.modes[rel] = mode & 0o755
        chunks, total = [], 0
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
            total += len(chunk)
            if total > BIG_FILE:
                return None
        return b"".join(chunks)
    except OSError:  # a sysfs attribute the driver refuses: the tree lacks it too
        return None
    finally:
        os.close(fd)


def read_file(path: str) -> bytes | None:
    """A file of this machine as the tree will hold it (None: not a readable file)."""
    return _read(path)


def _link(tree: Tree, path: str) -> str | None:
    """Store the link at `path` (inside the tree's tops); its resolved target, or None when
    it points out of them (not kept: /proc/PID/exe, an fd's file path)."""
    if path in _OWN:
        return None  # this process's own: the tree's proc/net is a directory of its own
    target = os.readlink(path)
    if not target.startswith("/") and "/" not in target and ":" in target:
        tree.put(path.lstrip("/"), target)  # socket:[123], pipe:[4]: only its text is read
        return None
    real = os.path.realpath(path)
    if not _ours(real):
        return None
    tree.put(path.lstrip("/"), os.path.relpath(real, os.path.dirname(path)))
    return real


def add_path(tree: Tree, path: str, is_dir: bool, depth: int = 0) -> None:
    """`path` (absolute, on this machine) into the tree: each link on the way kept as a link
    (a tree's readers resolve them, inside the tree), then the file's bytes or the
    directory's names."""
    for net in _NETS:
        if path.startswith(net):
            if (data := _read(path)) is not None:
                tree.put("proc/net/" + path[len(net) :], data)
            return
    if depth > 40 or not _ours(path):
        return
    parts = path.strip("/").split("/")
    cur = ""
    for i, name in enumerate(parts):
        cur = f"{cur}/{name}"
        try:
            st = os.lstat(cur)
        except OSError:
            return  # missing here: missing in the tree too
        if stat.S_ISLNK(st.st_mode):
            real = _link(tree, cur)
            if real is not None:
                add_path(tree, "/".join([real, *parts[i + 1 :]]), is_dir, depth + 1)
            return
    rel = cur.lstrip("/")
    if not is_dir:
        data = _read(cur, tree, rel)
        if data is not None:
            tree.put(rel, data)
        elif os.path.isdir(cur):  # a link's target the readers only resolve: its name
            tree.put(rel, None)
        return
    tree.put(rel, None)
    try:
        names = os.listdir(cur)
    except OSError:
        return
    for name in names:  # listed, maybe not read: a name the readers count must be there
        child = f"{cur}/{name}"
        try:
            st = os.lstat(child)
        except OSError:
            continue
        if stat.S_ISLNK(st.st_mode):
            try:
                _link(tree, child)
            except OSError:
                continue
        elif stat.S_ISDIR(st.st_mode):
            tree.put(child.lstrip("/"), None)
        elif stat.S_ISREG(st.st_mode):
            tree.listed.add(child.lstrip("/"))


def gather(reads: Iterable[tuple[Path, bool]]) -> Tree:
    tree = Tree()
    done: set[tuple[str, bool]] = set()
    for path, is_dir in reads:
        key = (str(path), is_dir)
        if key not in done:
            done.add(key)
            add_path(tree, str(path), is_dir)
    for rel in tree.listed - tree.files.keys():  # named, never read: there, empty
        if tree.add_dirs(rel):
            tree.files[rel] = b""
    return tree


def anonymise(tree: Tree, anon: Anonymiser) -> None:
    for rel, value in tree.files.items():
        if isinstance(value, bytes) and value:
            tree.files[rel] = anon.file(rel, value)


def manifest(tree: Tree, about: dict[str, Any]) -> bytes:
    files = [v for v in tree.files.values() if isinstance(v, bytes)]
    doc = {
        "format": FORMAT,
        "version": VERSION,
        **about,
        "files": len(files),
        "links": sum(1 for v in tree.files.values() if isinstance(v, str)),
        "bytes": sum(len(v) for v in files),
        "holds": sorted({k.split("/")[0] for k in [*tree.files, *tree.extra]}),
    }
    return json.dumps(doc, indent=1, sort_keys=True).encode()


def write(path: Path, tree: Tree, about: dict[str, Any]) -> int:
    """The capture at `path` (a new file, 0600); its size in bytes."""
    d, name = fsutil.locate(path, write=True, follow=False)
    with d:
        fd = d.create(name, 0o600)
    now = time.time()
    with (
        os.fdopen(fd, "wb") as out,
        tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tar,
    ):

        def member(rel: str, value: bytes | str | None) -> None:
            info = tarfile.TarInfo(rel)
            info.mtime = int(now)
            if value is None:
                info.type, info.mode = tarfile.DIRTYPE, 0o755
                tar.addfile(info)
            elif isinstance(value, str):
                info.type, info.linkname, info.mode = tarfile.SYMTYPE, value, 0o777
                tar.addfile(info)
            else:
                info.size, info.mode = len(value), tree.modes.get(rel, 0o644)
                tar.addfile(info, io.BytesIO(value))

        member(MANIFEST, manifest(tree, about))
        for rel in sorted(tree.files):
            member(rel, tree.files[rel])
        tops = sorted({rel.split("/")[0] for rel in tree.extra if "/" in rel})
        for top in tops:
            member(top, None)
        for rel in sorted(tree.extra):
            member(rel, tree.extra[rel])
    return os.stat(path).st_size
