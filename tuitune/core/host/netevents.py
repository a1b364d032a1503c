"""The kernel's word that a network device came, went or was renamed, through pyudev.

Why: the live screen learned that its interface vanished only at its next tick, and with a long
--interval that is a long wait on a screen showing a device that is not there. The kernel sends
a uevent at once (add, remove, move for a rename); pyudev's netlink monitor receives them with
no udevd running (source "kernel"), and the watcher turns one naming our interface into a call,
so the sampler takes a tick now. Device uevents are sent to the network namespace that owns
the device, so the socket is opened from a thread inside the watched namespace.

Only the action and the names in the event are used: nothing in it is trusted beyond "look
again"; the sampler reads the device afresh, as it does at every tick.
"""

from __future__ import annotations

import os
import select
import threading
from collections.abc import Callable

from tuitune.core.host.netns import NetnsError, enter_netns_in_this_thread

ACTIONS = frozenset({"add", "remove", "move"})


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
        import pyudev  # only here: a recorded tree or `show` never pays for it

        try:
            if self.netns:
                enter_netns_in_this_thread(self.netns)
            monitor = pyudev.Monitor.from_netlink(pyudev.Context(), source="kernel")
            monitor.start()
        except (NetnsError, OSError, ValueError) as exc:
            self.problem = f"device events: {exc}"
            self._ready.set()
            return
        self._ready.set()
        while not self._stop.is_set():
            readable, _, _ = select.select([monitor.fileno(), self._stop_r], [], [])
            if self._stop_r in readable:
                return
            try:
                device = monitor.poll(timeout=0)
            except (OSError, ValueError):  # a malformed or truncated message: skip it
                continue
            if device is None or device.subsystem != "net" or device.action not in ACTIONS:
                continue
            props = device.properties
            # A rename's kernel event names the old device by its path (DEVPATH_OLD=.../net/X).
            old = props.get("DEVPATH_OLD")
            old_name = old.rsplit("/", 1)[-1] if old else None
            names = frozenset(n for n in (props.get("INTERFACE"), old_name) if n)
            self.on_event(str(device.action), names)
