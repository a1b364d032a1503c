"""Sysctls: one /proc/sys file each, checked against the catalog's entry."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.host.sysctl import read_sysctl, sysctl_path
from tuitune.core.session import kernel_said
from tuitune.core.session import validate as v
from tuitune.core.session.kernel_said import ALLOWED_CC, CONGESTION, value_refused
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused, refusal
from tuitune.core.session.outcome import Effect
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.access import HostAccess


class Sysctl(Family):
    value_form: Form = "text"  # the kernel judges it
    of_interface = False

    def read(self, acc: HostAccess, key: Key) -> GroupRead:
        raw = read_sysctl(acc.root, key.name)
        if isinstance(raw, Unavailable):
            return raw
        try:
            entry = catalog.entry(key.name)
        except KeyError:
            return {key: raw}
        return {key: v.canonical_sysctl(entry, raw)}

    def validate(self, acc: HostAccess, key: Key, text: str) -> str:
        try:
            entry = catalog.entry(key.name)
        except KeyError as exc:
            raise v.InvalidValue(key, str(exc.args[0])) from None
        if not entry.writable or entry.kind == "trigger" or not entry.readable:
            why = "a write-only trigger" if entry.kind == "trigger" else "read-only"
            raise WriteRefused(
                key, Unavailable("unsupported", f"{key.label}: {why}; tuitune does not change it")
            )
        acc.current(key)
        choices = None
        if entry.choices_key:
            listed = read_sysctl(acc.root, entry.choices_key)
            if isinstance(listed, str):
                choices = catalog.split_choices(listed)
        return v.parse_sysctl(key, entry, text, choices)

    def write(self, acc: HostAccess, key: Key, value: str) -> tuple[Effect, ...]:
        try:
            acc.writer(acc.root.proc_path(sysctl_path(key.name)), value)
        except OSError as exc:
            if key.name == CONGESTION and exc.errno == errno.EPERM:
                raise WriteRefused(key, _congestion_refused(acc, key, value)) from exc
            raise
        return ()

    def label(self, key: Key) -> str:
        return key.name

    def scope(self, key: Key) -> catalog.Scope:
        try:
            return catalog.entry(key.name).scope
        except KeyError:
            return "host"  # unknown keys: assume the wider blast radius

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name, key.queue)

    def canonical(self, key: Key, text: str) -> str:
        try:
            entry = catalog.entry(key.name)
            return catalog.format_value(entry, catalog.parse_value(entry, text))
        except (KeyError, ValueError):
            return text


def _congestion_refused(acc: HostAccess, key: Key, value: str) -> Unavailable:
    """EPERM on tcp_congestion_control: the namespace's allowed list, named."""
    if not kernel_said.privileged():
        return refusal(key, OSError(errno.EPERM, "not permitted"), value)
    allowed = read_sysctl(acc.root, ALLOWED_CC)
    listed = allowed if isinstance(allowed, str) else None
    return Unavailable("error", value_refused(key, errno.EPERM, value, listed))
