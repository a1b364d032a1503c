"""Processes' CPU affinity: the work is in session/proc_affinity.py (`acc.procs`)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.host.root import HostRoot
from tuitune.core.procs.discover import read_ident
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused, own_related
from tuitune.core.session.outcome import Effect
from tuitune.core.session.proc_affinity import ProcRefused, consent_question
from tuitune.core.session.settings import Key, proc_label, proc_target

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort


class ProcAffinityKind(Family):
    value_form: Form = "text"  # a CPU list the process check judges
    of_interface = False
    carriers: tuple[str, ...] = ("process",)
    members: str | None = "thread(s)"  # a process may have hundreds: told as a count
    may_vanish = True  # a process that exited never comes back
    permission_option: str | None = "--other-users"  # another user's process (consent)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        return acc.procs.read_group(key)

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        try:
            online, present = acc.cpus()
            return acc.procs.validate(
                key, text, online=online, present=present, possible=acc.possible()
            )
        except ProcRefused as exc:
            raise WriteRefused(key, exc.state) from None

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        acc.procs.write(key, value)
        return ()

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        return own_related(acc, key, whole_group=True)  # a process: each thread's too

    def label(self, key: Key) -> str:
        return proc_label(key.name, key.queue)

    def consent(self, key: Key, root: HostRoot) -> str | None:
        try:
            pid, start, _ = proc_target(key.name)
        except ValueError:
            return None
        ident = read_ident(root, pid)
        if ident is None or ident.start_ticks != start or ident.uid == os.geteuid():
            return None  # gone (the change says so) or the caller's own
        return consent_question(key, ident.uid)

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name, key.queue)
