"""A driver's module parameter as a journaled setting (issue 32): `/sys/module/M/parameters/P`,
one value to one file. Only parameters the kernel takes at run time (the owner write bit of
the file's mode) are written; the others are refused before any write, with where they can be
set instead (at module load: modprobe.d)."""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.host.root import read_value
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused
from tuitune.core.session.kinds.edit import HostRowEdit
from tuitune.core.session.outcome import Effect
from tuitune.core.session.settings import Key
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from pathlib import Path

    from tuitune.core.session.kinds.port import KernelPort

_NAME = re.compile(r"([A-Za-z0-9_]{1,64})/([A-Za-z0-9_]{1,64})")
_VALUE = re.compile(r"[ -~]{0,256}")  # printable ASCII, one line: the kernel parses the rest


def _path(acc: KernelPort, key: Key) -> Path:
    m = _NAME.fullmatch(key.name)
    if m is None:
        raise WriteRefused(key, Unavailable("error", f"{key.name!r} is not MODULE/PARAMETER"))
    return acc.root.sys_path(f"module/{m.group(1)}/parameters/{m.group(2)}")


class ModuleParam(Family):
    host_row: HostRowEdit | None = HostRowEdit(
        "module_param",
        "a writable parameter (marked *) and its value, e.g. InterruptThrottleRate 3",
        lambda ifname, module, name: Key.module_param(module, name),
        named=True,
        needs="module",
        # The editor starts from the first writable parameter; "now" names them all.
        start=lambda value, now: (" ".join(now.split()[:2]), now),
    )

    value_form: Form = "text"
    of_interface = False
    carriers: tuple[str, ...] = ("modprobe",)

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        try:
            path = _path(acc, key)
        except WriteRefused as exc:
            return exc.state
        value = read_value(acc.root, path, key.label)
        return value if isinstance(value, Unavailable) else {key: value}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        acc.current(key)
        path = _path(acc, key)
        try:
            mode = os.lstat(path).st_mode
        except OSError:
            mode = 0
        if not (stat.S_ISREG(mode) and mode & stat.S_IWUSR):
            why = "read-only at run time: set it at module load (modprobe.d), then reload"
            raise WriteRefused(key, Unavailable("unsupported", why))
        value = text.strip()
        if _VALUE.fullmatch(value) is None:
            raise WriteRefused(key, Unavailable("error", "one line of printable ASCII"))
        return value

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        acc.writer(_path(acc, key), value)
        return ()

    def label(self, key: Key) -> str:
        module, _, param = key.name.partition("/")
        return f"module {module} parameter {param}"

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name)
