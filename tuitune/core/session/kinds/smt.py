"""SMT on or off as a journaled setting (issue 32): `/sys/devices/system/cpu/smt/control`,
always applied on trial (risk.py): turning it off takes every sibling thread offline, and the
processes and IRQs on them move.

`related` names what the kernel may move with it: an IRQ whose affinity lies wholly on the CPUs
that go offline gets a new one (the kernel breaks it to the online CPUs). Which ones cannot be
told once the CPUs are gone, so every IRQ's affinity is read before and after the write and
those that moved are recorded; they are put back after SMT (the journal reverts the key itself
first, then its effects, so the CPUs are online again when the IRQ's CPUs are written).
`offlined` says which CPUs a change to "off" takes away, for the screen to name before the
write. A kernel without
hotplug SMT ("notsupported", "notimplemented") or with it forced off is a state, not a write.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, parse_cpulist
from tuitune.core.host.root import HostRoot, read_value
from tuitune.core.session import validate as v
from tuitune.core.session.kinds.base import Family, Form, GroupRead, WriteRefused
from tuitune.core.session.kinds.edit import HostRowEdit
from tuitune.core.session.kinds.irq import read_irq
from tuitune.core.session.kinds.showform import ShowPart, ShowSource, state_or
from tuitune.core.session.outcome import Effect
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort

CONTROL = "devices/system/cpu/smt/control"


def _cpus(root: HostRoot, rel: str) -> frozenset[int]:
    text = read_value(root, root.sys_path(rel), rel)
    try:
        return parse_cpulist(text) if isinstance(text, str) else frozenset()
    except CpuListError:
        return frozenset()


def offlined(root: HostRoot) -> frozenset[int]:
    """The online CPUs SMT off takes away: every thread of a core but its first (the
    kernel keeps each core's primary thread, the lowest-numbered on the hosts seen)."""
    out: set[int] = set()
    for cpu in sorted(_cpus(root, "devices/system/cpu/online")):
        rel = f"devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
        siblings = _cpus(root, rel)
        if siblings and cpu != min(siblings):
            out.add(cpu)
    return frozenset(out)


class SmtControl(Family):
    host_row: HostRowEdit | None = HostRowEdit(
        "smt",
        "on or off (off takes each core's sibling threads offline; on trial)",
        lambda ifname, module, name: Key.smt(),
        start=lambda value, now: (value.split(",", 1)[0], ""),  # "on, 2 threads a core"
    )

    value_form: Form = "switch"
    of_interface = False
    # SMT off takes CPUs offline under every process and IRQ: on trial wherever it is changed.
    always_on_trial = True
    # SMT at boot is the kernel command line's (nosmt): show and the Host view print it, and
    # tuitune never writes the bootloader's configuration.
    carriers: tuple[str, ...] = ()
    not_exported: str | None = (
        "not exported: SMT at boot is the kernel command line's nosmt (printed by show)"
    )

    def show_json(self, kind: Kind, src: ShowSource) -> ShowPart:
        """platform.smt: the control file's word and whether sibling threads are active (a
        report: `apply` leaves SMT alone)."""
        if src.platform is None:
            return {}
        smt = src.platform.smt
        return {("platform", "smt"): {"control": state_or(smt.control), "active": smt.active}}

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        value = read_value(acc.root, acc.root.sys_path(CONTROL), key.label)
        return value if isinstance(value, Unavailable) else {key: value}

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        now = acc.current(key)
        if now not in ("on", "off"):
            why = f"the kernel says {now!r}: SMT cannot be switched at run time here"
            raise WriteRefused(key, Unavailable("unsupported", why))
        return v.parse_switch(key, text)

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        acc.writer(acc.root.sys_path(CONTROL), value)
        return ()

    def related(self, acc: KernelPort, key: Key) -> dict[Key, str | None]:
        got = self.read(acc, key)
        out: dict[Key, str | None] = {key: None if isinstance(got, Unavailable) else got[key]}
        try:
            names = acc.root.listdir(acc.root.proc_path("irq"))
        except OSError:
            return out
        for name in sorted(names):
            if not (name.isascii() and name.isdigit()):
                continue
            irq = Key.irq(name, None)
            value = read_irq(acc, irq)
            if isinstance(value, Unavailable):
                continue
            out[irq] = value.get(irq)
        return out

    def label(self, key: Key) -> str:
        return "SMT (hyperthreading)"

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def host_wide(self, key: Key) -> str | None:
        return (
            "SMT is one switch for the whole host, not per namespace: turning it off takes "
            "CPUs offline under every namespace and every process"
        )

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind,)
