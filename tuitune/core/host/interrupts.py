"""Parse the text of /proc/interrupts into per-IRQ, per-CPU counters.

The kernel prints (kernel/irq/proc.c, ``show_interrupts``)::

               CPU0       CPU1                                  <- one column per online CPU
     38:        123          0  PCI-MSIX-0000:00:03.0  1-edge   virtio2-input.0
    NMI:          0          0   Non-maskable interrupts
    ERR:          0                                             <- a single total

A row is ``<label>:`` then one count per CPU column, then, for numbered IRQs, the chip name,
an optional hardware IRQ field and the action names. Formats seen in the wild (all handled):

* old x86: ``PCI-MSI-edge      eth0-TxRx-0`` (the trigger is glued to the chip name, no hwirq);
* new x86: ``IR-PCI-MSI 512000-edge      0000:00:1f.2`` and per-device MSI domains
  ``IR-PCI-MSIX-0000:01:00.0   3-edge      mlx5_comp2@pci:0000:01:00.0``;
* arm64: ``GICv3  27 Level     arch_timer``, ``ITS-MSI 81921 Edge      eth0-Tx-Rx-0``,
  ``IPI0:2768808080 ...   Rescheduling interrupts`` (no space after the colon), ``Err:      0``;
* rows without a leading space (``12:``), names with spaces and commas
  (``ehci_hcd:usb1, uhci_hcd:usb8``, ``PCIe PME``), empty names, blank lines, trailing spaces.

Text that is not /proc/interrupts never makes the parser raise: lines that do not look like
a row are skipped, and a row is kept with whatever leading counts it has (possibly fewer than
the number of CPUs, as for ``ERR:`` or a truncated last line).

CPU columns. With a header, the CPU numbers come from it (``CPU0 CPU1 CPU3`` has a gap when
CPU2 is offline) and each row contributes at most that many counts. Without a header (a
``grep`` of /proc/interrupts) the number of columns is inferred as the largest number of
leading integer tokens, over the rows where those integers are followed by a non-integer
token (the chip or name), and the CPUs are numbered 0..n-1. Rows that are integers only
(``ERR: 0``, a row cut after its counts) do not take part. This is ambiguous in one
way: if the token after the counts were itself an integer (a chip printed as a number, or a
hwirq with no chip column), that row would be read as having one CPU more. The kernel always
prints a chip name (``None`` or ``-`` if it has none) on numbered rows, so this does not
happen with real captures; with a header the header wins and the question does not arise.

Speed: the text is split into lines once; for each row one ``str.split(None, ncpus)``
separates the counts from the tail and ``map(int, ...)`` converts them. The cost is linear in
the size of the text. :func:`parse_interrupts_selected` skips the count conversion (the
dominant cost) for rows whose label is not wanted.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from operator import eq
from typing import TYPE_CHECKING

__all__ = [
    "Counts",
    "Interrupts",
    "InterruptsParser",
    "IrqRow",
    "parse_interrupts",
    "parse_interrupts_selected",
]

# Printed after the hwirq number on architectures with GENERIC_IRQ_SHOW_LEVEL (arm, arm64...).
_TRIGGERS = frozenset({"Level", "Edge"})
# Old kernels glue the flow handler to the chip name ("PCI-MSI-edge", "IO-APIC-fasteoi",
# "XT-PIC-XT") and print no hwirq; whatever follows such a chip is the name.
_GLUED_HANDLERS = frozenset({"edge", "level", "fasteoi", "simple", "percpu", "XT"})
# A CPU header token longer than this is not a CPU number (and would trip int()'s digit limit).
_MAX_CPU_DIGITS = 9


if TYPE_CHECKING:
    _Array = array[int]
else:
    _Array = array  # array[int] is subscriptable at run time only from Python 3.12


class Counts(_Array):
    """A row's counts as the parser keeps them: 4 bytes a count (8 past 2**32-1), where a
    tuple took an 8-byte slot and, past 256, a 32-byte int object. At 1000 rows x 1152 CPUs
    that was most of what a parsed table held (issue 38's 80 MB goal).

    Equal to a tuple (or another array) of the same numbers, as a tuple of them would be, and
    hashed alike: rows built elsewhere (the per-IRQ files, tests) keep tuples."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if isinstance(other, array):
            return array.__eq__(self, other)  # a memcmp under the same typecode
        if isinstance(other, tuple):
            return len(self) == len(other) and all(map(eq, self, other))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self) -> int:  # type: ignore[override]  # array is unhashable; rows are not
        return hash(tuple(self))

    def __repr__(self) -> str:
        return repr(tuple(self))


def _pack(counts: tuple[int, ...]) -> Sequence[int]:
    """`counts` in the smallest Counts that holds them (the kernel's are 32-bit), or as they
    are if none does (text with larger numbers than any kernel prints)."""
    try:
        return Counts("I", counts)
    except OverflowError:
        pass
    try:
        return Counts("Q", counts)
    except OverflowError:
        return counts


@dataclass(frozen=True, slots=True)
class IrqRow:
    """One line of /proc/interrupts."""

    irq: str
    """The label before the colon: ``"38"``, ``"NMI"``, ``"LOC"``, ``"IPI0"``, ``"ERR"``..."""
    counts: Sequence[int]
    """One per CPU column present on this row, in header order. ``ERR``/``MIS``/``Err`` have
    a single total; a truncated row may have fewer than the number of CPUs. The parser gives
    a Counts (compact; equal to the tuple of the same numbers), other readers a tuple."""
    chip: str = ""
    """Interrupt chip, e.g. ``PCI-MSIX-0000:00:03.0``, ``IR-PCI-MSI``, ``IO-APIC``, ``GICv3``,
    or the old glued form ``PCI-MSI-edge``. Empty for named rows (``NMI``...)."""
    hwirq: str = ""
    """Hardware IRQ and trigger, e.g. ``1-edge``, ``65536-edge``, ``27 Level``; empty if none."""
    name: str = ""
    """Action names as printed, e.g. ``virtio2-input.0``, ``ehci_hcd:usb1, uhci_hcd:usb8`` or
    ``Local timer interrupts``. May contain spaces and commas; may be empty."""

    @property
    def numeric(self) -> bool:
        """True for a numbered IRQ (``38``), False for ``NMI``, ``LOC``, ``IPI0``..."""
        return self.irq.isascii() and self.irq.isdigit()

    @property
    def total(self) -> int:
        """Sum over the CPU columns present."""
        return sum(self.counts)


@dataclass(frozen=True, slots=True)
class Interrupts:
    """One sample of /proc/interrupts."""

    cpus: tuple[int, ...]
    """CPU numbers of the count columns: from the header (gaps when CPUs are offline), or
    0..n-1 inferred from the widest row when there is no header (a grep subset)."""
    rows: tuple[IrqRow, ...]
    has_header: bool

    @property
    def ncpus(self) -> int:
        return len(self.cpus)

    def by_irq(self) -> dict[str, IrqRow]:
        """Rows keyed by label. If a label occurs twice (never in real captures), the last wins."""
        return {row.irq: row for row in self.rows}


def parse_interrupts(text: str) -> Interrupts:
    """Parse the whole text of /proc/interrupts (or any part of it). Never raises."""
    return _parse(text, None)


def parse_interrupts_selected(
    text: str, wanted: Callable[[str], bool] | Collection[str]
) -> Interrupts:
    """Like :func:`parse_interrupts`, but keep only the rows whose label is wanted.

    ``wanted`` is a predicate on the label (``"38"``, ``"LOC"``...) or a collection of labels.
    The counts of the other rows are never converted, which is most of the work on hosts with
    many CPUs. Without a header the CPU count is still inferred from all rows, so ``cpus`` is
    the same as with :func:`parse_interrupts`.
    """
    if callable(wanted):
        return _parse(text, wanted)
    labels = frozenset(wanted)
    return _parse(text, labels.__contains__)


# A row's line as last seen: its length and its digest (_digest), and the row parsed from it.
_Seen = tuple[int, int, IrqRow]
# The same in table order, with the row's label (parse_ascii's next tick looks there first).
_Placed = tuple[int, int, str, IrqRow]


def _digest(line: str | bytes) -> int:
    """What stands for a row's line between two reads: its hash(), a 64-bit SipHash with this
    process's random key (sys.hash_info). Kept instead of the line itself: at 1000 rows x
    1152 CPUs the lines were 12.7 MB (issue 38), 1000 digests are 40 KB.

    Two different lines of the same length and label hash alike with a chance of 2**-64 (the
    key is secret, so no text can be made to); then that row keeps last read's counts until
    its line changes again, which a moving counter soon does. A plain-ASCII str and its bytes
    hash alike in CPython (both hash the same bytes), so the text and the buffer paths share
    the digests; were they to differ, a row would only be converted once more."""
    return hash(line)


class InterruptsParser:
    """Parses successive samples of one host's /proc/interrupts, converting only the rows whose
    text changed since the previous sample.

    On a real host most IRQ rows do not move between two ticks (idle devices, other queues), and
    turning their counts into integers is most of the parsing cost (two million cells at 1024
    CPUs x 2048 IRQs). A row whose line is the same as last time (the same length and digest,
    see _digest), under the same CPU header, has the same counts: its previous IrqRow object
    is reused. Hashing a line runs in C; the result is that of :func:`parse_interrupts`.
    """

    __slots__ = ("_bheader", "_cpus", "_header", "_order", "_rows")

    def __init__(self) -> None:
        self._header: str | None = None
        self._cpus: tuple[int, ...] = ()  # the header's CPUs
        self._bheader: bytes | None = None  # the header, encoded (parse_ascii)
        self._rows: dict[str, _Seen] = {}  # by label
        # Last tick's rows in table order (parse_ascii): the next tick tries the row at the
        # same place first (no newline searched, no label decoded).
        self._order: list[_Placed] = []

    def parse(self, text: str) -> Interrupts:
        header = self._header
        if (
            header is not None
            and text.startswith(header)
            and text[len(header) : len(header) + 1] == "\n"
        ):
            # The same header as last time, as the first line (every tick of a live host): the
            # rows are found in place, an unchanged one compared where it lies and never copied
            # (a 1000-row table at 1152 CPUs is 13 MB: splitting it into lines cost more than
            # everything else the tick did with it). The header's CPUs are kept.
            cache: dict[str, _Seen] = {}
            rows = _scan_rows(text, len(header) + 1, self._cpus, self._rows, cache)
            self._rows, self._order = cache, []
            return Interrupts(cpus=self._cpus, rows=rows, has_header=True)
        return self._parse_lines(text)

    def parse_ascii(self, buf: bytearray, n: int) -> Interrupts | None:
        """parse() of the text in buf[:n] (root.read_into's buffer, reused between ticks), or
        None when it is not plain ASCII without CRs: the caller then decodes it as read_text
        does (an error, or CRs made newlines). Under last tick's header the rows are found in
        the buffer itself: only a changed row is copied out and decoded."""
        header = self._bheader
        if (
            header is None
            or n <= len(header)
            or not buf.startswith(header)
            or buf[len(header)] != 10
        ):
            data = buf[:n]
            if not data.isascii() or data.find(b"\r") >= 0:
                return None
            return self._parse_lines(data.decode("ascii"))
        # Under the same header only the lines not found unchanged are checked (and decoded):
        # an unchanged one is last tick's, checked then (13 MB is ~2 ms a scan, issue 38).
        cache: dict[str, _Seen] = {}
        order: list[_Placed] = []
        rows = _scan_ascii(
            buf, n, len(header) + 1, self._cpus, (self._rows, self._order), (cache, order)
        )
        if rows is None:
            return None
        self._rows, self._order = cache, order
        return Interrupts(cpus=self._cpus, rows=rows, has_header=True)

    def _parse_lines(self, text: str) -> Interrupts:
        lines = text.split("\n")
        header, cpus = _find_header(lines)
        if cpus is None:  # a grep subset: no header to key the cache on
            self._header, self._rows, self._order = None, {}, []
            return _parse_headerless(lines, None)
        previous = self._rows if header == self._header else {}
        cache: dict[str, _Seen] = {}
        # Kept for the fast path only when the header is the first line (as the kernel prints).
        first = header is not None and text.startswith(header + "\n")
        plain = first and text.isascii() and "\r" not in text
        order: list[_Placed] | None = [] if plain else None
        rows = _parse_rows(lines, cpus, None, previous, cache, order)
        self._header, self._cpus, self._rows = (header if first else None), cpus, cache
        self._order = order or []
        self._bheader = (
            header.encode()
            if first and header is not None and header.isascii() and "\r" not in header
            else None
        )
        return Interrupts(cpus=cpus, rows=rows, has_header=True)


def _find_header(lines: list[str]) -> tuple[str | None, tuple[int, ...] | None]:
    for line in lines:
        # Rows always contain a colon; the header never does. Checking for a colon first keeps
        # the header search cheap even when there is no header at all.
        if ":" not in line:
            cpus = _header_cpus(line)
            if cpus is not None:
                return line, cpus
    return None, None


def _parse(text: str, wanted: Callable[[str], bool] | None) -> Interrupts:
    lines = text.split("\n")
    _, cpus = _find_header(lines)
    if cpus is None:
        return _parse_headerless(lines, wanted)
    rows = _parse_rows(lines, cpus, wanted, None, None)
    return Interrupts(cpus=cpus, rows=rows, has_header=True)


def _parse_rows(
    lines: list[str],
    cpus: tuple[int, ...],
    wanted: Callable[[str], bool] | None,
    previous: dict[str, _Seen] | None,
    cache: dict[str, _Seen] | None,
    order: list[_Placed] | None = None,
) -> tuple[IrqRow, ...]:
    """`order` (ASCII text only): gets each row in table order, for parse_ascii."""
    ncol = len(cpus)
    rows: list[IrqRow] = []
    append = rows.append
    for line in lines:
        colon = line.find(":")
        if colon < 0:
            continue
        label = line[:colon].strip()
        if not label or not _is_label(label):
            continue
        if wanted is not None and not wanted(label):
            continue
        key = _digest(line) if cache is not None else 0
        if previous is not None:
            seen = previous.get(label)
            if seen is not None and seen[0] == len(line) and seen[1] == key:
                append(seen[2])
                if cache is not None:
                    cache[label] = seen
                if order is not None:
                    order.append((len(line), key, label, seen[2]))
                continue
        # The counts are sliced only here: an unchanged row never copies them.
        row = _row_of(label, line[colon + 1 :], ncol)
        if row is None:
            continue
        append(row)
        if cache is not None:
            cache[label] = (len(line), key, row)
        if order is not None:
            order.append((len(line), key, label, row))
    return tuple(rows)


def _scan_rows(
    text: str,
    pos: int,
    cpus: tuple[int, ...],
    previous: dict[str, _Seen],
    cache: dict[str, _Seen],
) -> tuple[IrqRow, ...]:
    """What _parse_rows gives for text[pos:]'s lines, found by position instead of split: a
    line like its label's last one (length and digest) reuses that row."""
    ncol = len(cpus)
    rows: list[IrqRow] = []
    append = rows.append
    size = len(text)
    find = text.find
    while pos <= size:
        end = find("\n", pos)
        if end < 0:
            end = size
        colon = find(":", pos, end)
        start, pos = pos, end + 1
        if colon < 0:
            continue
        label = text[start:colon].strip()
        if not label or not _is_label(label):
            continue
        line = text[start:end]
        key = _digest(line)
        seen = previous.get(label)
        if seen is not None and seen[0] == len(line) and seen[1] == key:
            append(seen[2])
            cache[label] = seen
            continue
        row = _row_of(label, line[colon - start + 1 :], ncol)
        if row is not None:
            append(row)
            cache[label] = (len(line), key, row)
    return tuple(rows)


def _scan_ascii(
    buf: bytearray,
    size: int,
    pos: int,
    cpus: tuple[int, ...],
    last: tuple[dict[str, _Seen], list[_Placed]],
    out: tuple[dict[str, _Seen], list[_Placed]],
) -> tuple[IrqRow, ...] | None:
    """_scan_rows on bytes buf[:size], or None where a line is not plain ASCII without CRs:
    only a label and a changed line are decoded.

    `last` is the previous tick's rows by label and in table order; `out` gets this tick's.
    Rows rarely move, so each line is first taken as the row that came next last tick: a
    newline where its line ended and the same digest are the same line, hence the same row,
    with no newline or colon searched and no label decoded (1000 rows x 1152 CPUs, issue 38).
    Any other line is looked up by its label, and the order resumes after that label's place.
    """
    previous, order = last
    cache, new_order = out
    ncol = len(cpus)
    rows: list[IrqRow] = []
    append, keep = rows.append, new_order.append
    find = buf.find
    k, nprev = 0, len(order)
    index: dict[str, int] | None = None
    with memoryview(buf) as view:  # a line is copied once (to hash it), never twice
        while pos <= size:
            end = -1
            if k < nprev:
                entry = order[k]
                end = pos + entry[0]
                if end > size or (end < size and buf[end] != 10):
                    end = -1  # not where last tick's next line would end
            if end < 0:
                end = find(b"\n", pos, size)
                if end < 0:
                    end = size
            start, pos = pos, end + 1
            line = bytes(view[start:end])
            key = _digest(line)
            if k < nprev and entry[0] == len(line) and entry[1] == key:
                append(entry[3])
                keep(entry)
                cache[entry[2]] = (entry[0], key, entry[3])
                k += 1
                continue
            if not line.isascii() or b"\r" in line:
                return None  # the caller decodes the text as read_text does
            colon = line.find(b":")
            if colon < 0:
                continue
            label = line[:colon].decode("ascii").strip()  # str.strip: the same as parse()
            if not label or not _is_label(label):
                continue
            if nprev:
                if index is None:
                    index = {placed[2]: i for i, placed in enumerate(order)}
                k = index.get(label, k - 1) + 1
            seen = previous.get(label)
            if seen is not None and seen[0] == len(line) and seen[1] == key:
                append(seen[2])
                cache[label] = seen
                keep((seen[0], key, label, seen[2]))
                continue
            row = _row_of(label, line[colon + 1 :].decode("ascii"), ncol)
            if row is not None:
                append(row)
                cache[label] = (len(line), key, row)
                keep((len(line), key, label, row))
    return tuple(rows)


def _row_of(label: str, rest: str, ncol: int) -> IrqRow | None:
    """One row from the text after its label's colon (None: no counts, not a row)."""
    parts = rest.split(None, ncol)
    tail = parts.pop() if len(parts) > ncol else ""
    try:
        counts = tuple(map(int, parts))
    except ValueError:
        # Fewer counts than CPUs followed by text, or garbage: go token by token.
        count_list, tail = _leading_counts(rest, ncol)
        counts = tuple(count_list)
    if not counts:
        return None
    return _make_row(label, counts, tail)


def _parse_headerless(lines: list[str], wanted: Callable[[str], bool] | None) -> Interrupts:
    # First pass: the leading integers of every row and whether text follows them.
    pending: list[tuple[str, str, list[int], str]] = []
    ncol = 0
    ncol_any = 0
    for line in lines:
        label, sep, rest = line.partition(":")
        if not sep:
            continue
        label = label.strip()
        if not label or not _is_label(label):
            continue
        counts, tail = _leading_counts(rest, None)
        if not counts:
            continue
        n = len(counts)
        ncol_any = max(ncol_any, n)
        if tail:
            ncol = max(ncol, n)
        pending.append((label, rest, counts, tail))
    if ncol == 0:
        ncol = ncol_any

    rows: list[IrqRow] = []
    for label, rest, counts, tail in pending:
        if wanted is not None and not wanted(label):
            continue
        if len(counts) > ncol:
            # More leading integers than columns: the extra ones belong to the tail.
            tail = rest.split(None, ncol)[ncol].rstrip()
            counts = counts[:ncol]
        rows.append(_make_row(label, tuple(counts), tail))
    return Interrupts(cpus=tuple(range(ncol)), rows=tuple(rows), has_header=False)


def _header_cpus(line: str) -> tuple[int, ...] | None:
    """``CPU0 CPU1 CPU3`` -> (0, 1, 3); None if the line is not a header."""
    tokens = line.split()
    if not tokens:
        return None
    cpus: list[int] = []
    for tok in tokens:
        num = tok[3:]
        if (
            not tok.startswith("CPU")
            or not num
            or len(num) > _MAX_CPU_DIGITS
            or not (num.isascii() and num.isdigit())
        ):
            return None
        cpus.append(int(num))
    return tuple(cpus)


def _is_label(label: str) -> bool:
    # A label is one token: "38", "NMI", "IPI0", "I/O" (s390). Anything with a space inside is
    # prose that happens to contain a colon.
    return len(label.split(None, 1)) == 1


def _to_count(tok: str) -> int | None:
    if not (tok.isascii() and tok.isdigit()):
        return None
    try:
        return int(tok)
    except ValueError:  # more digits than int() accepts from a string
        return None


def _leading_counts(rest: str, limit: int | None) -> tuple[list[int], str]:
    """Leading integer tokens of ``rest`` (at most ``limit``) and the stripped text after them."""
    tokens = rest.split()
    counts: list[int] = []
    for tok in tokens:
        if limit is not None and len(counts) >= limit:
            break
        value = _to_count(tok)
        if value is None:
            break
        counts.append(value)
    k = len(counts)
    if len(tokens) <= k:
        return counts, ""
    return counts, rest.split(None, k)[k].rstrip()


def _make_row(label: str, numbers: tuple[int, ...], tail: str) -> IrqRow:
    counts = _pack(numbers)
    if not tail:
        return IrqRow(label, counts)
    if not (label.isascii() and label.isdigit()):
        # NMI, LOC, IPI0, ... : the rest is a description.
        return IrqRow(label, counts, name=tail.rstrip())
    chip, hwirq, name = _split_tail(tail)
    return IrqRow(label, counts, chip, hwirq, name)


def _split_tail(tail: str) -> tuple[str, str, str]:
    """``'PCI-MSI 65536-edge  nvme0q0'`` -> (chip, hwirq, name); ``tail`` is left-stripped."""
    tp = tail.split(None, 3)
    if not tp:
        return "", "", ""
    chip = tp[0]
    if len(tp) == 1:
        return chip, "", ""
    if chip.rpartition("-")[2] in _GLUED_HANDLERS:
        return chip, "", _after(tail, 1)
    t1 = tp[1]
    if t1.isascii() and t1.isdigit():
        # "GICv3  27 Level  arch_timer" or a bare number "XICS 4  name".
        if len(tp) >= 3 and tp[2] in _TRIGGERS:
            return chip, f"{t1} {tp[2]}", tp[3].rstrip() if len(tp) == 4 else ""
        return chip, t1, _after(tail, 2)
    if t1 in _TRIGGERS:
        return chip, t1, _after(tail, 2)
    head, dash, trigger = t1.partition("-")
    if dash and head.isascii() and head.isdigit() and trigger.isalpha():
        # "1-edge", "65536-edge", "9-fasteoi"
        return chip, t1, _after(tail, 2)
    return chip, "", _after(tail, 1)


def _after(text: str, k: int) -> str:
    """The text after the first ``k`` whitespace-separated tokens, inner spacing intact."""
    parts = text.split(None, k)
    return parts[k].rstrip() if len(parts) > k else ""
