"""Parsers for the per-CPU counters in /proc: stat, softirqs and net/softnet_stat.

Parsers take text and never raise on odd input: a row they cannot read is skipped, because a
monitor that dies on one odd line is worse than one that shows one row less.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import repeat

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


@dataclass(frozen=True, slots=True)
class ProcStat:
    total: CpuTimes  # the aggregate "cpu" line
    cpus: dict[int, CpuTimes]  # per online CPU ("cpuN" lines exist only for online CPUs)
    ctxt: int | None = None
    intr_total: int | None = None
    procs_running: int | None = None


def _times(fields: list[str]) -> CpuTimes | None:
    try:
        return CpuTimes(*map(int, fields[: len(CPU_FIELDS)]))  # in C: a line per CPU a tick
    except ValueError:
        return None


def parse_stat(text: str) -> ProcStat:
    total = CpuTimes()
    cpus: dict[int, CpuTimes] = {}
    ctxt = intr = running = None
    for line in text.splitlines():
        if not line.startswith(("cpu", "ctxt", "intr", "procs_running")):
            continue
        fields = line.split()
        if not fields:
            continue
        head = fields[0]
        if head == "cpu":
            t = _times(fields[1:])
            if t is not None:
                total = t
        elif head.startswith("cpu") and _digits(head[3:]):
            t = _times(fields[1:])
            if t is not None:
                cpus[int(head[3:])] = t
        elif len(fields) > 1 and _digits(fields[1]):
            if head == "ctxt":
                ctxt = int(fields[1])
            elif head == "intr":
                intr = int(fields[1])
            elif head == "procs_running":
                running = int(fields[1])
    return ProcStat(total, cpus, ctxt, intr, running)


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


def _header_cpus(line: str) -> tuple[int, ...]:
    return tuple(int(tok[3:]) for tok in line.split() if tok.startswith("CPU") and _digits(tok[3:]))


def parse_softirqs(text: str) -> Softirqs:
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
        toks = rest.split()
        if _digits("".join(toks)):  # every token a count: converted in C (1152 CPUs a row)
            counts[name.strip()] = tuple(map(int, toks))
            continue
        values: list[int] = []
        for tok in toks:
            if not _digits(tok):
                break
            values.append(int(tok))
        counts[name.strip()] = tuple(values)
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
        if seen is not None:
            at = online[n] if online is not None and n < len(online) else n
            old = seen.get((at, line))
            if old is not None:
                rows[old.cpu] = now[at, line] = old
                continue
        try:
            v = list(map(int, line.split(), _HEX))  # in C: a line per CPU a tick
        except ValueError:
            continue
        if len(v) < 3:
            continue

        if len(v) >= 13:
            cpu = v[12]
        elif online is not None and n < len(online):
            cpu = online[n]
        else:
            cpu = n
        rps, flow, backlog, inq, procq = (v[i] if len(v) > i else None for i in (9, 10, 11, 13, 14))
        collision = v[8] if len(v) > 8 else None
        rows[cpu] = SoftnetRow(
            cpu, v[0], v[1], v[2], rps, flow, backlog, inq, procq, len(v), collision
        )
        if seen is not None:
            now[at, line] = rows[cpu]
    if seen is not None:
        seen.clear()
        seen.update(now)
    return rows
