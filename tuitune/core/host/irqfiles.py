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
from tuitune.core.host.cells import Cells, to_ints
from tuitune.core.host.interrupts import Interrupts, IrqRow
from tuitune.core.host.root import HostRoot

__all__ = ["IrqFilesCache", "read_irq_rows"]

# One page: the kernel never prints more into a sysfs attribute.
_PAGE = 4096


class IrqFilesCache:
    """What the last tick read, so that the next converts only what changed: the CPU lists'
    text and the columns they give, and each IRQ's fields and counts (an IRQ fires on the
    few CPUs it is routed to: most of its 1152 counts stand still)."""

    __slots__ = ("layout", "rows")

    def __init__(self) -> None:
        self.layout: tuple[str, str, _Layout] | None = None  # possible, online, what they give
        self.rows: dict[str, Cells] = {}


# The online CPUs, the number of possible CPUs, and the index of each online CPU among the
# possible ones (None: all are online).
_Layout = tuple[tuple[int, ...], int, list[int] | None]


def _cpus(text: str) -> tuple[int, ...] | None:
    try:
        return tuple(sorted(parse_cpulist(text.strip())))
    except CpuListError:
        return None


def _layout(root: HostRoot, cache: IrqFilesCache | None) -> _Layout | None:
    possible_text = root.sys_text("devices/system/cpu/possible")
    online_text = root.sys_text("devices/system/cpu/online")
    if not isinstance(possible_text, str) or not isinstance(online_text, str):
        return None
    if cache is not None and cache.layout and cache.layout[:2] == (possible_text, online_text):
        return cache.layout[2]
    possible, online = _cpus(possible_text), _cpus(online_text)
    if possible is None or online is None or not set(online) <= set(possible):
        return None
    index = {cpu: i for i, cpu in enumerate(possible)}
    columns = None if online == possible else [index[cpu] for cpu in online]
    layout = (online, len(possible), columns)
    if cache is not None:
        cache.layout = (possible_text, online_text, layout)
    return layout


def _fields(text: str, ncols: int) -> list[str] | None:
    """The counts of one per_cpu_count file as text, or None when it is cut or not one."""
    if not text.endswith("\n") or "\n" in text[:-1]:
        return None
    fields = text[:-1].split(",")
    digits = "".join(fields)  # checked at once, in C: a thousand fields a file
    if len(fields) != ncols or not (digits.isascii() and digits.isdigit()):
        return None
    if not all(fields):  # ",," or a leading or trailing comma
        return None
    return fields


def read_irq_rows(
    root: HostRoot,
    irqs: Collection[str],
    names: Mapping[str, IrqRow],
    cache: IrqFilesCache | None = None,
) -> Interrupts | None:
    """The rows of `irqs` as /proc/interrupts would show them now, read from their
    per_cpu_count files; `names` are rows of the last full read (chip, hwirq, name).
    `cache`: the same object at every tick, to convert only the counts that changed.

    None when any of them cannot be read that way (see the module docstring): the caller reads
    the whole /proc/interrupts instead, so that a tick is never half one source, half the other.
    """
    if any(irq not in names for irq in irqs):
        return None  # an IRQ the last full read did not show: its name is unknown
    layout = _layout(root, cache)
    if layout is None:
        return None
    online, npossible, columns = layout
    rows: list[IrqRow] = []
    seen: dict[str, Cells] = {}
    for irq in sorted(irqs, key=lambda s: (len(s), s)):  # numeric order, as the kernel lists
        if not (irq.isascii() and irq.isdigit()):
            return None  # NMI, LOC...: only /proc/interrupts has them
        text = root.sys_text(f"kernel/irq/{irq}/per_cpu_count", _PAGE + 1)
        if not isinstance(text, str):
            return None
        fields = _fields(text, npossible)
        if fields is None:
            return None
        # A file is at most a page: no field reaches int()'s 4300 digits.
        cells = seen[irq] = to_ints(fields, cache.rows.get(irq) if cache is not None else None)
        counts = cells.values
        per_cpu = counts if columns is None else tuple(counts[i] for i in columns)
        row = names[irq]
        rows.append(IrqRow(irq, per_cpu, row.chip, row.hwirq, row.name))
    if cache is not None:
        cache.rows = seen
    return Interrupts(cpus=online, rows=tuple(rows), has_header=True)
