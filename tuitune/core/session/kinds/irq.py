"""An IRQ's CPU affinity, found by its queue's name (IRQ numbers change, queue names do not)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from tuitune.core import catalog
from tuitune.core.cpulist import CpuListError, format_cpulist, parse_cpulist
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.irqs import IrqAffinity as IrqAffinityRead
from tuitune.core.host.irqs import irq_managed
from tuitune.core.host.root import read_value
from tuitune.core.session.kinds.base import (
    Family,
    Form,
    GroupRead,
    ProfileField,
    WriteRefused,
    managed_irq,
)
from tuitune.core.session.kinds.edit import PICK_INTERFACE, EditContext, EditSpec
from tuitune.core.session.kinds.showform import (
    ShowDoc,
    array,
    cpus,
    fields,
    is_refusal,
    obj,
    what,
    whole,
)
from tuitune.core.session.outcome import Effect
from tuitune.core.session.profile_model import ProfileError, Request, check_name, shown
from tuitune.core.session.settings import Key, Kind
from tuitune.core.values import Unavailable

if TYPE_CHECKING:
    from tuitune.core.session.kinds.port import KernelPort


class IrqAffinity(Family):
    moved_back_by: str | None = "irqbalance"  # it places IRQs anew while it runs

    def profile_field(self, kind: Kind) -> ProfileField | None:
        return ProfileField("irq_affinity")  # by queue name: "eth0-TxRx-3" = [2]

    def check_profile_name(self, kind: Kind, name: str, origin: str) -> None:
        check_name("irq", name, origin)

    value_form: Form = "some_cpus"  # an IRQ always has a CPU
    carriers: tuple[str, ...] = ("affinity",)

    def show_requests(self, kind: Kind, doc: ShowDoc) -> list[Request]:
        if doc.iface is None:
            return []
        return _show_irqs(doc.iface.get("irqs", []), doc.iface.get("irq_affinity", {}))

    def read(self, acc: KernelPort, key: Key) -> GroupRead:
        return read_irq(acc, key)

    def validate(self, acc: KernelPort, key: Key, text: str) -> str:
        current = acc.current(key)  # the IRQ must exist
        cpus = acc.host_cpus().parse(key, text, allow_empty=False, current=current)
        if irq_managed(acc.root, irq_number(acc, key)):  # the kernel says so: no write tried
            raise WriteRefused(key, managed_irq(key.label))
        return cpus

    def write(self, acc: KernelPort, key: Key, value: str) -> tuple[Effect, ...]:
        irq = irq_number(acc, key)
        acc.writer(acc.root.proc_path(f"irq/{irq}/smp_affinity_list"), value)
        return ()

    def label(self, key: Key) -> str:
        queue = f" ({key.queue})" if key.queue else ""
        return f"IRQ {key.name}{queue} affinity"

    def scope(self, key: Key) -> catalog.Scope:
        return "host"

    def group(self, key: Key) -> tuple[object, ...]:
        return (key.kind, key.name, key.queue)

    def row_key(self, key: Key) -> str:
        return f"irq:{key.name}"

    rows: tuple[str, ...] = ("irq",)

    def edit(self, row: str, rest: str, ctx: EditContext) -> EditSpec | str:
        if not (rest.isascii() and rest.isdigit()):
            # NMI, LOC, TLB...: counted per CPU by the kernel itself; /proc/irq has no entry.
            return f"{rest} is not a device IRQ (the kernel counts it per CPU): no affinity to set"
        nic, ifname = ctx.nic, ctx.ifname
        if nic is None and ifname is None:
            return PICK_INTERFACE
        queue = next((q.name for q in nic.irqs if q.irq == rest), None) if nic else None
        shown = ctx.irq_affinity
        aff = (shown if shown is not None else (nic.irq_affinity if nic else {})).get(rest)
        current = ""
        if aff is not None and not isinstance(aff.smp_affinity, Unavailable):
            current = format_cpulist(aff.smp_affinity)
        return EditSpec(
            Key.irq(rest, queue, ifname if queue else None),
            current,
            ctx.cpus_hint,
            cpus=ctx.ncpus,
            possible=ctx.possible,
        )


def irq_number(acc: KernelPort, key: Key) -> str:
    """Where the queue of `key` is now: IRQ numbers change across driver reloads, queue
    names do not. Raises WriteRefused if the queue has no IRQ any more."""
    if key.queue is None:
        return key.name
    parts = acc.irq_parts or None  # {} outside read_many: read now
    if parts is None:
        try:
            rows = parse_interrupts(acc.root.read_proc("interrupts")).rows
        except OSError:
            return key.name
        parts = {r.irq: [p.strip() for p in r.name.split(", ")] for r in rows if r.numeric}
        if acc.irq_parts is None:
            acc.irq_parts = parts
    if key.queue in parts.get(key.name, ()) or key.queue == key.name:
        return key.name
    for irq, names in parts.items():
        if key.queue in names:
            return irq
    raise WriteRefused(key, Unavailable("missing", f"{key.label}: no IRQ serves {key.queue} now"))


def read_irq(acc: KernelPort, key: Key) -> GroupRead:
    try:
        irq = irq_number(acc, key)
    except WriteRefused as exc:
        return exc.state
    text = read_value(acc.root, acc.root.proc_path(f"irq/{irq}/smp_affinity_list"), key.label)
    if isinstance(text, Unavailable):
        return text
    try:
        return {key: format_cpulist(parse_cpulist(text))}
    except CpuListError as exc:
        return Unavailable("error", f"{key.label}: {exc}")


_IRQ_NUMBER = re.compile(r"(0|[1-9][0-9]{0,9})")


def _show_irqs(irqs: object, affinity: object) -> list[Request]:
    """`interface.irqs` (number -> queue name) and `interface.irq_affinity` (number -> CPUs):
    one request a queue name, since IRQ numbers change from boot to boot."""
    listed: dict[str, str] = {}  # IRQ number -> its queue name, in the document's order
    for i, raw in enumerate(array(irqs, "interface.irqs")):
        at = f"interface.irqs[{i}]"
        irq = obj(raw, at, fields(NicIrq), ("irq", "name"))
        number = irq["irq"]
        if not isinstance(number, str) or not _IRQ_NUMBER.fullmatch(number):
            raise ProfileError(f'{at}.irq: {what(number)} is not an IRQ number ("45")')
        if number in listed:
            raise ProfileError(f"{at}.irq: {shown(number)} is listed twice")
        listed[number] = check_name("irq", irq["name"], f"{at}.name")
        if not isinstance(irq.get("kind", ""), str):
            raise ProfileError(f"{at}.kind: {what(irq['kind'])} is not a queue kind")
        if irq.get("index") is not None:
            whole(irq["index"], f"{at}.index")
    if not isinstance(affinity, dict):
        raise ProfileError(f"interface.irq_affinity: expected an object, found {what(affinity)}")
    for number in affinity:
        if number not in listed:
            at = f"interface.irq_affinity.{shown(number)}"
            raise ProfileError(f"{at}: not an IRQ of interface.irqs")
    out: list[Request] = []
    wanted: dict[str, str] = {}  # queue name -> CPU list
    for number, name in listed.items():
        if number not in affinity:
            continue
        at = f"interface.irq_affinity.{number}"
        aff = obj(affinity[number], at, fields(IrqAffinityRead), ("smp_affinity",))
        if aff.get("irq", number) != number:
            raise ProfileError(f"{at}.irq: {what(aff['irq'])} is not {number!r}")
        if is_refusal(aff["smp_affinity"], f"{at}.smp_affinity"):
            continue
        got = cpus(aff["smp_affinity"], f"{at}.smp_affinity")
        if not got:
            raise ProfileError(f"{at}.smp_affinity: an IRQ needs at least one CPU")
        text = format_cpulist(got)
        if name in wanted:
            if wanted[name] != text:
                raise ProfileError(f"{at}: two IRQs named {shown(name)} ask for different CPUs")
            continue  # IRQs are set by queue name: one request covers both
        wanted[name] = text
        out.append(Request("irq_affinity", name, text, f"IRQ {number} {name}"))
    return out
