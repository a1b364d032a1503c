"""Daemons tuitune may stop for a session: irqbalance, which moves IRQs placed by hand back.

A service is a journaled setting like any other (`Key.service("irqbalance")`). Its value says
how the daemon runs, so that the original the journal records is all that is needed to start
it again, and the read-back after a restart verifies that it runs as before:

    stopped
    running (systemd unit irqbalance.service)     systemd (PID 1) runs it: systemctl stop/start
    running: IRQBALANCE_BANNED_CPULIST=8-15 /usr/sbin/irqbalance --foreground
                                                   any other process: the IRQBALANCE_*
        variables of its environment and its argv (/proc/PID/cmdline), shell-quoted. Stopped
        with SIGTERM; started again detached (own session, cwd /, stdio on /dev/null) with that
        argv and those variables, PATH set to the trusted directories (tuitune.core.proc).

Finding it is the header's detection: a process whose comm is "irqbalance" AND that is the
system's daemon (uid 0, its executable one only root can replace: host/daemon.py); zombies do
not count. Whoever else names a process irqbalance is never stopped, recorded or started.
Stopping is refused when the daemon runs in another network namespace than tuitune (it would be
started again in the wrong one) or several differently started copies run.

Starting it again, which runs as root, takes a value from a journal, so the value is checked
every time, whoever wrote it: only the unit irqbalance.service, or a program named irqbalance
whose path only root can change (a bare name is looked up in the trusted system directories
only), and no argument that names a file or directory another user can change (irqbalance
runs its --policyscript, and writes its --pid file, as root).
"""

from __future__ import annotations

import errno
import json
import os
import re
import shlex
import signal
import stat
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tuitune.core import proc
from tuitune.core.host.irqbalance import irqbalance_pids as comm_pids
from tuitune.core.host.root import HostRoot
from tuitune.core.session.settings import Key
from tuitune.core.session.validate import InvalidValue
from tuitune.core.values import Unavailable

SERVICES = ("irqbalance",)
STOPPED = "stopped"
RUNNING = "running"
_UNIT = re.compile(r"[A-Za-z0-9@._:\\-]+\.service")
_UNIT_VALUE = re.compile(r"running \(systemd unit ([^)]+)\)")
_ENV = re.compile(r"(IRQBALANCE_[A-Z0-9_]*)=([^\n\r]*)")  # multi-line values are left out
_UNITS = frozenset(f"{name}.service" for name in SERVICES)  # the only units ever started
ROOT_ONLY = frozenset({0})
_STOP_WORDS = ("stopped", "stop", "off")
_RUN_WORDS = ("running", "run", "start", "on")

Runner = Callable[[Sequence[str]], tuple[int, str]]
Match = Callable[[int, tuple[str, ...]], bool]


class ServiceRefused(Exception):
    """The daemon cannot be stopped or started here; `state` says why (access.WriteRefused
    wraps it, so messages name the setting)."""

    def __init__(self, state: Unavailable) -> None:
        super().__init__(state.reason)
        self.state = state


@dataclass(frozen=True, slots=True)
class Instance:
    """One running copy of the daemon, as /proc shows it."""

    pid: int
    argv: tuple[str, ...]
    env: tuple[tuple[str, str], ...]  # its IRQBALANCE_* variables
    unit: str | None  # the systemd unit its cgroup names, if any
    netns: str | None  # "net:[4026531840]"; None when not readable


@dataclass(frozen=True, slots=True)
class Way:
    """How to run it: a parsed value."""

    unit: str | None = None
    argv: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()

    @property
    def value(self) -> str:
        if self.unit is not None:
            return f"running (systemd unit {self.unit})"
        return "running: " + shlex.join([f"{k}={v}" for k, v in self.env] + list(self.argv))


def parse_way(key: Key, text: str) -> Way | None:
    """A value -> how to run it (None for "stopped"); InvalidValue for anything else."""
    if "\n" in text or "\0" in text or "\r" in text:
        raise InvalidValue(key, f"{key.label}: a value is one line")
    s = text.strip()
    if s == STOPPED:
        return None
    unit = _UNIT_VALUE.fullmatch(s)
    if unit is not None:
        if not _UNIT.fullmatch(unit.group(1)):
            raise InvalidValue(key, f"{key.label}: {unit.group(1)!r} is not a service unit")
        return Way(unit=unit.group(1))
    head, sep, rest = s.partition(":")
    if head != RUNNING or not sep:
        raise InvalidValue(key, f"{key.label}: {s!r}: expected stopped, or running as it ran")
    try:
        words = shlex.split(rest)
    except ValueError as exc:
        raise InvalidValue(key, f"{key.label}: {exc}") from None
    env: list[tuple[str, str]] = []
    while words and (m := _ENV.fullmatch(words[0])) is not None:
        env.append((m.group(1), m.group(2)))
        words.pop(0)
    if not words:
        raise InvalidValue(key, f"{key.label}: no command line to start it with")
    return Way(argv=tuple(words), env=tuple(env))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _alive(stat: bytes | None) -> bool:
    """Not a zombie (or dead): its state letter follows the last ")" of /proc/PID/stat."""
    if stat is None:
        return False
    fields = stat[stat.rfind(b")") + 1 :].split()
    return bool(fields) and fields[0] not in (b"Z", b"X", b"x")


def _unit(cgroup: bytes | None) -> str | None:
    for line in (cgroup or b"").decode(errors="replace").splitlines():
        last = line.rsplit("/", 1)[-1].strip()
        if _UNIT.fullmatch(last):
            return last
    return None


def _run(argv: Sequence[str]) -> tuple[int, str]:
    try:
        done = proc.run(argv, timeout=120)
    except proc.ProgramRefused as exc:
        return 127, str(exc)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return 1, str(exc)
    return done.returncode, (done.stderr or done.stdout).strip()


# Started by `python -I -c`: fork, new session, exec; the parent reports the exec (a CLOEXEC
# pipe closes on success, carries the error otherwise), prints the pid and exits, so the daemon
# is re-parented to init and is never a zombie of tuitune. Python's ignored SIGPIPE/SIGXFSZ
# would survive exec: they are reset first.
_SPAWN = r"""
import json, os, signal, sys
spec = json.loads(sys.argv[1])
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.close(r)
    try:
        os.setsid()
        for s in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGHUP):
            signal.signal(s, signal.SIG_DFL)
        fd = os.open(os.devnull, os.O_RDWR)
        for n in (0, 1, 2):
            os.dup2(fd, n)
        os.chdir("/")
        os.execve(spec["exe"], spec["argv"], spec["env"])
    except OSError as exc:
        os.write(w, str(exc).encode())
    os._exit(127)
os.close(w)
err = b""
while chunk := os.read(r, 4096):
    err += chunk
if err:
    sys.stderr.write(err.decode(errors="replace"))
    sys.exit(1)
print(pid)
"""


class Services:
    """Read, check, stop and start the daemons of one host.

    `systemd`: whether systemd is PID 1 (default: /run/systemd/system exists on a live host).
    `runner` runs systemctl; `match` limits which processes count (tests: only their stand-in);
    `timeout` bounds the wait for a daemon to go or come (it never decides anything else).
    A recorded host tree is read (its /proc holds comm, cmdline... files) but never written.
    """

    def __init__(
        self,
        root: HostRoot,
        *,
        systemd: bool | None = None,
        runner: Runner | None = None,
        match: Match | None = None,
        timeout: float = 10.0,
    ) -> None:
        self.root = root
        if systemd is None:
            systemd = root.live and Path("/run/systemd/system").is_dir()
        self.systemd = systemd
        self._runner = runner or _run
        self._match = match
        self.timeout = timeout

    # ---- reading ------------------------------------------------------------------------
    def instances(self, name: str) -> list[Instance]:
        """The running copies of `name` (only irqbalance is known), lowest pid first."""
        if name not in SERVICES:
            return []
        out = []
        for pid in comm_pids(self.root):
            base = self.root.proc / str(pid)
            raw = _read(base / "cmdline")
            if not raw or not _alive(_read(base / "stat")):
                continue  # a zombie (or a kernel thread) has no command line
            argv = tuple(a.decode(errors="surrogateescape") for a in raw.rstrip(b"\0").split(b"\0"))
            if self._match is not None and not self._match(pid, argv):
                continue
            env = []
            for item in (_read(base / "environ") or b"").split(b"\0"):
                m = _ENV.fullmatch(item.decode(errors="surrogateescape"))
                if m is not None:
                    env.append((m.group(1), m.group(2)))
            try:
                netns: str | None = os.readlink(base / "ns/net")
            except OSError:
                netns = None
            unit = _unit(_read(base / "cgroup"))
            out.append(Instance(pid, argv, tuple(sorted(env)), unit, netns))
        return out

    def way_of(self, inst: Instance) -> Way:
        if self.systemd and inst.unit in _UNITS:
            return Way(unit=inst.unit)
        return Way(argv=inst.argv, env=inst.env)

    def read(self, key: Key) -> str | Unavailable:
        if key.name not in SERVICES:
            return Unavailable("unsupported", f"{key.label}: tuitune only stops irqbalance")
        if not self.root.proc.is_dir():
            return Unavailable("missing", f"{key.label}: no /proc to look in")
        found = self.instances(key.name)
        return self.way_of(found[0]).value if found else STOPPED

    # ---- checking -----------------------------------------------------------------------
    def validate(self, key: Key, text: str) -> str:
        """stopped (also stop, off), running (keeps it as it runs), or a full running value
        (what the journal recorded). Raises InvalidValue or ServiceRefused."""
        if key.name not in SERVICES:
            raise InvalidValue(key, f"{key.label}: tuitune only stops {', '.join(SERVICES)}")
        if not isinstance(text, str) or not text.strip():
            raise InvalidValue(key, f"{key.label}: empty; enter stopped")
        word = text.strip().lower()
        current = self.read(key)
        if isinstance(current, Unavailable):
            raise ServiceRefused(current)
        if word in _STOP_WORDS:
            if current != STOPPED:
                self._check_stoppable(key)
            return STOPPED
        if word in _RUN_WORDS:
            if current != STOPPED:
                return current
            raise InvalidValue(
                key,
                f"{key.label}: tuitune starts it again only as it ran before "
                "(undo or revert does that)",
            )
        way = parse_way(key, text)
        if way is None:
            return STOPPED
        if way.value != current:
            self._check_startable(key, way)
        return way.value

    def _check_stoppable(self, key: Key) -> None:
        if not self.root.live:
            raise ServiceRefused(Unavailable("unsupported", f"{key.label}: a recorded host tree"))
        found = self.instances(key.name)
        ways = {self.way_of(i) for i in found}
        pids = ", ".join(str(i.pid) for i in found)
        if len(ways) > 1:
            raise ServiceRefused(
                Unavailable(
                    "unsupported",
                    f"{key.label}: several copies started differently run (pids {pids}): "
                    "stop them by hand",
                )
            )
        here = _own_netns()
        if any(i.netns is not None and here is not None and i.netns != here for i in found):
            raise ServiceRefused(
                Unavailable(
                    "unsupported",
                    f"{key.label}: runs in another network namespace (pid {pids}): tuitune "
                    "could not start it again there",
                )
            )

    def _check_startable(self, key: Key, way: Way) -> None:
        if not self.root.live:
            raise ServiceRefused(Unavailable("unsupported", f"{key.label}: a recorded host tree"))
        if way.unit is not None:
            if way.unit != f"{key.name}.service":
                raise InvalidValue(
                    key, f"{key.label}: tuitune starts only the unit {key.name}.service"
                )
            if not self.systemd:
                raise ServiceRefused(
                    Unavailable("unsupported", f"{key.label}: systemd does not run this host")
                )
            return
        _system_binary(key, way.argv[0])
        _check_arguments(key, way.argv[1:])

    # ---- writing ------------------------------------------------------------------------
    def write(self, key: Key, value: str) -> None:
        """Stop or start it, then wait until /proc agrees (up to `timeout`). Raises
        ServiceRefused, or OSError with the kernel's answer to a signal."""
        if not self.root.live:
            raise ServiceRefused(Unavailable("unsupported", f"{key.label}: a recorded host tree"))
        try:
            way = parse_way(key, value)
            if way is not None:
                self._check_startable(key, way)  # again: the value may come from a journal
        except InvalidValue as exc:
            raise ServiceRefused(Unavailable("error", exc.message)) from None
        if way is None:
            self._stop(key)
            return
        want = way
        if want.unit is not None:
            self._systemctl(key, "start", want.unit)
        else:
            self._spawn(key, want)
        self._wait(key, lambda found: any(self.way_of(i) == want for i in found), "started")

    def _stop(self, key: Key) -> None:
        found = self.instances(key.name)
        units = {u for i in found if (u := self.way_of(i).unit) is not None}
        for unit in sorted(units):
            self._systemctl(key, "stop", unit)
        for inst in found:
            if self.way_of(inst).unit is not None:
                continue
            if not any(i.pid == inst.pid for i in self.instances(key.name)):
                continue  # gone meanwhile: never signal a pid that may have been reused
            try:
                os.kill(inst.pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
        self._wait(key, lambda found: not found, "stopped")

    def _systemctl(self, key: Key, verb: str, unit: str) -> None:
        code, out = self._runner(["systemctl", verb, unit])
        if code != 0:
            why = f": {out}" if out else ""
            raise ServiceRefused(
                Unavailable("error", f"{key.label}: systemctl {verb} {unit} failed{why}")
            )

    def _spawn(self, key: Key, way: Way) -> None:
        try:
            spec = {
                "exe": _system_binary(key, way.argv[0]),  # checked again, right before
                "argv": list(way.argv),
                "env": proc.clean_env(dict(way.env)),
            }
            done = proc.run(proc.python_code_argv(_SPAWN, json.dumps(spec)), timeout=60)
        except InvalidValue as exc:
            raise ServiceRefused(Unavailable("error", exc.message)) from None
        except (proc.ProgramRefused, ValueError, OSError, subprocess.TimeoutExpired) as exc:
            raise ServiceRefused(
                Unavailable("error", f"{key.label}: could not start it: {exc}")
            ) from None
        if done.returncode != 0 or not done.stdout.strip().isdigit():
            why = done.stderr.strip() or f"status {done.returncode}"
            raise ServiceRefused(Unavailable("error", f"{key.label}: could not start it: {why}"))

    def _wait(self, key: Key, ok: Callable[[list[Instance]], bool], what: str) -> None:
        end = time.monotonic() + self.timeout
        while not ok(found := self.instances(key.name)):
            if time.monotonic() > end:
                pids = ", ".join(str(i.pid) for i in found) or "none"
                raise OSError(errno.ETIMEDOUT, f"still not {what} (pids {pids})")
            time.sleep(0.02)


def _system_binary(key: Key, argv0: str) -> str:
    """The path to exec for argv[0]: the system's own program named like the service, whose
    path only root can change; a bare name is looked up in the trusted directories only.
    Raises InvalidValue, a one-line reason."""
    try:
        if os.path.isabs(argv0):
            proc.check_program(argv0, owners=ROOT_ONLY)
            path = argv0
        elif "/" in argv0:
            raise proc.ProgramRefused(argv0, "a relative path is never run")
        else:
            path = proc.resolve(argv0)
            proc.check_program(path, owners=ROOT_ONLY)
    except proc.ProgramRefused as exc:
        raise InvalidValue(
            key, f"{key.label}: {argv0!r} is not the system's {key.name}: {exc.why}"
        ) from None
    if os.path.basename(path) != key.name:
        raise InvalidValue(key, f"{key.label}: {argv0!r} is not an executable named {key.name}")
    return path


def _check_arguments(key: Key, args: Sequence[str]) -> None:
    """Refuse an argument naming a file another user can change: irqbalance runs its
    --policyscript and writes its --pid file as root. Anything with a "/" (or after "=") is
    taken for a path, relative ones from / (the daemon's cwd)."""
    for arg in args:
        value = arg.partition("=")[2] if arg.startswith("-") and "=" in arg else arg
        if "/" not in value:
            continue
        path = os.path.normpath(os.path.join("/", value))
        try:
            if os.path.lexists(path):
                proc.check_path(path, owners=ROOT_ONLY)
            else:  # to be created: a sticky directory would let others create it first
                parent = proc.check_path(os.path.dirname(path), owners=ROOT_ONLY)
                if os.stat(parent).st_mode & (stat.S_IWGRP | stat.S_IWOTH):
                    raise proc.ProgramRefused(path, f"others can create it in {parent}")
        except proc.ProgramRefused as exc:
            raise InvalidValue(
                # The reason names the path; the argument itself would push it past one line.
                key,
                f"{key.label}: an argument names a path others can change: {exc.why}",
            ) from None


def _own_netns() -> str | None:
    """The network namespace of the calling thread (a kernel thread may have joined another)."""
    try:
        return os.readlink("/proc/thread-self/ns/net")
    except OSError:
        return None
