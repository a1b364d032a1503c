"""A process's (or one thread's) CPU affinity as a journaled setting: the "proc_affinity" kind.

The key names the process as "PID@START" (START: field 22 of /proc/PID/stat), so a value
recorded for one process is never read from, or written to, a later process given the same
PID: that process is "gone", which is a state to report, not an error. A thread key is
"PID@START/TID".

The value of a process key is its main thread's affinity (what `taskset -p` shows); writing
it sets every thread. Reading it also gives each thread's own value (thread keys), which the
journal records as originals before the first write (`HostAccess.related`), so undo, revert
and restore put every thread back exactly, even threads that had affinities of their own.

Never touched: kernel threads (PF_KTHREAD, or a child of kthreadd), any process on a recorded
tree, and another user's process unless the caller is root AND agreed to it for that process
(`agree`): the TUI asks, `apply` needs --other-users. Putting an original back (undo, revert,
restore) needs no new agreement: it was given for the change.
"""

from __future__ import annotations

import errno
import os
import signal
from typing import TypeGuard

from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.root import HostRoot
from tuitune.core.procs import discover
from tuitune.core.procs.model import ProcIdent, printable
from tuitune.core.session import validate as v
from tuitune.core.session.settings import Key, proc_target
from tuitune.core.values import Unavailable

GONE = "gone (the process exited)"
REUSED = "gone (the process exited; its PID now belongs to another process, left alone)"
THREAD_GONE = "gone (the thread exited)"
KERNEL_THREAD = "a kernel thread: tuitune never moves one"


class ProcRefused(Exception):
    """The affinity cannot be changed; `state` says why (access.WriteRefused wraps it)."""

    def __init__(self, state: Unavailable) -> None:
        super().__init__(state.reason)
        self.state = state


class ConsentNeeded(ProcRefused):
    """Another user's process: root may change it once the user agreed (`agree`)."""

    def __init__(self, key: Key, owner: int) -> None:
        self.owner = owner
        super().__init__(Unavailable("permission", consent_question(key, owner)))


def owner_name(uid: int) -> str:
    import pwd

    try:
        return f"{printable(pwd.getpwuid(uid).pw_name, 32)} (uid {uid})"
    except KeyError:
        return f"uid {uid}"


def consent_question(key: Key, owner: int) -> str:
    return (
        f"{key.label}: the process belongs to {owner_name(owner)}, not to you; "
        "changing it needs your agreement"
    )


def _gone(key: Key, why: str = GONE) -> Unavailable:
    return Unavailable("missing", f"{key.label}: {why}")


def is_gone(state: object) -> TypeGuard[Unavailable]:
    """Whether a read said the process (or thread) is gone for good."""
    return isinstance(state, Unavailable) and state.kind == "missing" and "gone (" in state.reason


class ProcAffinity:
    """Reads and writes of process affinities on one host (on its kernel thread)."""

    def __init__(self, root: HostRoot) -> None:
        self.root = root
        self._agreed: set[Key] = set()  # another user's processes the user agreed to change
        self.agree_all = False  # headless: --other-users

    def agree(self, key: Key) -> None:
        """The user agreed to change this process (and its threads) though another user's."""
        pid, start, _ = proc_target(key.name)
        self._agreed.add(Key.proc_affinity(pid, start))

    # ---- reads ---------------------------------------------------------------------------
    def _ident(self, key: Key) -> tuple[ProcIdent, int | None] | Unavailable:
        """Who the key names, if that process still holds its PID."""
        try:
            pid, start, tid = proc_target(key.name)
        except ValueError as exc:
            return Unavailable("error", f"{key.label}: {exc}")
        ident = discover.read_ident(self.root, pid)
        if ident is None:
            return _gone(key)
        if ident.start_ticks != start:
            return _gone(key, REUSED)
        return ident, tid

    def read_group(self, key: Key) -> dict[Key, str] | Unavailable:
        """The key's value and, for a process key, each thread's: {key: list, thread: list}."""
        found = self._ident(key)
        if isinstance(found, Unavailable):
            return found
        ident, tid = found
        out: dict[Key, str] = {}
        tids = [tid] if tid is not None else discover.thread_ids(self.root, ident.pid)
        for t in tids:
            run = discover.read_thread(self.root, ident.pid, t)
            if run is None or not run.allowed:
                continue
            value = format_cpulist(run.allowed)
            if tid is not None:
                return {key: value}
            out[Key.proc_affinity(ident.pid, ident.start_ticks, t, run.comm)] = value
            if t == ident.pid:
                out[key] = value
        if key not in out:  # the thread (or the whole process, just now) is gone
            return _gone(key, THREAD_GONE if tid is not None else GONE)
        return out

    # ---- validation ------------------------------------------------------------------------
    def _may_change(self, key: Key) -> tuple[ProcIdent, int | None]:
        """The process, when tuitune may change it; else ProcRefused saying why."""
        if not self.root.live:
            raise ProcRefused(
                Unavailable("unsupported", f"{key.label}: a recorded host: processes not changed")
            )
        found = self._ident(key)
        if isinstance(found, Unavailable):
            raise ProcRefused(found)
        ident, tid = found
        reading = discover.read_process(self.root, ident.pid)
        if reading is None or reading.ident.start_ticks != ident.start_ticks:
            raise ProcRefused(_gone(key))
        if reading.kernel_thread:
            raise ProcRefused(Unavailable("unsupported", f"{key.label}: {KERNEL_THREAD}"))
        return ident, tid

    def validate(
        self,
        key: Key,
        text: str,
        *,
        online: frozenset[int],
        present: frozenset[int],
        possible: int | None,
    ) -> str:
        """The canonical CPU list to set; InvalidValue for bad input, ProcRefused (or
        ConsentNeeded) when this process may not be changed from here."""
        ident, _ = self._may_change(key)
        me = os.geteuid()
        if ident.uid != me:
            if me != 0:
                why = f"{key.label}: belongs to {owner_name(ident.uid)}; only root changes it"
                raise ProcRefused(Unavailable("permission", why))
            whole = Key.proc_affinity(ident.pid, ident.start_ticks)
            if not (self.agree_all or whole in self._agreed):
                raise ConsentNeeded(key, ident.uid)
        group = self.read_group(key)
        current = group.get(key) if isinstance(group, dict) else None
        return v.HostCpus(online, present, possible).parse(
            key, text, allow_empty=False, current=current
        )

    # ---- writes ----------------------------------------------------------------------------
    def write(self, key: Key, value: str) -> None:
        """Set the affinity of the key's thread, or of every thread of its process. The
        process is checked just before (never a kernel thread, never a PID's new owner); a
        thread that exits meanwhile is skipped (ESRCH)."""
        ident, tid = self._may_change(key)
        try:
            cpus = parse_cpulist(value)
        except CpuListError as exc:
            raise ProcRefused(Unavailable("error", f"{key.label}: {exc}")) from None
        try:
            # A pidfd names this process, not its PID: checked before each thread's write, a
            # process that exited (and whose PID went to another) stops the loop. Left: the
            # microseconds between that check and the system call, as for taskset.
            pidfd = os.pidfd_open(ident.pid)
        except OSError:
            raise ProcRefused(_gone(key)) from None
        try:
            again = discover.read_ident(self.root, ident.pid)
            if again is None or again.start_ticks != ident.start_ticks:
                raise ProcRefused(_gone(key, REUSED if again else GONE))
            done = self._set_threads(key, pidfd, ident.pid, tid, cpus, value)
        finally:
            os.close(pidfd)
        if not done:
            raise ProcRefused(_gone(key, THREAD_GONE if tid is not None else GONE))

    def _set_threads(
        self, key: Key, pidfd: int, pid: int, tid: int | None, cpus: frozenset[int], value: str
    ) -> int:
        done = 0
        for t in [tid] if tid is not None else discover.thread_ids(self.root, pid):
            try:
                signal.pidfd_send_signal(pidfd, 0)  # ESRCH once the process is gone
            except ProcessLookupError:
                raise ProcRefused(_gone(key)) from None
            try:
                os.sched_setaffinity(t, cpus)
                done += 1
            except ProcessLookupError:
                continue  # that thread exited: it needs no affinity
            except OSError as exc:
                raise ProcRefused(_refusal(key, exc, value)) from exc
        return done


def _refusal(key: Key, exc: OSError, value: str) -> Unavailable:
    if exc.errno == errno.EINVAL:
        return Unavailable(
            "error",
            f"{key.label}: the kernel refused {value} (none of those CPUs is allowed to it: "
            "its cpuset, or CPUs offline)",
        )
    if exc.errno == errno.EPERM:
        return Unavailable("permission", f"{key.label}: not permitted (needs root)")
    return Unavailable("error", f"{key.label}: {exc.strerror or exc}")


__all__ = [
    "GONE",
    "KERNEL_THREAD",
    "REUSED",
    "ConsentNeeded",
    "ProcAffinity",
    "ProcRefused",
    "consent_question",
    "is_gone",
]
