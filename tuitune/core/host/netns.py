"""Run kernel I/O on one dedicated thread, optionally inside a named network namespace.

Why a thread and not the caller: pyroute2's synchronous classes refuse to run inside a running
asyncio loop (Textual's), and kernel reads must never block the UI. Why per-thread setns: a
thread may join another network namespace on its own, so /proc/sys/net, netlink and ioctl
sockets opened there see the namespace. sysfs is different: /sys/class/net shows the namespace
of whoever mounted /sys, so the thread also unshares its mount namespace and mounts a fresh
sysfs, exactly what `ip netns exec` does for a process.
"""

from __future__ import annotations

import ctypes
import errno
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

from tuitune.core.closing import Closing
from tuitune.core.names import netns_problem

T = TypeVar("T")

CLONE_FS = 0x00000200
CLONE_NEWNS = 0x00020000
CLONE_NEWNET = 0x40000000
MS_REC = 0x4000
MS_SLAVE = 0x80000
MNT_DETACH = 0x2
NETNS_RUN_DIR = "/run/netns"

_libc = ctypes.CDLL(None, use_errno=True)


class NetnsError(RuntimeError):
    """The namespace could not be entered; the message says why in plain words."""


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        if err == errno.EPERM:
            raise NetnsError(f"{what}: needs root (CAP_SYS_ADMIN)")
        raise NetnsError(f"{what}: {os.strerror(err)}")


def netns_path(name: str) -> str:
    problem = netns_problem(name)  # a path component: bounded, no '/', '.', '..' or newline
    if problem is not None:
        raise NetnsError(problem)
    return os.path.join(NETNS_RUN_DIR, name)


def enter_netns_in_this_thread(name: str) -> None:
    """Move the calling thread into netns `name`, with a private mount ns and its own /sys."""
    path = netns_path(name)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise NetnsError(f"no network namespace {name!r} (see `ip netns list`)") from None
    except PermissionError:
        raise NetnsError(f"network namespace {name!r}: needs root") from None
    try:
        _check(_libc.setns(fd, CLONE_NEWNET), f"entering network namespace {name!r}")
    finally:
        os.close(fd)
    # Private fs + mount namespace for this thread only, then a sysfs of the new netns.
    _check(_libc.unshare(CLONE_FS | CLONE_NEWNS), "unsharing the mount namespace")
    _check(_libc.mount(b"none", b"/", None, MS_REC | MS_SLAVE, None), "making / a slave mount")
    _libc.umount2(b"/sys", MNT_DETACH)  # may fail if /sys was never mounted; the mount decides
    _check(_libc.mount(b"sysfs", b"/sys", b"sysfs", 0, None), "mounting sysfs for the netns")


class KernelThread(Closing):
    """A single worker thread for all kernel I/O of one host (and netns, if named).

    Calls are serialised, so netlink/ioctl sockets cached by the callee are used by one thread.
    """

    def __init__(self, netns: str | None = None) -> None:
        self.netns = netns
        self._ready = threading.Event()
        self._error: BaseException | None = None
        self._pool = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="tuitune-kernel", initializer=self._init
        )
        # Start the thread now so that a bad namespace fails here, not on first use.
        self._pool.submit(lambda: None).result()
        if self._error is not None:
            self._pool.shutdown(wait=False)
            raise self._error

    def _init(self) -> None:
        try:
            if self.netns is not None:
                enter_netns_in_this_thread(self.netns)
        except BaseException as exc:  # handed to the constructor, which re-raises it
            self._error = exc
        finally:
            self._ready.set()

    def submit(self, fn: Callable[..., T], *args: object) -> Future[T]:
        return self._pool.submit(fn, *args)

    def call(self, fn: Callable[..., T], *args: object) -> T:
        return self._pool.submit(fn, *args).result()

    def close(self) -> None:
        self._pool.shutdown(wait=True)
