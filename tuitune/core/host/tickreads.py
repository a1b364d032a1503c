"""Only the part of /proc/softirqs and /proc/stat that a tick uses (issue 18).

On a 1152-CPU host /proc/softirqs is 140 KB, of which the live screen shows two rows (NET_TX
and NET_RX, 25 KB), and /proc/stat ends with an `intr` line of one number per IRQ number
(thousands on a big host) that the tick does not use. Both are single_open seq files: the
kernel still formats the whole file for every open, so this cuts the bytes copied and parsed,
not the kernel's formatting.

* /proc/softirqs: the kernel prints its rows in a fixed order and at a fixed width
  (kernel/softirq.c softirq_to_name: HI, TIMER, NET_TX, NET_RX, BLOCK...; fs/proc/softirqs.c,
  " %10u" a cell), so where the wanted rows are does not move. A whole read (the first tick,
  every tick that reads the whole /proc/interrupts, and any tick whose span does not check)
  learns the header's CPUs and the span of lines holding the wanted rows; the other ticks
  read only that span, one byte before it included (it must be the end of a line), and check
  every line's name there before parsing them by name. Anything else: the whole file.
* /proc/stat: read up to a little past last tick's cpuN lines, and cut after the last one;
  when the read does not hold a line after them, or a line in the block is not a cpu line,
  the whole file. Only the per-CPU times are used at a tick (ctxt, intr and procs_running are
  not read there: they come after).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from tuitune.core.host.cells import Cells, to_ints
from tuitune.core.host.procfs import (
    NET_SOFTIRQS,
    Softirqs,
    _counts,
    _digits,
    _header_cpus,
    parse_softirqs,
)
from tuitune.core.host.root import BIG_FILE, HostRoot
from tuitune.core.values import Unavailable

__all__ = ["SoftirqsReader", "StatReader", "cpu_block_end"]


@dataclass(frozen=True, slots=True)
class _Span:
    cpus: tuple[int, ...]  # the header's, from the whole read that found this span
    offset: int  # where the first line of the span starts (a line end is just before it)
    size: int  # its bytes, final newline included
    names: tuple[str, ...]  # every line's name in the span, in order (wanted or not)


def _learn(text: str, names: Collection[str]) -> _Span | None:
    """Where the `names` rows are in a whole /proc/softirqs, if it has the kernel's layout:
    the header first, each wanted row once, with one count per header CPU."""
    lines = text.split("\n")
    if not lines[0].strip().startswith("CPU"):
        return None
    cpus = _header_cpus(lines[0].strip())
    if not cpus or any(ln.strip().startswith("CPU") for ln in lines[1:]):
        return None
    found: dict[str, int] = {}
    row_names: list[str] = []
    for n, line in enumerate(lines):
        name, colon, rest = line.strip().partition(":")
        row_names.append(name.strip() if colon else "")
        if colon and name.strip() in names:
            if name.strip() in found or len(_counts(rest.split())) != len(cpus):
                return None  # twice (the last would win), or not one count per CPU
            found[name.strip()] = n
    if set(found) != set(names) or len(lines) - 1 <= max(found.values()):
        return None  # a wanted row missing, or without its final newline
    first, last = min(found.values()), max(found.values())
    offset = sum(len(ln) + 1 for ln in lines[:first])
    size = sum(len(ln) + 1 for ln in lines[first : last + 1])
    return _Span(cpus, offset, size, tuple(row_names[first : last + 1]))


def _from_span(
    got: str, span: _Span, names: Collection[str], last: dict[str, Cells]
) -> Softirqs | None:
    """The wanted rows from a span read (one byte before it included), or None unless it is
    exactly the lines that were there: a line end first, the same names, whole lines.
    `last`: each row's cells at the last span read, replaced by this one's (a NET row moves
    on the few CPUs that handle packets: only those cells are converted)."""
    if len(got) != span.size + 1 or got[0] != "\n" or got[-1] != "\n":
        return None
    lines = got[1:-1].split("\n")
    if len(lines) != len(span.names):
        return None
    cells: dict[str, Cells] = {}
    for line, want in zip(lines, span.names, strict=True):
        name, colon, rest = line.strip().partition(":")
        if not colon or name.strip() != want:
            return None
        if want in names:
            toks = rest.split()
            if len(toks) != len(span.cpus) or not _digits("".join(toks)):
                return None
            try:  # int() refuses 4300 digits
                cells[want] = to_ints(toks, last.get(want))
            except ValueError:
                return None
    last.clear()
    last.update(cells)
    return Softirqs(span.cpus, {name: c.values for name, c in cells.items()})


class SoftirqsReader:
    """/proc/softirqs' `names` rows for successive ticks of one host (module docstring). The
    result always equals parse_softirqs(the whole file, names) of a file in the kernel's
    layout whose header did not change since the last whole read."""

    __slots__ = ("_names", "_rows", "_span")

    def __init__(self, names: Collection[str] = NET_SOFTIRQS) -> None:
        self._names = frozenset(names)
        self._span: _Span | None = None
        self._rows: dict[str, Cells] = {}  # the last span's rows: convert what moved

    def read(self, root: HostRoot, whole: bool = False) -> Softirqs | Unavailable:
        """`whole`: read the whole file (and learn the span again) even when a span would do."""
        span = self._span
        if span is not None and not whole:
            got = root.proc_span("softirqs", span.offset - 1, span.size + 1)
            if isinstance(got, str):
                parsed = _from_span(got, span, self._names, self._rows)
                if parsed is not None:
                    return parsed
        self._rows.clear()  # the rows may have moved: the next span starts afresh
        text = root.proc_text("softirqs", BIG_FILE)
        if isinstance(text, Unavailable):
            self._span = None
            return text
        self._span = _learn(text, self._names)
        return parse_softirqs(text, self._names)


def cpu_block_end(text: str, complete: bool) -> int | None:
    """The end of /proc/stat's leading cpu lines (after the newline of the last), or None
    unless every line before it is a cpu line and the line after it is known not to be one
    (`complete`: `text` is the whole file, so nothing may follow)."""
    if not text.startswith("cpu"):
        return None
    last = text.rfind("\ncpu")
    end = text.find("\n", last + 1)
    if end < 0:
        return None
    cut = end + 1
    if len(text) - cut < 3 and not complete:
        return None  # the next line may still be "cpu..."
    if text.count("\n", 0, cut) != 1 + text.count("\ncpu", 0, cut):
        return None  # another line among the cpu lines: not the kernel's layout
    return cut


class StatReader:
    """/proc/stat's cpu lines for successive ticks of one host (module docstring)."""

    __slots__ = ("_end",)

    def __init__(self) -> None:
        self._end = 0  # the cpu lines' bytes last tick; 0: not known

    def read(self, root: HostRoot) -> str | Unavailable:
        if self._end:
            # Counters gain a digit now and then: a little slack, and the next line's start.
            size = self._end + self._end // 64 + 512
            got = root.proc_span("stat", 0, size)
            if isinstance(got, str):
                cut = cpu_block_end(got, complete=len(got) < size)
                if cut is not None:
                    self._end = cut
                    return got[:cut]
        text = root.proc_text("stat", BIG_FILE)
        if isinstance(text, Unavailable):
            self._end = 0
            return text
        cut = cpu_block_end(text, complete=True)
        self._end = cut or 0
        return text if cut is None else text[:cut]
