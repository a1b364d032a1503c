"""CPU accounting of other processes from /proc, read only: what the benchmarks measure.

A process's utime+stime in /proc/PID/stat covers all its threads, the live ones and the ones
that already exited; cutime+cstime add its children that it has waited for. Children still
alive are found by walking the ppid links of /proc/*/stat and are added on top.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

CLK_TCK = os.sysconf("SC_CLK_TCK")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024


@dataclass(frozen=True, slots=True)
class ProcStat:
    pid: int
    comm: str
    ppid: int
    cpu: float  # utime + stime, seconds (all threads, dead ones too)
    children_cpu: float  # cutime + cstime: reaped children, seconds
    threads: int
    rss_kb: int

    @property
    def total(self) -> float:
        return self.cpu + self.children_cpu


def _split_stat(text: str) -> tuple[str, list[str]]:
    # comm is in parentheses and may hold spaces or ')': split at the last ')'.
    head, _, rest = text.rpartition(")")
    return head.partition("(")[2], rest.split()


def read_stat(pid: int, task: int | None = None) -> ProcStat | None:
    """/proc/PID/stat (or one thread's /proc/PID/task/TID/stat); None once it is gone."""
    path = f"/proc/{pid}/task/{task}/stat" if task is not None else f"/proc/{pid}/stat"
    try:
        text = Path(path).read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    comm, f = _split_stat(text)
    # f[0] is field 3 (state) of proc(5): utime is field 14, so f[11].
    return ProcStat(
        pid=task if task is not None else pid,
        comm=comm,
        ppid=int(f[1]),
        cpu=(int(f[11]) + int(f[12])) / CLK_TCK,
        children_cpu=(int(f[13]) + int(f[14])) / CLK_TCK,
        threads=int(f[17]),
        rss_kb=int(f[21]) * PAGE_KB,
    )


def descendants(pid: int) -> list[int]:
    """Live descendants of pid, from the ppid field of every /proc/*/stat."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        st = read_stat(int(entry.name))
        if st is not None:
            children.setdefault(st.ppid, []).append(st.pid)
    out: list[int] = []
    todo = list(children.get(pid, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return sorted(out)


def tree_cpu(pid: int) -> dict[int, float]:
    """CPU seconds per process of the tree under pid (itself included), reaped children
    folded into their parent."""
    out: dict[int, float] = {}
    for p in (pid, *descendants(pid)):
        st = read_stat(p)
        if st is not None:
            out[p] = st.total
    return out


def tree_delta(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU seconds the tree used between two tree_cpu() readings. A process new in `after`
    counts from 0; one that vanished was reaped into its parent's cutime, whole life
    included, so its `before` part is taken off again."""
    return sum(after.values()) - sum(before.values())


def thread_cpu(pid: int) -> dict[int, tuple[str, float]]:
    """tid -> (comm, CPU seconds) for each live thread of pid."""
    out: dict[int, tuple[str, float]] = {}
    try:
        tids = [int(t) for t in os.listdir(f"/proc/{pid}/task")]
    except FileNotFoundError:
        return out
    for tid in tids:
        st = read_stat(pid, tid)
        if st is not None:
            out[tid] = (st.comm, st.cpu)
    return out


def run_ns(pid: int) -> int:
    """Nanoseconds on CPU of the live threads of pid (task/*/schedstat): finer than the
    10 ms ticks of stat, for tools that use less than a tick per second."""
    total = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        return 0
    for tid in tids:
        with contextlib.suppress(FileNotFoundError, ProcessLookupError, IndexError):
            total += int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[0])
    return total


def io_bytes(pid: int) -> tuple[int, int]:
    """(rchar, wchar) of /proc/PID/io: bytes read and written by syscalls (the terminal
    output is in wchar), or (0, 0) when unreadable."""
    try:
        fields = dict(
            line.split(": ", 1) for line in Path(f"/proc/{pid}/io").read_text().splitlines()
        )
    except OSError:
        return 0, 0
    return int(fields.get("rchar", 0)), int(fields.get("wchar", 0))


@dataclass(frozen=True, slots=True)
class MachineTimes:
    busy: float  # seconds of CPU time not idle nor iowait, all CPUs
    total: float
    steal: float

    def busy_cpus(self, earlier: MachineTimes, wall: float) -> float:
        """Average number of CPUs busy between two readings `wall` seconds apart."""
        return (self.busy - earlier.busy) / wall if wall > 0 else 0.0

    def steal_share(self, earlier: MachineTimes) -> float:
        span = self.total - earlier.total
        return (self.steal - earlier.steal) / span if span > 0 else 0.0


def machine_times() -> MachineTimes:
    """The aggregate `cpu` line of /proc/stat."""
    with open("/proc/stat") as f:
        first = f.readline().split()
    v = [int(x) / CLK_TCK for x in first[1:]]
    # user nice system idle iowait irq softirq steal guest guest_nice; guest is inside user.
    total = sum(v[:8])
    return MachineTimes(busy=total - v[3] - v[4], total=total, steal=v[7])


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def default_route_interface() -> str | None:
    """The interface of the IPv4 default route, from /proc/net/route."""
    for line in Path("/proc/net/route").read_text().splitlines()[1:]:
        f = line.split()
        if len(f) > 2 and f[1] == "00000000":
            return f[0]
    return None
