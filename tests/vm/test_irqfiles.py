"""Per-IRQ counters on a real kernel, in the bench's guest (issue 18): the NIC's
/sys/kernel/irq/N/per_cpu_count files read as the rows /proc/interrupts prints, and the
kernel's cost of both reads, measured in one run (boot more vCPUs with TUITUNE_VM_CPUS)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.irqfiles import read_irq_rows
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader

from .conftest import Nics, queue_irqs

pytestmark = pytest.mark.vm

KERNEL_COST = "bench_irqfiles_kernel.txt"  # benchmarks/run.py --vm copies it to its results


def test_per_irq_files_read_as_the_kernels_table(nics: Nics) -> None:
    irqs = {str(i) for i in queue_irqs(nics.virtio).values()}
    assert len(irqs) >= 8  # 4 queue pairs
    before = parse_interrupts(Path("/proc/interrupts").read_text())
    rows = read_irq_rows(HostRoot(), irqs, before.by_irq())
    after = parse_interrupts(Path("/proc/interrupts").read_text())
    assert rows is not None, "the kernel's per_cpu_count files were not usable"
    assert rows.cpus == before.cpus == after.cpus
    a, b = before.by_irq(), after.by_irq()
    assert {r.irq for r in rows.rows} == irqs
    for row in rows.rows:  # counters only grow: the file's read sits between the two
        assert row.name == a[row.irq].name
        low, high = a[row.irq].counts, b[row.irq].counts
        assert all(x <= y <= z for x, y, z in zip(low, row.counts, high, strict=True))
    with HostReader() as reader:
        reader.counters(nics.virtio)  # a whole read names the IRQs
        assert not reader.counters(nics.virtio, irqs).irq_full


def test_kernel_cost_of_the_whole_table_and_the_nic_files(nics: Nics) -> None:
    """Not a timing test: runs the benchmark and shows its figures in the report (-rA).
    benchmarks/run.py boots 32 vCPUs for its figures and gets the full rounds; the test
    command's 4-vCPU guest runs it short (it only shows the benchmark still runs: its
    full rounds were 26 s of the guest's CPU under TCG, on the CI's critical path)."""
    short = [] if (os.cpu_count() or 1) >= 16 else ["--repeat", "20", "--rounds", "2"]
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.bench_irqfiles", "--kernel", *short, nics.virtio],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=1800,
    )
    print(run.stdout, run.stderr)
    assert run.returncode == 0
    assert "NIC per_cpu_count" in run.stdout
    out = os.environ.get("TUITUNE_VM_OUT")  # the run's directory on the host: for run.py --vm
    if out:
        (Path(out) / KERNEL_COST).write_text(run.stdout)
