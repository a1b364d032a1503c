"""The forms of a `tuitune show --json` document a handler writes and reads its part with.

Written: `ShowSource`, what the document is written from, and `ShowPart`, the values a
handler's `show_json` puts at their places (core/jsondoc.py and platformview.py build the
frame and walk the kind table; `place` puts the parts in). Read: the strict readers a
handler's `show_requests` reads its part with (session/showdoc.py walks the handlers;
docs/profile.md): every field a value is taken from must have its type and range (whole
numbers, not 1.5, true or NaN; CPU numbers; objects whose keys are the snapshot dataclasses'
fields, so a typo or a newer tuitune's field is refused, not skipped). A problem is a
ProfileError naming the field.

A leaf: imports no handler and not the kind table, so every handler module may import it.
"""

from __future__ import annotations

import array as arrays
import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from typing import TYPE_CHECKING, Any

from tuitune.core.session.profile_model import ProfileError, shown
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.host.platform import Platform
    from tuitune.core.host.qdisc import Qdisc
    from tuitune.core.host.rss import RssState
    from tuitune.core.watch.snapshot import HostState, NicState

U32_MAX = 0xFFFFFFFF
MAX_CPU = 65535  # a sanity bound only; the host's own CPUs are checked when the value is
_REFUSAL_KINDS = ("unsupported", "permission", "missing", "error")  # values.Unavailable kinds
UNREPORTED = {"unavailable": "missing", "reason": ""}  # a group the document leaves out


@dataclass(frozen=True)
class ShowDoc:
    """The document as the walk hands it to each handler: `doc` the whole (checked against
    its top-level fields), `iface` its `interface` object (None: no interface, so no
    interface setting is read), `link` that interface's `link` (its fields checked, its
    ifname too), `netns` the namespace it is applied into (None: the host, whose host-wide
    settings a namespace cannot set)."""

    doc: dict[str, Any]
    iface: dict[str, Any] | None
    link: dict[str, Any] | None
    netns: str | None

    @property
    def host_wide(self) -> bool:
        """Host-wide parts (CPU power, module parameters) are read: applied to the host."""
        return self.netns is None

    def platform_part(self, name: str) -> dict[str, Any] | None:
        """`platform.NAME` (driver, cpu_power) when it is an object (the rest of `platform`
        reports the host)."""
        platform = self.doc.get("platform")
        part = platform.get(name) if isinstance(platform, dict) else None
        return part if isinstance(part, dict) else None


@dataclass(frozen=True)
class ShowSource:
    """What a `show --json` document is written from (core/jsondoc.py): the host, the
    interface (None: none chosen), and the reads `show` adds when it has them (None: not
    read, so the part stays null)."""

    host: HostState | None = None
    nic: NicState | None = None
    platform: Platform | None = None
    rss: RssState | None = None
    qdiscs: tuple[Qdisc, ...] | Unavailable | None = None


# A handler's part of the document: the value at each place, a place being the keys from the
# document's top (("platform", "driver", "fec")).
ShowPart = dict[tuple[str, ...], Any]


# A frame's mark for where the kinds' parts it does not name go: `place` puts each new key
# before it, so a kind's part needs no entry in the frame to have its place in the order.
# The writer drops the mark (`drop_mark`) once the parts are in.
PARTS_HERE = "\x00parts"


def place(doc: dict[str, Any], parts: ShowPart, under: tuple[str, ...] = ()) -> None:
    """Put each part in `doc` (whose top is the document's `under`): a place whose parent
    the frame does not have (no platform read: `platform` is null) is left out; a key the
    frame has keeps its place in the document's order, a new one goes before the parent's
    PARTS_HERE mark (at its end when it has none)."""
    for where, value in parts.items():
        if where[: len(under)] != under or len(where) <= len(under):
            continue
        parent: Any = doc
        for name in where[len(under) : -1]:
            parent = parent.get(name) if isinstance(parent, dict) else None
        if isinstance(parent, dict):
            _put(parent, where[-1], value)


def _put(parent: dict[str, Any], key: str, value: Any) -> None:
    if key in parent or PARTS_HERE not in parent:
        parent[key] = value
        return
    items = list(parent.items())
    parent.clear()
    for k, v in items:
        if k == PARTS_HERE:
            parent[key] = value
        parent[k] = v


def drop_mark(frame: dict[str, Any]) -> None:
    frame.pop(PARTS_HERE, None)


def jsonable(obj: Any) -> Any:
    """Dataclasses to dicts, CPU sets to sorted lists, arrays of counts to lists, refusals to
    {"unavailable": ...}."""
    if isinstance(obj, Unavailable):
        return {"unavailable": obj.kind, "reason": obj.reason}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a NamedTuple (CpuRates): named
        return {name: jsonable(getattr(obj, name)) for name in obj._fields}
    if isinstance(obj, frozenset | set):
        return sorted(obj)
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        if obj and all(isinstance(v, tuple) and len(v) == 2 and isinstance(v[0], str) for v in obj):
            return {k: jsonable(v) for k, v in obj}  # (name, value) pairs: ethtool -S, -c
        return [jsonable(v) for v in obj]
    if isinstance(obj, arrays.array):  # numbers only (an IRQ row's counts)
        return obj.tolist()
    if isinstance(obj, float):
        return round(obj, 3)
    return obj


def state_or(v: object) -> Any:
    """A refusal as {"unavailable": kind, "reason": ...}, any other value as it is."""
    if isinstance(v, Unavailable):
        return {"unavailable": v.kind, "reason": v.reason}
    return v


def fields(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in dataclasses.fields(cls))


def what(v: object) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return f"the text {shown(v)}"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return shown(v)  # numbers: 1.5, 1e+300


def obj(v: object, where: str, known: frozenset[str], need: Iterable[str] = ()) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise ProfileError(f"{where}: expected an object, found {what(v)}")
    unknown = sorted(set(v) - known)
    if unknown:
        raise ProfileError(
            f"{where}: unknown field {shown(unknown[0])} (not one `tuitune show` writes)"
        )
    missing = [k for k in need if k not in v]
    if missing:
        raise ProfileError(f"{where}: no {missing[0]!r} field")
    return v


def section(v: object, where: str) -> dict[str, Any] | None:
    """An optional object (null or absent: None); anything else is refused."""
    if v is None:
        return None
    if not isinstance(v, dict):
        raise ProfileError(f"{where}: expected an object, found {what(v)}")
    return v


def group(
    v: object, where: str, known: frozenset[str], need: Iterable[str]
) -> dict[str, Any] | None:
    """An ethtool group, or None when it holds a refusal (the host did not report it)."""
    if isinstance(v, dict) and "unavailable" in v:
        refusal(v, where)
        return None
    return obj(v, where, known, need)


def refusal(v: object, where: str) -> None:
    r = obj(v, where, frozenset({"unavailable", "reason"}), ("unavailable", "reason"))
    if r["unavailable"] not in _REFUSAL_KINDS or not isinstance(r["reason"], str):
        raise ProfileError(f'{where}: not a refusal ({{"unavailable": KIND, "reason": TEXT}})')


def is_refusal(v: object, where: str) -> bool:
    if isinstance(v, dict):
        refusal(v, where)
        return True
    return False


def whole(v: object, where: str, high: int = U32_MAX) -> int:
    # bool is an int to Python, and a float may be 1.0, 1.5, NaN or 1e400: none is a count.
    if not isinstance(v, int) or isinstance(v, bool):
        raise ProfileError(f"{where}: {what(v)} is not a whole number")
    if not 0 <= v <= high:
        raise ProfileError(f"{where}: {shown(v)} is out of range (0 to {high})")
    return v


def opt_whole(v: object, where: str, high: int = U32_MAX) -> int | None:
    return None if v is None else whole(v, where, high)


def boolean(v: object, where: str) -> bool:
    if not isinstance(v, bool):
        raise ProfileError(f"{where}: {what(v)} is not true or false")
    return v


def array(v: object, where: str) -> list[Any]:
    if not isinstance(v, list):
        raise ProfileError(f"{where}: expected an array, found {what(v)}")
    return v


def cpus(v: object, where: str) -> list[int]:
    """A CPU set as show writes it: sorted, distinct CPU numbers."""
    got = [whole(c, f"{where}[{i}]", MAX_CPU) for i, c in enumerate(array(v, where))]
    if any(a >= b for a, b in pairwise(got)):
        raise ProfileError(f"{where}: CPU numbers must be sorted and listed once")
    return got


def once(seen: set[str], name: str, where: str) -> None:
    if name in seen:
        raise ProfileError(f"{where}: {shown(name)} is listed twice")
    seen.add(name)


def is_state(v: object) -> bool:
    """A refusal in a platform part (not checked further: that part is not applied)."""
    return isinstance(v, dict) and "unavailable" in v


def objects(v: object, where: str) -> list[dict[str, Any]]:
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise ProfileError(f"{where}: expected an array of objects or a refusal")
    return v
