"""Private tmux servers for the benchmarks: a real terminal of a fixed size per tool.

Each server has its own socket (-L), no config file (-f /dev/null) and is killed on exit,
on SIGTERM/SIGHUP/SIGINT and at interpreter exit. Its pane processes are ended first, by
their PIDs, and reaped by tmux before the server goes, so none is left to init. Only what
this module started is ever signalled.

tmux 3.3a here sometimes leaves an exited pane process a zombie until its next SIGCHLD
(pane_dead_status stays empty); `wait_gone` then sends the server one, which makes it reap.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shlex
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from types import FrameType

_LIVE: list[TmuxServer] = []


class TmuxError(RuntimeError):
    pass


class TmuxServer:
    def __init__(self, label: str, width: int = 200, height: int = 60) -> None:
        self.socket = f"tt-bench-{label}-{uuid.uuid4().hex[:6]}"
        self.width, self.height = width, height
        self.pids: set[int] = set()  # pane processes seen, to make sure they end
        self.started = False
        self.socket_path = ""
        self.pid = 0  # the server's

    def run(self, *args: str, check: bool = True) -> str:
        cmd = ["tmux", "-L", self.socket, "-f", "/dev/null", *args]
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        if check and done.returncode != 0:
            raise TmuxError(f"{' '.join(cmd)}: {done.stderr.strip()}")
        return done.stdout

    def new_session(
        self, command: Sequence[str], env: Mapping[str, str], name: str = "main"
    ) -> int:
        """Start `command` in a new detached session; returns the PID of the pane's process,
        which is `command` itself (exec'd), so its /proc entry is the tool's."""
        _install_cleanup()
        if self not in _LIVE:
            _LIVE.append(self)
        exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
        # COLUMNS/LINES from this environment would override the pane's real size.
        line = f"exec env -u COLUMNS -u LINES {exports} {shlex.join(command)}"
        # remain-on-exit: a pane whose process ended stays (and tmux reaps the process), so
        # the server outlives its tools and no tool is left to init as a zombie.
        self.run(
            "new-session", "-d", "-s", name, "-x", str(self.width), "-y", str(self.height),
            line, ";", "set-option", "-g", "remain-on-exit", "on",
        )  # fmt: skip
        if not self.started:
            self.socket_path = self.run("display", "-p", "#{socket_path}").strip()
            self.pid = self.server_pid()
        self.started = True
        pid = self.pane_pid(name)
        self.pids.add(pid)
        return pid

    def pane_pid(self, target: str = "main") -> int:
        return int(self.run("display", "-p", "-t", target, "#{pane_pid}").strip())

    def server_pid(self) -> int:
        return int(self.run("display", "-p", "#{pid}").strip())

    def capture(self, target: str = "main") -> str:
        return self.run("capture-pane", "-p", "-t", target)

    def send_keys(self, target: str, *keys: str) -> None:
        self.run("send-keys", "-t", target, *keys)

    def wait_gone(self, pid: int, timeout: float = 10.0) -> bool:
        """Wait until tmux has reaped pane process `pid`; False if it is still there."""
        deadline = time.monotonic() + timeout
        while (state := _state(pid)) is not None:
            if time.monotonic() > deadline:
                return False
            if state == "Z" and self.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self.pid, signal.SIGCHLD)
            time.sleep(0.05)
        return True

    def end_panes(self) -> None:
        """SIGTERM to each pane process still running, SIGKILL to any that ignored it."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for p in self.pids:
                if _state(p) not in (None, "Z"):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(p, sig)
            if all([self.wait_gone(p, timeout=3) for p in self.pids]):
                break
        self.pids.clear()

    def kill_session(self, name: str) -> None:
        self.run("kill-session", "-t", name, check=False)

    def wait_for(
        self, ok: Callable[[str], bool], target: str = "main", timeout: float = 30.0
    ) -> str:
        deadline = time.monotonic() + timeout
        text = ""
        while time.monotonic() < deadline:
            text = self.capture(target)
            if ok(text):
                return text
            time.sleep(0.1)
        raise TmuxError(f"{self.socket}: screen never got there; last screen:\n{text}")

    def kill(self) -> None:
        # Panes first, while the server is there to reap them (kill-server would leave them
        # to init), then the server, then its socket file, which kill-server leaves behind.
        self.end_panes()
        if self.started:
            self.run("kill-server", check=False)
            self.started = False
        if self.socket_path:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.socket_path)
        if self in _LIVE:
            _LIVE.remove(self)


def _state(pid: int) -> str | None:
    """The process state letter (Z: ended, not yet reaped), or None once it is reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return None


def kill_all() -> None:
    for server in list(_LIVE):
        server.kill()


_installed = False


def _install_cleanup() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    atexit.register(kill_all)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # Unwind through the callers' finally blocks, then atexit.
        raise SystemExit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)
