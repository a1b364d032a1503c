"""The lab's record of itself: the `Lab` it built, and `STATE_DIR/lab.json` that outlives it.

The state file names the namespaces `tuitune lab --down` deletes and the pid it kills, as root,
so it is written whole or not at all and read back only when it is ours, in a directory no one
else can write. Split out of lab.py, which re-exports these names.
"""

from __future__ import annotations

import errno
import json
import os
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tuitune.core import fsutil, paths
from tuitune.core.names import ifname_problem

DEFAULT_STATE_DIR = paths.RUN_DIR  # beside the change journals; emptied at boot
STATE_FILE = "lab.json"
STATE_LIMIT = 1 << 16  # a few hundred bytes in truth
LAB_PREFIX, PEER_PREFIX = "tuitune-lab-", "tuitune-peer-"
LAB_NS = re.compile(r"^tuitune-(lab|peer)-([0-9a-f]{6})$")
LOCAL_ADDR, PEER_ADDR, PREFIX = "198.18.0.1", "198.18.0.2", 30
LOCAL_IF, PEER_IF = "veth-lab", "veth-peer"
IPERF3_PORT = 5201
SCHEMA, VERSION = "tuitune.lab", 1


class LabError(Exception):
    """The lab could not be built or reached; the message says why in plain words."""


@dataclass(frozen=True)
class Lab:
    name: str  # the tag shared by both namespaces, 6 hex digits
    netns: str  # tuitune-lab-TAG: the end to watch and tune
    peer_netns: str  # tuitune-peer-TAG: the iperf3 server's end
    ifname: str  # the veth end inside `netns`
    peer_ifname: str
    local_addr: str  # without prefix length (PREFIX)
    peer_addr: str  # what `iperf3 -c` connects to, from inside `netns`
    server_pid: int | None
    owner_pid: int | None  # the tuitune that built or last reused it
    port: int = IPERF3_PORT
    state_dir: Path = field(default=DEFAULT_STATE_DIR, compare=False)

    @property
    def pidfile(self) -> Path:
        return self.state_dir / f"lab-{self.name}-iperf3.pid"

    def to_json(self) -> dict[str, Any]:
        doc = {k: v for k, v in asdict(self).items() if k != "state_dir"}
        return {"schema": SCHEMA, "version": VERSION, **doc}

    @classmethod
    def from_json(cls, doc: dict[str, Any], state_dir: Path) -> Lab:
        if doc.get("schema") != SCHEMA or doc.get("version") != VERSION:
            raise ValueError("not a tuitune lab state file (schema or version)")
        names = ("name", "netns", "peer_netns", "ifname", "peer_ifname", "local_addr", "peer_addr")
        text = {n: doc[n] for n in names}
        if not all(isinstance(v, str) and v for v in text.values()):
            raise ValueError("a name or address is missing")
        # `--down` deletes these namespaces as root: only a lab's own names are believed.
        tag = text["name"]
        if (text["netns"], text["peer_netns"]) != (LAB_PREFIX + tag, PEER_PREFIX + tag) or not (
            LAB_NS.match(text["netns"])
        ):
            raise ValueError("its namespaces are not a tuitune lab's")
        if any(ifname_problem(text[n]) for n in ("ifname", "peer_ifname")):
            raise ValueError("an interface name is not one")
        server, owner = doc.get("server_pid"), doc.get("owner_pid")
        if not all(p is None or (isinstance(p, int) and p > 0) for p in (server, owner)):
            raise ValueError("a pid is not a positive integer")
        port = doc.get("port", IPERF3_PORT)
        if not isinstance(port, int):
            raise ValueError("port is not an integer")
        return cls(**text, server_pid=server, owner_pid=owner, port=port, state_dir=state_dir)


def state_dir_ok(state_dir: Path) -> None:
    """Make the state directory (0700) or check it: root's, and no one else may write it."""
    try:
        fsutil.open_dir(state_dir, create=True, mode=0o700).close()
    except OSError as exc:
        raise LabError(f"cannot use the state directory: {exc}") from None


class Unreadable:
    """A state file that exists but holds no lab (torn, edited, another version)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path, self.reason = path, reason


def _trusted_state(path: Path) -> bytes | None:
    """The state file's bytes, None when there is none. It names the namespaces `--down`
    deletes and the pid it kills, as root: only a file of ours, in a directory nobody else
    can write, is believed."""
    try:
        d, name = fsutil.locate(path, write=True, follow=False)
    except fsutil.FsError as exc:
        if exc.errno == errno.ENOENT:
            return None
        raise
    with d:
        st = d.lstat(name)
        if st is None:
            return None
        if st.st_uid != os.geteuid():
            raise fsutil.UnsafePath(path, f"owned by uid {st.st_uid}, not by this user")
        return d.read(name, STATE_LIMIT)


def read_state(state_dir: Path) -> Lab | Unreadable | None:
    path = state_dir / STATE_FILE
    try:
        data = _trusted_state(path)
        if data is None:
            return None
        doc = json.loads(data)
        if not isinstance(doc, dict):
            raise ValueError("not a JSON object")
        return Lab.from_json(doc, state_dir)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return Unreadable(path, str(exc))


def write_state(lab: Lab) -> None:
    """Write the state file whole or not at all: a crash leaves the old one or the new one
    (fsutil: a random temporary name made O_EXCL, never through a link, renamed in)."""
    data = (json.dumps(lab.to_json(), indent=2) + "\n").encode()
    with fsutil.open_dir(lab.state_dir, create=True, mode=0o700) as d:
        d.write_atomic(STATE_FILE, data, 0o600)


def drop_state(state_dir: Path) -> list[str]:
    """Delete the state file, relative to its checked directory: a user's directory (or a
    link on the way to it) never has root delete a name there."""
    path = state_dir / STATE_FILE
    try:
        d, name = fsutil.locate(path, write=True, follow=False)
    except fsutil.FsError as exc:
        if exc.errno == errno.ENOENT:
            return []
        raise
    with d:
        try:
            os.unlink(name, dir_fd=d.fd)
        except FileNotFoundError:
            return []
    return [f"state file {path}"]
