"""A few IRQs' counters from /sys/kernel/irq/N/per_cpu_count, instead of all of /proc/interrupts.

On a big host /proc/interrupts is megabytes (13 MB at 1152 CPUs), and the kernel builds all of
it, taking each IRQ's descriptor lock, for every read. The live screen needs only the NIC's
queue IRQs at every tick: one small file each (kernel/irq/irqdesc.c, ``per_cpu_count_show``,
Linux 4.17+ with CONFIG_SPARSE_IRQ), a comma-separated count for every *possible* CPU in
ascending CPU order, then a newline.

Three things make a file unusable, and then the caller reads /proc/interrupts as before:

* the directory or the file is missing (an older kernel, a recorded tree without it, an IRQ
  freed since the last full read);
* the text is cut: the kernel prints into one page (4096 bytes) and stops there, which a host
  with a thousand CPUs and big counts reaches; a cut file has no final newline;
* it has not one number per possible CPU (``/sys/devices/system/cpu/possible``).

The rows built here carry the columns of /proc/interrupts (the online CPUs) and the chip and
name of the IRQ as the last full read printed them, so that they compare equal with the rows of
a full parse of the same moment.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from tuitune.core.cpulist import CpuListError, parse_cpulist
from tuitune.core.host.interrupts import Interrupts, IrqRow
from tuitune.core.host.root import HostRoot

__all__ = ["read_irq_rows"]

# One page: the kernel never prints more into a sysfs attribute.
_PAGE = 4096


def _cpus(root: HostRoot, which: str) -> tuple[int, ...] | None:
    text = root.sys_text(f"devices/system/cpu/{which}")
    if not isinstance(text, str):
        return None
    try:
        return tuple(sorted(parse_cpulist(text.strip())))
    except CpuListError:
        return None


def _counts(text: str, ncols: int) -> list[int] | None:
    """The counts of one per_cpu_count file, or None when it is cut or not one."""
    if not text.endswith("\n") or "\n" in text[:-1]:
        return None
    fields = text[:-1].split(",")
    digits = "".join(fields)  # checked at once, in C: a thousand fields a file
    if len(fields) != ncols or not (digits.isascii() and digits.isdigit()):
        return None
    if not all(fields):  # ",," or a leading or trailing comma
        return None
    return list(map(int, fields))


def read_irq_rows(
    root: HostRoot, irqs: Collection[str], names: Mapping[str, IrqRow]
) -> Interrupts | None:
    """The rows of `irqs` as /proc/interrupts would show them now, read from their
    per_cpu_count files; `names` are rows of the last full read (chip, hwirq, name).

    None when any of them cannot be read that way (see the module docstring): the caller reads
    the whole /proc/interrupts instead, so that a tick is never half one source, half the other.
    """
    if any(irq not in names for irq in irqs):
        return None  # an IRQ the last full read did not show: its name is unknown
    possible = _cpus(root, "possible")
    online = _cpus(root, "online")
    if possible is None or online is None or not set(online) <= set(possible):
        return None
    index = {cpu: i for i, cpu in enumerate(possible)}
    columns = None if online == possible else [index[cpu] for cpu in online]
    rows: list[IrqRow] = []
    for irq in sorted(irqs, key=lambda s: (len(s), s)):  # numeric order, as the kernel lists
        if not (irq.isascii() and irq.isdigit()):
            return None  # NMI, LOC...: only /proc/interrupts has them
        text = root.sys_text(f"kernel/irq/{irq}/per_cpu_count", _PAGE + 1)
        if not isinstance(text, str):
            return None
        counts = _counts(text, len(possible))
        if counts is None:
            return None
        per_cpu = tuple(counts) if columns is None else tuple(counts[i] for i in columns)
        seen = names[irq]
        rows.append(IrqRow(irq, per_cpu, seen.chip, seen.hwirq, seen.name))
    return Interrupts(cpus=online, rows=tuple(rows), has_header=True)
