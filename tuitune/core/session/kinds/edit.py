"""How a panel row's setting is edited: what the live screen hands a kind's handler
(`EditContext`: the row's interface and the states the screen shows) and what it gets back
(`EditSpec`: the key, the value to start from, the bounds to show, the toggle). No Textual:
the handlers answer for their own rows (`KindHandler.rows`, `.edit`), tested without a screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.session.settings import Key
from tuitune.core.watch.snapshot import HostState, NicState


@dataclass(frozen=True, slots=True)
class EditSpec:
    key: Key
    current: str  # what the row shows now (the editor starts from it)
    hint: str  # bounds or format, shown under the editor
    toggle: str | None = None  # for on/off settings: the value a toggle writes
    cpus: int = 0  # for CPU-list settings: how many CPUs the hex mask beside it covers
    possible: int | None = None  # the host's CPU numbers (nr_cpu_ids): bounds a typed list


@dataclass(frozen=True, slots=True)
class EditContext:
    """The row's interface and what the screen shows. `irq_affinity`: what the IRQ panel
    shows (the host's IRQs too); None: the NIC's."""

    ifname: str | None
    nic: NicState | None
    host: HostState | None
    irq_affinity: Mapping[str, IrqAffinity] | None = None

    @property
    def cpus_hint(self) -> str:
        online = self.host.topology.online if self.host is not None else frozenset()
        return f"a CPU list like 0-3,8 (online: {format_cpulist(online) or '?'})"

    @property
    def ncpus(self) -> int:
        return len(self.host.topology.cpus) if self.host is not None else 0

    @property
    def possible(self) -> int | None:
        return self.host.topology.possible if self.host is not None else None


def _as_now(value: str, now: str) -> tuple[str, str]:
    return now, ""


@dataclass(frozen=True, slots=True)
class HostRowEdit:
    """How `e` on a Host view row (core/platformview.py's `Row.edit` names it: "fec") edits
    the kind (tui/host_edit.py). `hint` goes under the editor; `needs`: what the key names,
    which the screen must have (its interface, its driver's module); `start(value, now)`:
    the row's shown value and its `now` -> (what the editor starts from, its "now:" line when
    that is not it); `key(ifname, module, name)`: the key, of NAME when `named` (the user
    types NAME VALUE), else of the row (the whole text is the value)."""

    row: str
    hint: str
    key: Callable[[str, str, str], Key]
    named: bool = False
    needs: Literal["interface", "module", ""] = ""
    start: Callable[[str, str], tuple[str, str]] = _as_now


PICK_INTERFACE = "pick an interface first"
CANNOT_CHANGE = "this line cannot be changed"


def switch_spec(key: Key, now: str) -> EditSpec:
    """An on/off setting: the editor starts from `now`, a toggle writes the other."""
    return EditSpec(key, now, "on or off", "off" if now == "on" else "on")
