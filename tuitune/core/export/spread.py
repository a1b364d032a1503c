"""IRQ affinity as "the NIC-local CPUs", resolved on the host that applies it.

An exported affinity file pins each queue to the CPUs this host had. Across a fleet whose
hosts differ in core count, NUMA layout or queue count, those numbers are wrong elsewhere;
what carries over is the rule the spread key follows (`irqplan.spread_plan`: one queue per
physical core of the NIC's own node, SMT siblings last). An affinity file whose only setting is

    * = nic-local

asks for that: `tuitune apply-affinity` (and `tuitune verify`) work the pins out on the host
itself, from its own topology and the interface's IRQs as they are now.
"""

from __future__ import annotations

from pathlib import Path

from tuitune.core.export import affinity
from tuitune.core.export.affinity import Pin
from tuitune.core.host.root import HostRoot

NIC_LOCAL = "nic-local"
DIRECTIVE = f"* = {NIC_LOCAL}"


def is_nic_local(text: str) -> bool:
    """Is this an affinity file whose one setting is `* = nic-local`?"""
    lines = [ln.strip() for ln in text.splitlines()]
    settings = [ln for ln in lines if ln and not ln.startswith("#")]
    return [" ".join(s.replace("=", " = ").split()) for s in settings] == [DIRECTIVE]


def directive_line(text: str) -> int:
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.strip().startswith("#"):
            return n
    return 0


def nic_local_text(exported: str) -> str:
    """The exported affinity file with its pins replaced by the directive (header kept)."""
    head: list[str] = []
    for line in exported.splitlines():
        if line.strip() and not line.startswith("#"):
            break
        head.append(line)
    # Drop the first pin's "was" comment and the blank lines before it.
    while head and (not head[-1].strip() or head[-1].startswith("# IRQ ")):
        head.pop()
    return "\n".join(
        [
            *head,
            "",
            "# Every queue IRQ of the interface, one per physical core of the NIC's own node",
            "# (SMT siblings last), worked out on this host when applied: hosts that differ",
            "# in cores or queues each get their own spread.",
            DIRECTIVE,
            "",
        ]
    )


def resolve(root: HostRoot, ifname: str, line: int = 0) -> list[Pin]:
    """The spread plan of `ifname` on this host now, as pins by queue name (each said to come
    from `line`, the directive's)."""
    from tuitune.core.irqplan import spread_plan
    from tuitune.core.watch.hostreader import HostReader

    with HostReader(root) as reader:
        snap = reader.snapshot(ifname)
    if snap.nic is None:
        return []
    return [Pin(irq.name, str(cpu), line) for irq, cpu in spread_plan(snap.nic, snap.host)]


def read(path: Path) -> tuple[list[Pin], bool]:
    """(pins, nic_local) of an affinity file: the pins it lists, or none and True for
    `* = nic-local`. Raises as `affinity.read_pins` does."""
    text = affinity.read_text(path)
    if is_nic_local(text):
        return [], True
    return affinity.parse(text), False
