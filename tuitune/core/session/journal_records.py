"""What a journal record must look like before it is replayed, and what an original value must
look like before it is written back.

A record that does not fit is not replayed but counted (JournalState.unreadable) and shown by
`tuitune restore`: silently skipping it would hide an original that is never put back. An
original that does not fit its setting ("abc" as an MTU) is reported on its own and the rest
is still restored: one bad value must not leave every later setting changed.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tuitune.core.host.ethtool_netlink import COALESCE_BY_NAME
from tuitune.core.session.settings import Key

KNOWN = frozenset(
    {
        "head",
        "session",
        "trial",
        "trial-helper",
        "trial-end",
        "orig",
        "intent",
        "done",
        "seen",
        "step",
        "undo",
        "forget",
        "clear",
    }
)
_COUNT = re.compile(r"[0-9]{1,10}")
_CPU = r"[0-9]{1,5}(?:-[0-9]{1,5})?"  # the kernel has at most 8192 CPUs (NR_CPUS)
_CPUS = re.compile(rf"none|{_CPU}(?:,{_CPU})*")
_FLAGS = frozenset(n for n, (_, flag) in COALESCE_BY_NAME.items() if flag)
_COUNT_KINDS = frozenset({"mtu", "txqueuelen", "ring", "channels", "rps_flow_cnt"})


def _text(v: object, what: str, optional: bool = True) -> None:
    if v is None and optional:
        return
    if not isinstance(v, str):
        raise ValueError(f"{what} is {type(v).__name__}, not text")


def _keys(v: object) -> None:
    if not isinstance(v, list):
        raise ValueError("a list of settings expected")
    for k in v:
        Key.from_json(k)


def _rows(v: object, width: int) -> None:
    if not isinstance(v, list):
        raise ValueError("a list of values expected")
    for row in v:
        if not (isinstance(row, list) and len(row) == width):
            raise ValueError(f"a row of {width} expected: {row!r}")
        Key.from_json(row[0])
        for x in row[1:]:
            _text(x, "a value")


def check(rec: dict[str, Any]) -> None:
    """Raise ValueError (or KeyError) when `rec` is not a record this version can replay."""
    t = rec.get("t")
    if t not in KNOWN:
        raise ValueError(f"unknown record type {t!r}")
    if t in ("orig", "intent"):
        Key.from_json(rec["k"])
        _text(rec["v"], "the value", optional=t == "orig")
        _keys(rec.get("with", []))
    elif t in ("done", "seen"):
        _rows(rec["vals"], 2)
    elif t == "step":
        _rows(rec["e"], 3)
    elif t == "forget":
        _keys(rec["k"])
    elif t == "trial":
        Key.from_json(rec["k"])
        _text(rec["id"], "the trial id", optional=False)
        _text(rec["before"], "the value before")
        _text(rec["after"], "the value after")
        deadline = rec["deadline"]
        if not isinstance(deadline, int | float) or not math.isfinite(deadline):
            raise ValueError(f"the deadline {deadline!r} is not a time")
    elif t == "head":
        if not isinstance(rec.get("root", {}), dict):
            raise ValueError("the host of the journal is not a record")
        if not isinstance(rec.get("time", 0), int | float):
            raise ValueError("the start time is not a time")
    elif t in ("trial-helper", "trial-end"):
        _text(rec["id"], "the trial id", optional=False)
        if t == "trial-helper" and not isinstance(rec["pid"], int):
            raise ValueError("the watchdog pid is not a number")


def bad_original(key: Key, value: str | None) -> str | None:
    """Why `value` cannot be the original of `key` (None: it can). Only the shape is checked
    (a kernel value read back is always of it); the kernel has the last word on the rest."""
    if value is None:
        return None
    k = key.kind
    if k in _COUNT_KINDS or (k == "coalesce" and key.name not in _FLAGS):
        ok = _COUNT.fullmatch(value) is not None
    elif k in ("feature", "pause", "coalesce"):
        ok = value in ("on", "off")
    elif k in ("rps_cpus", "xps_cpus", "irq_affinity"):
        ok = _CPUS.fullmatch(value) is not None and (value != "none" or k != "irq_affinity")
    else:  # a sysctl or a service: text the kernel (or the service check) judges
        ok = True
    if ok:
        return None
    shown = value if len(value) <= 40 else value[:40] + "..."
    return f"the journal's original {shown!r} is not a value it can take; left as it is"
