"""Daemons (irqbalance): stopped and started from the calling thread (see base.KindHandler)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused
from tuitune.core.session.outcome import Effect
from tuitune.core.session.service import ServiceRefused
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort


class Service(Family):
    value_form: Form = "text"  # the service check judges it
    of_interface = False
    calling_thread = True
    carriers: tuple[str, ...] = ()
    # Disabling a service is not a tuning value, and the affinity export already keeps
    # irqbalance off the pinned IRQs: a stopped daemon is never written to a file.
    not_exported: str | None = (
        "not exported: tuitune stops a service for one session only and never writes that to a "
        "file (the affinity export tells irqbalance to leave the pinned IRQs alone instead)"
    )

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        value = acc.services.read(key)
        return value if isinstance(value, Unavailable) else {key: value}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        try:
            return acc.services.validate(key, text)
        except ServiceRefused as exc:
            raise WriteRefused(key, exc.state) from None

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        acc.services.write(key, value)
        return ()

    def label(self, key: Key) -> str:
        return f"{key.name} service"

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name, key.queue)
