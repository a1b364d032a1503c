"""Moving one IRQ by hand onto one CPU: `m` with the IRQ panel's cursor on the IRQ and the CPU
grid's cursor on the CPU (works in every layout, tabs included), or a drag onto the grid.

Before anything is written the user sees where the IRQ lands now and where it will land, and
confirms; after the write the IRQ's row says "pending" until the kernel's effective affinity
follows (x86 moves an IRQ at its next interrupt, so an idle queue can stay pending a while).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.values import Unavailable
from tuitune.core.watch.cpuview import Share, affinity_pending, landing, landing_text
from tuitune.core.watch.rates import Rates
from tuitune.tui.screens.dialogs import ChoiceScreen
from tuitune.tui.shell import Shell

TITLE = "Move an IRQ"
CONFIRM = ("y", "move it (u undoes it)")
HOW = (
    "To move an IRQ by hand: the IRQ's row in the IRQ panel (2), a CPU in the CPU grid (1), then m."
)


class SetIrq(Protocol):
    """What the mover needs of the editor (app_edit.Editor): the journaled write, which asks
    about irqbalance first."""

    def set_irq(self, irq: str, cpus: str) -> None: ...


def _cpus(value: frozenset[int] | Unavailable | None) -> str:
    if isinstance(value, frozenset):
        return format_cpulist(value) or "none"
    return "unknown" if value is None else str(value)


def unmovable(irq: str, aff: IrqAffinity | None) -> str | None:
    """Why IRQ `irq` cannot be moved at all, in one line (None: it can), said before anything
    is asked or dragged anywhere."""
    if not (irq.isascii() and irq.isdigit()):
        # NMI, LOC, TLB...: counted per CPU by the kernel itself; /proc/irq has no entry.
        return f"{irq} cannot be moved: not a device IRQ (the kernel counts it per CPU)"
    asked = aff.smp_affinity if aff is not None else None
    if isinstance(asked, Unavailable) and asked.kind != "permission":
        return f"IRQ {irq} cannot be moved: {asked.reason}"
    return None


class IrqMover:
    def __init__(self, shell: Shell, editor: SetIrq) -> None:
        self.shell = shell
        self.editor = editor

    def preview(self, irq: str, cpu: int, lands_now: Sequence[Share]) -> str | None:
        """The text of the question, or None when there is nothing to move (the reason is
        on the header already)."""
        sel = self.shell.selection()
        host, nic = sel.host, sel.nic
        if host is not None and cpu not in host.topology.online:
            self.shell.notify_line(f"cpu{cpu} is offline: an IRQ cannot go there", True)
            return None
        queue = next((q.name for q in nic.irqs if q.irq == irq), None) if nic else None
        aff = nic.irq_affinity.get(irq) if nic else None
        fixed = unmovable(irq, aff)
        if fixed is not None:
            self.shell.notify_line(fixed, True)
            return None
        asked = aff.smp_affinity if aff else None
        if isinstance(asked, Unavailable) and asked.kind == "permission":
            self.shell.notify_line(f"IRQ {irq}: {asked.reason}", True)
            return None
        name = f"IRQ {irq}" + (f" ({queue})" if queue else "")
        now = landing_text(lands_now, top=3) if lands_now else "no interrupts in the last interval"
        lines = [
            f"{name}  ->  cpu{cpu}",
            "",
            f"now:   affinity {_cpus(asked)}, effective {_cpus(aff.effective if aff else None)}",
            f"       its interrupts land on {now}",
            f"after: affinity {cpu}; the kernel moves it at its next interrupt, and the row",
            '       says "pending" until the effective affinity shows it',
        ]
        nodes = host.topology.nodes if host is not None else {}
        node = next((n for n, cpus in nodes.items() if cpu in cpus), None)
        local = nic.placement.local_cpus if nic else None
        if node is not None:
            where = f"cpu{cpu} is on node {node}"
            if local and cpu not in local:
                where += f", not local to the NIC (its CPUs: {format_cpulist(local)})"
            lines.append(where)
        if asked == frozenset({cpu}):
            lines.append(f"(its affinity is cpu{cpu} already)")
        return "\n".join(lines)

    def ask(self, irq: str, cpu: int, lands_now: Sequence[Share]) -> None:
        text = self.preview(irq, cpu, lands_now)
        if text is None:
            return

        def answer(choice: str | None) -> None:
            if choice == CONFIRM[0]:
                self.editor.set_irq(irq, str(cpu))

        self.shell.push_screen(ChoiceScreen(TITLE, text, [CONFIRM]), answer)

    def move(self, irq_key: str | None, cpu_key: str | None, rates: Rates | None) -> None:
        """m: the IRQ under the IRQ panel's cursor onto the CPU under the grid's."""
        key = irq_key or ""
        affinity = self.shell.selection().irq_affinity
        fixed = unmovable(key[4:], affinity.get(key[4:])) if key[:4] == "irq:" else None
        if fixed is not None:  # before asking for a CPU: no CPU would do
            self.shell.notify_line(fixed, True)
            return
        picked = move_keys(irq_key, cpu_key)
        if isinstance(picked, str):
            self.shell.notify_line(picked, True)
            return
        irq, cpu = picked
        self.ask(irq, cpu, landing(rates.irqs.get(irq) if rates else None))

    def dragging(self, irq: str, cpu: int | None) -> str:
        """Feedback while an IRQ row is dragged: what a release here would do."""
        fixed = unmovable(irq, self.shell.selection().irq_affinity.get(irq))
        if fixed is not None:
            return fixed  # said while dragging: a release will move nothing
        if cpu is None:
            return f"dragging IRQ {irq}: release it on a CPU (list row or heat-map cell)"
        return f"release: IRQ {irq} -> cpu{cpu}"

    def dropped(self, irq: str, cpu: int) -> None:
        """An IRQ row released on a CPU: its affinity set to that CPU, no question asked."""
        read_only = self.shell.session.read_only
        fixed = read_only or unmovable(irq, self.shell.selection().irq_affinity.get(irq))
        if fixed:
            self.shell.notify_line(fixed, True)
            return
        self.editor.set_irq(irq, str(cpu))


def move_keys(irq_key: str | None, cpu_key: str | None) -> tuple[str, int] | str:
    """(irq, cpu) from the two panels' cursor keys ("irq:92", "cpu:5"), or what is missing."""
    if not irq_key or not irq_key.startswith("irq:"):
        return "no IRQ picked: " + HOW
    if not cpu_key or not cpu_key.startswith("cpu:") or not cpu_key[4:].isdigit():
        return "no CPU picked (the grid's cursor is on all CPUs): " + HOW
    return irq_key[4:], int(cpu_key[4:])


def irq_help(
    irq: str,
    lands: Sequence[Share],
    aff: IrqAffinity | None,
    cpu_key: str | None,
    read_only: str | None = None,
) -> str:
    """The help strip under the IRQ panel: where the IRQ lands, by CPU number; "pending" while
    the kernel has not followed a new affinity; what m would do (nothing is offered where
    `read_only` says why nothing is written: a recorded host, a replay)."""
    if lands:
        parts = [f"IRQ {irq} lands on {landing_text(lands, top=4)}."]
    else:
        parts = [f"IRQ {irq}: no interrupts in the last interval."]
    if aff is not None and affinity_pending(aff.smp_affinity, aff.effective):
        parts.append(
            f"PENDING: affinity {_cpus(aff.smp_affinity)}, still delivered to "
            f"{_cpus(aff.effective)} until its next interrupt."
        )
    fixed = unmovable(irq, aff)
    if fixed is not None:
        parts.append(f"{fixed}.")
    elif read_only:
        pass  # m answers why not; the strip offers nothing it cannot do
    elif cpu_key and cpu_key.startswith("cpu:") and cpu_key[4:].isdigit():
        parts.append(f"m: move it to cpu{cpu_key[4:]} (the CPU grid's cursor).")
    else:
        parts.append("m: move it to the CPU under the CPU grid's cursor (1).")
    return "  ".join(parts)
