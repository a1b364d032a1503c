"""How a panel row's setting is edited: what the live screen hands a kind's handler
(`EditContext`: the row's interface and the states the screen shows) and what it gets back
(`EditSpec`: the key, the value to start from, the bounds to show, the toggle). No Textual:
the handlers answer for their own rows (`KindHandler.rows`, `.edit`), tested without a screen.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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


PICK_INTERFACE = "pick an interface first"
CANNOT_CHANGE = "this line cannot be changed"


def switch_spec(key: Key, now: str) -> EditSpec:
    """An on/off setting: the editor starts from `now`, a toggle writes the other."""
    return EditSpec(key, now, "on or off", "off" if now == "on" else "on")
