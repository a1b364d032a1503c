"""A 1152-CPU host in 16 NUMA nodes, the shape issue 22 item 8 was found on.

The 32-CPU host's real /proc/interrupts (netutils 2xE5-2640, igb i350 eth0 with 8 TxRx queues
on CPU0) repeated 36 times across the columns, as host_256cpu does 8 times; 576 cores with two
threads each (thread 2 numbered 576 higher), 36 cores a node. CPU0 is pegged by softirq; one
CPU far away on node 14 runs an application (high load, no soft-IRQ) and one on node 15 takes
soft-IRQ work (RPS), so the three orders of the CPU list differ at their first rows.

    python -m tests.support.fixture_big DIR   writes the tree to DIR/host_1152cpu, for
                                          `tuitune --root DIR/host_1152cpu eth0` in tmux

With `irq_files`, each sample also holds what a 4.17+ kernel has beside /proc/interrupts:
sys/kernel/irq/N/per_cpu_count for every numbered IRQ, written from that sample's own
/proc/interrupts counts (one per possible CPU, comma-separated, as kernel/irq/irqdesc.c
prints them), and sys/devices/system/cpu/possible.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.support.fixture_hosts import (
    PEGGED_INTERRUPTS,
    SHARED_FIXTURES,
    Load,
    ReplayReader,
    igb_ethtool,
    pegged_tree,
)
from tuitune.core.cpulist import format_cpulist
from tuitune.core.host.interrupts import parse_interrupts

NCPUS, NODES = 1152, 16
CORES = NCPUS // 2
PER_NODE = CORES // NODES  # 36 cores, 72 CPUs a node
APP_CPU = 14 * PER_NODE + 5  # node 14: busy in user space
RPS_CPU = 15 * PER_NODE + CORES + 3  # node 15, a second thread: soft-IRQ work


def node_cpus(node: int) -> set[int]:
    cores = range(node * PER_NODE, (node + 1) * PER_NODE)
    return {c for core in cores for c in (core, core + CORES)}


def widen_interrupts(text: str, nrows: int) -> str:
    """`text` with numbered rows added (copies of its own numbered rows' counts, under new IRQ
    numbers and names) up to `nrows` rows: a real 1152-CPU host has about 1000 IRQs (its
    /proc/interrupts is 13 MB), the 32-CPU capture 180."""
    ints = parse_interrupts(text)
    numbered = [r for r in ints.rows if r.numeric]
    lines = text.rstrip("\n").split("\n")
    first = max(int(r.irq) for r in numbered) + 1
    for k in range(nrows - len(ints.rows)):
        counts = numbered[k % len(numbered)].counts
        cells = "".join(f" {c:>10}" for c in counts)
        lines.append(f"{first + k:>4}:{cells}  PCI-MSI {k}-edge      blk{k}q")
    return "\n".join(lines) + "\n"


def write_irq_files(sample: Path, ncpus: int) -> None:
    """sample/sys/kernel/irq/N/per_cpu_count from sample/proc/interrupts (all CPUs online)."""
    ints = parse_interrupts((sample / "proc/interrupts").read_text())
    system = sample / "sys/devices/system/cpu"
    system.mkdir(parents=True, exist_ok=True)
    (system / "possible").write_text(f"0-{ncpus - 1}\n")
    (system / "online").write_text(f"0-{ncpus - 1}\n")
    for row in ints.rows:
        if row.numeric and len(row.counts) == ncpus:
            d = sample / "sys/kernel/irq" / row.irq
            d.mkdir(parents=True, exist_ok=True)
            (d / "per_cpu_count").write_text(",".join(map(str, row.counts)) + "\n")


def host_1152cpu(
    tmp: Path,
    samples: int = 3,
    interval: float = 1.0,
    fixtures: Path = SHARED_FIXTURES,
    irq_files: bool = False,
    rows: int | None = None,
) -> tuple[ReplayReader, str]:
    tree = pegged_tree(
        tmp / "host_1152cpu",
        NCPUS // 32,
        {APP_CPU: Load(80, 10, 0, 10), RPS_CPU: Load(5, 5, 30, 60)},
        samples,
        fixtures,
        bus="0000:02:00.0",
        nodes={n: format_cpulist(node_cpus(n)) for n in range(NODES)},
        hostname="1152cpu-16node",
        more_rows=None if rows is None else (lambda text: widen_interrupts(text, rows)),
        notes=[
            f"proc/interrupts sample 0: {PEGGED_INTERRUPTS} "
            "with its CPU columns repeated 36 times (scale_interrupts)",
            "proc/net/softnet_stat sample 0: the 32 rows repeated 36 times",
            "16 NUMA nodes of 36 cores, SMT siblings N and N+576: synthesised",
            *([f"proc/interrupts: widened to {rows} rows (widen_interrupts)"] if rows else []),
            *(["sys/kernel/irq/N/per_cpu_count: from each sample's counts"] if irq_files else []),
        ],
    )
    if irq_files:
        for n in range(samples):
            write_irq_files(tree / "samples" / str(n), NCPUS)
    return ReplayReader(tree, igb_ethtool(fixtures, "eth0"), interval), "eth0"


if __name__ == "__main__":
    reader, _ = host_1152cpu(Path(sys.argv[1]))
    reader.close()
    print(reader.root.sys.parent)
