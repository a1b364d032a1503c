"""The kernel's word that a network device came, went or was renamed, from its uevent socket.

Why: the live screen learned that its interface vanished only at its next tick, and with a long
--interval that is a long wait on a screen showing a device that is not there. The kernel sends
a uevent at once (add, remove, move for a rename) to the NETLINK_KOBJECT_UEVENT group 1 (no
udevd needed), and the watcher turns one naming our interface into a call, so the sampler takes
a tick now. Device uevents are sent to the network namespace that owns the device, so the
socket is opened from a thread inside the watched namespace.

The socket is read here, not through pyudev's monitor (which read the same socket through
libudev's "kernel" source): pyudev and libudev cost ~2.5 MB resident from the first frame on, for
a message of NUL-separated KEY=VALUE lines (issue 38, goal 3). As libudev does, only messages
the kernel sent are taken (sender port 0, credentials uid 0). Only the action and the names in
the event are used: nothing in it is trusted beyond "look again"; the sampler reads the device
afresh, as it does at every tick.
"""

from __future__ import annotations

import os
import select
import socket
import struct
import threading
from collections.abc import Callable

from tuitune.core.host.netns import NetnsError, enter_netns_in_this_thread

ACTIONS = frozenset({"add", "remove", "move"})

NETLINK_KOBJECT_UEVENT = 15  # include/uapi/linux/netlink.h
KERNEL_GROUP = 1  # the kernel's own uevents (udevd re-sends its own to group 2)
MESSAGE_MAX = 8192  # the kernel builds a uevent in UEVENT_BUFFER_SIZE (2048) bytes
_UCRED = struct.Struct("3i")  # struct ucred: pid, uid, gid (SCM_CREDENTIALS)


def parse_uevent(data: bytes) -> tuple[str, dict[str, str]] | None:
    """(action, properties) of one kernel uevent ("ACTION@DEVPATH", then KEY=VALUE each
    NUL-terminated); None for anything not of that shape (libudev's checks)."""
    head, _, rest = data.partition(b"\0")
    if b"@/" not in head:
        return None
    props: dict[str, str] = {}
    for field in rest.split(b"\0"):
        key, eq, value = field.partition(b"=")
        if eq and key:
            props[key.decode("ascii", "replace")] = value.decode("utf-8", "replace")
    action = props.get("ACTION")
    return (action, props) if action else None


def event_names(props: dict[str, str]) -> frozenset[str]:
    """The device's name, and its old one for a rename (DEVPATH_OLD=.../net/X)."""
    old = props.get("DEVPATH_OLD")
    old_name = old.rsplit("/", 1)[-1] if old else None
    return frozenset(n for n in (props.get("INTERFACE"), old_name) if n)


def open_uevent_socket() -> socket.socket:
    """The kernel's uevent group, in this thread's network namespace."""
    sock = socket.socket(
        socket.AF_NETLINK, socket.SOCK_RAW | socket.SOCK_CLOEXEC, NETLINK_KOBJECT_UEVENT
    )
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
        sock.bind((0, KERNEL_GROUP))
    except OSError:
        sock.close()
        raise
    return sock


def receive_uevent(sock: socket.socket) -> tuple[str, dict[str, str]] | None:
    """One message from the socket; None when it is not the kernel's or not a uevent."""
    data, ancdata, flags, addr = sock.recvmsg(MESSAGE_MAX, socket.CMSG_SPACE(_UCRED.size))
    if flags & (socket.MSG_TRUNC | socket.MSG_CTRUNC) or addr[0] != 0:
        return None  # cut short, or sent by a process (port 0 is the kernel)
    for level, kind, value in ancdata:
        if (level, kind) == (socket.SOL_SOCKET, socket.SCM_CREDENTIALS) and len(value) >= 12:
            return parse_uevent(data) if _UCRED.unpack_from(value)[1] == 0 else None
    return None


class NetDeviceWatch:
    """Calls `on_event(action, names)` on its own thread for each network device added, removed
    or renamed (names: the device's name, and its old one for a rename). `start()` says False,
    with `problem` set, when the kernel refuses the socket (not root in a namespace, no
    netlink); the caller's ticks still notice, only later."""

    def __init__(
        self, on_event: Callable[[str, frozenset[str]], None], netns: str | None = None
    ) -> None:
        self.netns = netns
        self.on_event = on_event
        self.problem: str | None = None
        self._stop = threading.Event()
        # stop() writes here: the thread sleeps in select() on the monitor and this pipe, so an
        # idle watch costs no wake-ups at all (the tool must not perturb what it measures).
        self._stop_r, self._stop_w = os.pipe2(os.O_CLOEXEC)
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> bool:
        self._thread = threading.Thread(target=self._run, name="tuitune-netevents", daemon=True)
        self._thread.start()
        self._ready.wait(10)
        return self.problem is None and self._ready.is_set()

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        os.write(self._stop_w, b"x")
        if self._thread is not None:
            self._thread.join(timeout=5)
        os.close(self._stop_w)
        if self._thread is None or not self._thread.is_alive():
            os.close(self._stop_r)

    def _run(self) -> None:
        try:
            if self.netns:
                enter_netns_in_this_thread(self.netns)
            sock = open_uevent_socket()
        except (NetnsError, OSError) as exc:
            self.problem = f"device events: {exc}"
            self._ready.set()
            return
        self._ready.set()
        with sock:
            while not self._stop.is_set():
                readable, _, _ = select.select([sock.fileno(), self._stop_r], [], [])
                if self._stop_r in readable:
                    return
                try:
                    event = receive_uevent(sock)
                except OSError:  # ENOBUFS after a burst: the ticks still notice
                    continue
                if event is None:
                    continue
                action, props = event
                if props.get("SUBSYSTEM") != "net" or action not in ACTIONS:
                    continue
                self.on_event(action, event_names(props))
