"""A 1024-CPU fixture host made the way tests/tui/fixture_hosts.host_256cpu makes its 256.

The 32-CPU netutils ixgbe 82599 + igb i350 /proc/interrupts (180 rows) with its CPU columns
repeated 32 times (scale_interrupts), the real 32-CPU softnet_stat rows repeated 32 times,
two NUMA nodes whose shape is the real 256-CPU igb capture's (node 0 = 0-63,128-191, the
first half of the cores and their SMT siblings) at four times the size, and the igb's real
ethtool captures. CPU0 is pegged by the NIC's softirqs, as on the 256-CPU host.

`irq_rows` widens the capture to that many rows: the numbered rows are repeated under new IRQ
numbers with a new device name each (`synN`), so the NIC keeps its own 9 IRQs.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.fixture_hosts import (
    PEGGED_INTERRUPTS,
    SHARED_FIXTURES,
    Load,
    ReplayReader,
    igb_ethtool,
    pegged_tree,
)
from tuitune.core.cpulist import format_cpulist, parse_cpulist
from tuitune.core.host.interrupts import parse_interrupts


def widen_rows(text: str, nrows: int) -> str:
    """The capture with `nrows` rows: header and named rows (NMI, LOC...) once, numbered rows
    repeated in turn; copies get IRQ numbers above the capture's and the name synIRQ."""
    lines = [ln for ln in text.splitlines() if ln.strip()]
    header, body = lines[0], lines[1:]
    numbered = [ln for ln in body if ln.partition(":")[0].strip().isdigit()]
    named = [ln for ln in body if not ln.partition(":")[0].strip().isdigit()]
    want = nrows - len(named)
    if want < len(numbered):
        raise ValueError(f"{nrows} rows is fewer than the capture's {len(body)}")
    first_new = max(int(ln.partition(":")[0]) for ln in numbered) + 1
    width = len(str(first_new + want)) + 1
    out = [header]
    for k in range(want):
        label, _, rest = numbered[k % len(numbered)].partition(":")
        if k < len(numbered):
            irq = int(label)
        else:
            irq = first_new + k - len(numbered)
            head, _, _name = rest.rstrip().rpartition(" ")
            rest = f"{head} syn{irq}"
        out.append(f"{irq:>{width}}:{rest}")
    return "\n".join(out + named) + "\n"


def host_1024cpu(
    tmp: Path, samples: int = 2, irq_rows: int | None = None, fixtures: Path = SHARED_FIXTURES
) -> tuple[ReplayReader, str]:
    ncpus, bus = 1024, "0000:45:00.0"
    # host_256cpu's busy CPUs, moved to the same places in the larger nodes.
    busy = {
        1: Load(35, 10, 2, 53),
        2: Load(28, 9, 1, 62),
        3: Load(22, 6, 1, 71),
        256: Load(41, 7, 0, 52),
        257: Load(18, 4, 0, 78),
        513: Load(12, 3, 0, 85),
    }
    local = "0-255,512-767"
    rows = irq_rows or len(parse_interrupts((fixtures / PEGGED_INTERRUPTS).read_text()).rows)
    tree = pegged_tree(
        tmp / f"host_1024cpu_{rows}",
        ncpus // 32,
        busy,
        samples,
        fixtures,
        bus=bus,
        nodes={0: local, 1: format_cpulist(set(range(ncpus)) - parse_cpulist(local))},
        hostname="1024cpu-i350",
        more_rows=None if irq_rows is None else (lambda text: widen_rows(text, irq_rows)),
        notes=[
            f"proc/interrupts sample 0: {PEGGED_INTERRUPTS} with its CPU columns repeated 32 times"
            + (f", widened to {irq_rows} rows (copies named synN)" if irq_rows else ""),
            "proc/net/softnet_stat sample 0: the 32 rows repeated 32 times",
            "NUMA nodes: the 256-CPU igb capture's shape (node 0 = 0-63,128-191) at 4x; "
            "SMT siblings N and N+512 synthesised",
        ],
    )
    return ReplayReader(tree, igb_ethtool(fixtures, "eth0", bus)), "eth0"
