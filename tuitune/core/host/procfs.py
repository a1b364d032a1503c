"""Parsers for the per-CPU counters in /proc: stat, softirqs and net/softnet_stat.

Parsers take text and never raise on odd input: a row they cannot read is skipped, because a
monitor that dies on one odd line is worse than one that shows one row less.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress, count, repeat
from operator import ne

from tuitune.core.host.cells import Cells, to_ints

# /proc/stat cpu line fields, in kernel order (fs/proc/stat.c). Older kernels print fewer.
CPU_FIELDS = (
    "user",
    "nice",
    "system",
    "idle",
    "iowait",
    "irq",
    "softirq",
    "steal",
    "guest",
    "guest_nice",
)


@dataclass(frozen=True, slots=True)
class CpuTimes:
    """Jiffies (USER_HZ ticks) spent per state, as /proc/stat gives them."""

    user: int = 0
    nice: int = 0
    system: int = 0
    idle: int = 0
    iowait: int = 0
    irq: int = 0
    softirq: int = 0
    steal: int = 0
    guest: int = 0  # already counted inside user
    guest_nice: int = 0  # already counted inside nice

    @property
    def total(self) -> int:
        # guest and guest_nice are included in user and nice, so they are not added again.
        return (
            self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
        )


_NF = len(CPU_FIELDS)


@dataclass(frozen=True, slots=True)
class ProcStat:
    """/proc/stat. The cpuN lines are kept as columns, one tuple per field of CPU_FIELDS in
    the order of `ids`: a 1152-CPU host's tick turns them into rates with a few zip() passes
    instead of 1152 objects (`cpus` builds the objects for whoever asks)."""

    total: CpuTimes  # the aggregate "cpu" line
    ids: tuple[int, ...]  # online CPUs ("cpuN" lines exist only for them), in line order
    columns: tuple[tuple[int, ...], ...]  # columns[k][i]: field CPU_FIELDS[k] of CPU ids[i]
    ctxt: int | None = None
    intr_total: int | None = None
    procs_running: int | None = None
    _cpus: dict[int, CpuTimes] | None = field(default=None, compare=False, repr=False)

    @classmethod
    def from_cpus(
        cls,
        total: CpuTimes,
        cpus: dict[int, CpuTimes],
        ctxt: int | None = None,
        intr_total: int | None = None,
        procs_running: int | None = None,
    ) -> ProcStat:
        ids = tuple(cpus)
        columns = tuple(tuple(getattr(cpus[c], f) for c in ids) for f in CPU_FIELDS)
        return cls(total, ids, columns, ctxt, intr_total, procs_running)

    @property
    def cpus(self) -> dict[int, CpuTimes]:
        """Per online CPU, in line order (built on first use, then kept)."""
        if self._cpus is None:
            rows = zip(*self.columns, strict=True)
            cpus = {c: CpuTimes(*row) for c, row in zip(self.ids, rows, strict=False)}
            object.__setattr__(self, "_cpus", cpus)  # frozen: a cache, not a change
            return cpus
        return self._cpus


def _times(fields: list[str]) -> CpuTimes | None:
    try:
        return CpuTimes(*map(int, fields[:_NF]))
    except ValueError:
        return None


def parse_stat(text: str) -> ProcStat:
    return StatParser().parse(text)


class StatParser:
    """Parses successive samples of one host's /proc/stat. The cpuN lines are split into
    columns; a column whose text did not change since the last sample (an idle host's nice,
    irq, steal, guest...) keeps its integers and its tuple, so that the rates see `is` and
    skip it, and within the others only the changed cells are converted (cells.to_ints).
    The result is identical to a fresh parse."""

    __slots__ = ("_columns", "_heads", "_ids")

    def __init__(self) -> None:
        self._heads: list[str] = []  # the last sample's "cpuN" tokens
        self._ids: tuple[int, ...] = ()  # and the CPU numbers they gave (checked unique)
        self._columns: list[Cells | None] = [None] * _NF

    def parse(self, text: str) -> ProcStat:
        lines = text.splitlines()
        # The kernel's layout: the aggregate "cpu" line, one line per online CPU, the rest.
        # Its cpuN block is found with str.count and checked in C, not line by line.
        k = text.count("\ncpu") + text.startswith("cpu")
        first = lines[0] if lines else ""
        if (
            k > 1
            and (len(first) == 3 or first[3:4].isspace())
            and all(map(str.startswith, lines[:k], repeat("cpu")))
        ):
            ctxt, intr, running, more = _other_lines(lines[k:])
            block = None if more else self._cpu_block(lines[1:k])
            if block is not None:
                total = _times(first.split()[1:]) or CpuTimes()
                return ProcStat(total, block[0], block[1], ctxt, intr, running)
        return self._parse_lines(lines)

    def _parse_lines(self, lines: list[str]) -> ProcStat:
        """Any layout: an aggregate line anywhere (the last valid one counts), cpuN lines in
        any order."""
        total = CpuTimes()
        cpu_lines: list[str] = []
        for line in lines:
            if line.startswith("cpu"):
                if len(line) == 3 or line[3].isspace():  # the aggregate "cpu" line
                    t = _times(line.split()[1:])
                    if t is not None:
                        total = t
                else:
                    cpu_lines.append(line)
        ctxt, intr, running, _ = _other_lines(lines)
        block = self._cpu_block(cpu_lines)
        if block is not None:
            return ProcStat(total, block[0], block[1], ctxt, intr, running)
        return ProcStat.from_cpus(total, _cpu_lines(cpu_lines), ctxt, intr, running)

    def _cpu_block(
        self, lines: list[str]
    ) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]] | None:
        """The cpuN lines in one split and a few slices, in C (1152 lines a tick on a big
        host); None unless every line is "cpuN" and the same number of ASCII-digit fields,
        each N once: anything else goes line by line (_cpu_lines), which skips what it cannot
        read."""
        n = len(lines)
        toks = " ".join(lines).split()
        width = len(toks) // n if n else 0
        if width < 1 or width * n != len(toks):
            return None
        heads = toks[0::width]
        cols = [toks[k::width] for k in range(1, width)]
        # Every value is digits, so no "cpuN" hides among them: each line is exactly one row.
        if not all(_digits("".join(col)) for col in cols):
            return None
        try:  # int() refuses a string of more than 4300 digits
            ids = self._ids if heads == self._heads else _cpu_ids(heads)
            if ids is None:
                return None
            self._heads, self._ids = heads, ids
            for k, col in enumerate(cols[:_NF]):
                self._columns[k] = to_ints(col, self._columns[k])
        except ValueError:
            return None
        columns = tuple(c.values for c in self._columns[: len(cols)] if c is not None)
        # Older kernels print fewer fields: the missing ones count as 0, as in CpuTimes.
        return ids, columns + ((0,) * n,) * (_NF - len(columns))


def _other_lines(lines: list[str]) -> tuple[int | None, int | None, int | None, bool]:
    """ctxt, intr's total and procs_running, and whether any of `lines` starts with "cpu"."""
    ctxt = intr = running = None
    more = False
    for line in lines:
        if line.startswith("cpu"):
            more = True
        if not line.startswith(("ctxt", "intr", "procs_running")):
            continue
        # Two fields only: "intr" has a count for every IRQ number (thousands on big hosts).
        fields = line.split(None, 2)
        if len(fields) > 1 and _digits(fields[1]) and len(fields[1]) < 4000:  # int()'s limit
            head = fields[0]
            if head == "ctxt":
                ctxt = int(fields[1])
            elif head == "intr":
                intr = int(fields[1])
            elif head == "procs_running":
                running = int(fields[1])
    return ctxt, intr, running, more


def _cpu_ids(heads: list[str]) -> tuple[int, ...] | None:
    """The N of each "cpuN", or None unless each is one and no N comes twice."""
    ids_text = [h[3:] for h in heads if h.startswith("cpu")]
    if len(ids_text) != len(heads) or not all(ids_text) or not _digits("".join(ids_text)):
        return None
    ids = tuple(map(int, ids_text))
    return ids if len(set(ids)) == len(ids) else None


def _cpu_lines(lines: list[str]) -> dict[int, CpuTimes]:
    """The cpuN lines one by one: a line that is not one is skipped; the last of a CPU wins."""
    cpus: dict[int, CpuTimes] = {}
    for line in lines:
        fields = line.split()
        if fields and fields[0].startswith("cpu") and _digits(fields[0][3:]):
            t = _times(fields[1:])
            if t is not None and len(fields[0]) < 4000:  # int() refuses 4300 digits
                cpus[int(fields[0][3:])] = t
    return cpus


# The rows of /proc/softirqs the live screen shows: a tick parses only these.
NET_SOFTIRQS = frozenset({"NET_RX", "NET_TX"})


@dataclass(frozen=True, slots=True)
class Softirqs:
    cpus: tuple[int, ...]  # CPU numbers from the header
    counts: dict[str, tuple[int, ...]]  # "NET_RX" -> one count per header CPU

    def per_cpu(self, name: str) -> dict[int, int]:
        row = self.counts.get(name, ())
        return dict(zip(self.cpus, row, strict=False))


def _digits(text: str) -> bool:
    """ASCII digits only: str.isdigit() also takes "²", which int() refuses."""
    return text.isascii() and text.isdigit()


@lru_cache(maxsize=4)  # the same header every tick: one hash of the line, not 1152 int()s
def _header_cpus(line: str) -> tuple[int, ...]:
    toks = line.split()
    # The usual header, every token "CPUn", converted at once in C (1152 tokens a tick).
    body = " ".join(toks)
    nums = body.replace("CPU", " ").split()
    if (
        body.startswith("CPU")
        and body.count("CPU") == len(toks) == len(nums)
        and body.count(" CPU") == len(toks) - 1
        and _digits("".join(nums))
        and max(map(len, nums)) < 4000
    ):
        return tuple(map(int, nums))
    return tuple(
        int(tok[3:])
        for tok in toks
        if tok.startswith("CPU") and _digits(tok[3:]) and len(tok) < 4000  # int()'s limit
    )


def _counts(toks: list[str]) -> tuple[int, ...]:
    """A row's counts up to its first token that is not one."""
    if _digits("".join(toks)):  # every token a count: converted in C (1152 CPUs a row)
        try:
            return tuple(map(int, toks))
        except ValueError:  # int() refuses 4300 digits: the slow way finds where
            pass
    values: list[int] = []
    for tok in toks:
        if not _digits(tok) or len(tok) >= 4000:
            break
        values.append(int(tok))
    return tuple(values)


def parse_softirqs(text: str, names: Collection[str] | None = None) -> Softirqs:
    """`names`: keep only these rows (the tick's NET_RX and NET_TX); the others are not split.
    Without a header line, the CPUs are numbered from 0 up to the longest row kept."""
    cpus: tuple[int, ...] = ()
    counts: dict[str, tuple[int, ...]] = {}
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("CPU"):
            cpus = _header_cpus(stripped)
            continue
        name, colon, rest = stripped.partition(":")
        if not colon:
            continue
        name = name.strip()
        if names is None or name in names:
            counts[name] = _counts(rest.split())
    if not cpus and counts:
        cpus = tuple(range(max(len(v) for v in counts.values())))
    return Softirqs(cpus, counts)


@dataclass(frozen=True, slots=True)
class SoftnetRow:
    """One row of /proc/net/softnet_stat (net/core/net-procfs.c); later columns may be absent."""

    cpu: int
    processed: int
    dropped: int  # backlog full: packets lost before the stack saw them
    time_squeeze: int  # net_rx_action ran out of budget or time with work left
    received_rps: int | None = None  # column 10 (2.6.35+)
    flow_limit_count: int | None = None  # column 11 (3.14+)
    backlog_len: int | None = None  # column 12 (5.10+)
    input_qlen: int | None = None  # column 14 (6.x)
    process_qlen: int | None = None  # column 15 (6.x)
    columns: int = 0
    # column 9: a CPU found the tx queue lock taken (old kernels; recent ones print 0 there)
    cpu_collision: int | None = None


_HEX = repeat(16)


def parse_softnet(
    text: str,
    online: list[int] | None = None,
    seen: dict[tuple[int, str], SoftnetRow] | None = None,
) -> dict[int, SoftnetRow]:
    """Rows are printed for online CPUs only. Column 13 (5.10+) names the CPU; on older kernels
    the n-th row belongs to the n-th online CPU, so pass `online` when some CPUs are offline.

    `seen`: the rows of the last call, by (CPU it was given, line), replaced by this call's: a
    line that did not change (an idle CPU's, most of a big host's) is not converted again."""
    rows: dict[int, SoftnetRow] = {}
    now: dict[tuple[int, str], SoftnetRow] = {}
    for n, line in enumerate(ln for ln in text.splitlines() if ln.strip()):
        at = online[n] if online is not None and n < len(online) else n
        if seen is not None:
            old = seen.get((at, line))
            if old is not None:
                rows[old.cpu] = now[at, line] = old
                continue
        row = _softnet_row(line, at)
        if row is None:
            continue
        rows[row.cpu] = row
        if seen is not None:
            now[at, line] = row
    if seen is not None:
        seen.clear()
        seen.update(now)
    return rows


def _softnet_row(line: str, at: int) -> SoftnetRow | None:
    """One line of softnet_stat; `at`: its CPU unless the line names one (column 13)."""
    try:
        v = list(map(int, line.split(), _HEX))  # in C: a line per CPU a tick
    except ValueError:
        return None
    if len(v) < 3:
        return None
    cpu = v[12] if len(v) >= 13 else at
    rps, flow, backlog, inq, procq = (v[i] if len(v) > i else None for i in (9, 10, 11, 13, 14))
    collision = v[8] if len(v) > 8 else None
    return SoftnetRow(cpu, v[0], v[1], v[2], rps, flow, backlog, inq, procq, len(v), collision)


class SoftnetParser:
    """parse_softnet for successive samples of one host: the lines are compared with the last
    sample's in C, and only the ones that changed are converted (most of a big host's CPUs
    have no packets); an unchanged line keeps its row object, which the rates skip by `is`.
    The result is identical to a fresh parse."""

    __slots__ = ("_lines", "_online", "_rows")

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._online: list[int] | None = None
        self._rows: list[SoftnetRow | None] = []  # one per line, None: not a row

    def parse(self, text: str, online: list[int] | None = None) -> dict[int, SoftnetRow]:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        at = online if online is not None else []
        if online == self._online and len(lines) == len(self._lines):
            rows = list(self._rows)
            for n in compress(count(), map(ne, lines, self._lines)):
                rows[n] = _softnet_row(lines[n], at[n] if n < len(at) else n)
        else:
            rows = [_softnet_row(ln, at[n] if n < len(at) else n) for n, ln in enumerate(lines)]
        self._lines, self._online, self._rows = lines, online, rows
        return {r.cpu: r for r in rows if r is not None}
