"""A driver's module parameter as a journaled setting (issue 32): `/sys/module/M/parameters/P`,
one value to one file. Only parameters the kernel takes at run time (the owner write bit of
the file's mode) are written; the others are refused before any write, with where they can be
set instead (at module load: modprobe.d)."""

from __future__ import annotations

import os
import re
import stat
from typing import TYPE_CHECKING, Any

from tuitune.core.session.kinds.base import HostFile, WriteRefused
from tuitune.core.session.kinds.edit import HostRowEdit
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    ShowPart,
    ShowSource,
    is_state,
    objects,
    state_or,
)
from tuitune.core.session.profile_model import ProfileError, Request, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.text import printable
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from pathlib import Path

    from tuitune.core.session.kinds.port import HostPlacing, KernelPort

_NAME = re.compile(r"([A-Za-z0-9_]{1,64})/([A-Za-z0-9_]{1,64})")
_VALUE = re.compile(r"[ -~]{0,256}")  # printable ASCII, one line: the kernel parses the rest
_MODULE = re.compile(r"[A-Za-z0-9_]{1,64}")


class ModuleParam(HostFile):
    host_row: HostRowEdit | None = HostRowEdit(
        "module_param",
        "a writable parameter (marked *) and its value, e.g. InterruptThrottleRate 3",
        lambda ifname, module, name: Key.module_param(module, name),
        named=True,
        needs="module",
        # The editor starts from the first writable parameter; "now" names them all.
        start=lambda value, now: (" ".join(now.split()[:2]), now),
    )

    carriers: tuple[str, ...] = ("modprobe",)

    def file(self, acc: KernelPort, key: Key) -> Path:
        m = _NAME.fullmatch(key.name)
        if m is None:
            raise WriteRefused(key, Unavailable("error", f"{key.name!r} is not MODULE/PARAMETER"))
        return acc.root.sys_path(f"module/{m.group(1)}/parameters/{m.group(2)}")

    def place(self, kind: Kind, r: Request, host: HostPlacing, errors: list[str]) -> dict[Key, str]:
        """ "MODULE/PARAM": the parameter's key."""
        module, _, param = r.name.partition("/")
        return {Key.module_param(module, param): r.text}

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.driver.parameters: each one's name, value and whether it is writable."""
        if src.platform is None:
            return {}
        params: Any = state_or(src.platform.driver.params)
        if not isinstance(src.platform.driver.params, Unavailable):
            params = [
                {"name": p.name, "value": state_or(p.value), "writable": p.writable}
                for p in src.platform.driver.params
            ]
        return {("platform", "driver", "parameters"): params}

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        """platform.driver.parameters, the writable ones (set at load only: nothing to write
        at run time). Host-wide: a module's parameters are not a namespace's."""
        driver = doc.platform_part("driver") if doc.host_wide else None
        if driver is None:
            return []
        params, module = driver.get("parameters"), driver.get("module")
        if params is None or is_state(params) or module is None:
            return []
        out: list[Request] = []
        for i, p in enumerate(objects(params, "platform.driver.parameters")):
            at = f"platform.driver.parameters[{i}]"
            if p.get("writable") is not True or not isinstance(p.get("value"), str):
                continue  # set at load only, or unreadable
            out.append(module_request(module, p.get("name"), p["value"], at))
        return out

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        acc.current(key)
        path = self.file(acc, key)
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

    def label(self, key: Key) -> str:
        module, _, param = key.name.partition("/")
        return f"module {module} parameter {param}"

    def host_wide(self, key: Key) -> str | None:
        module = printable(key.name.partition("/")[0], 64)  # a profile's word: shown as text
        return (
            f"A module parameter is the host's, not per namespace: changing {module}'s "
            f"changes every device {module} drives, in every namespace"
        )


def module_request(module: object, param: object, value: object, where: str) -> Request:
    """A module parameter's request (a TOML [module_params.MODULE] value, a show document's
    writable parameter), its names and value checked as the kind takes them."""
    if not isinstance(module, str) or _MODULE.fullmatch(module) is None:
        raise ProfileError(f"{where}: {shown(module)} is not a module's name")
    if not isinstance(param, str) or _MODULE.fullmatch(param) is None:
        raise ProfileError(f"{where}: {shown(param)} is not a parameter's name")
    if isinstance(value, bool):
        text = "Y" if value else "N"  # how the kernel prints a bool parameter
    elif isinstance(value, int):
        text = str(value)
    elif isinstance(value, str) and _VALUE.fullmatch(value):
        text = value
    else:
        raise ProfileError(f"{where}: {shown(value)} is not a parameter's value")
    return Request("module_param", f"{module}/{param}", text, where)
