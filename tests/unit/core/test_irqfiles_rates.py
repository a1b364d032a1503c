"""The per-IRQ path (/sys/kernel/irq/N/per_cpu_count) and the incremental parser of the whole
/proc/interrupts give the NIC's IRQs the same rates as a fresh full parse, for any sequence of
counts, IRQs that vanish and come back, and CPUs that go offline and online (issue 18)."""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.root import HostRoot
from tuitune.core.watch.hostreader import HostReader
from tuitune.core.watch.rates import compute_rates
from tuitune.core.watch.snapshot import Counters

NIC = ("40", "41", "42")
OTHERS = ("9", "120")
NAMES = {"9": "acpi", "40": "eth0-TxRx-0", "41": "eth0-TxRx-1", "42": "eth0", "120": "nvme0q1"}
U32 = 1 << 32


@st.composite
def histories(draw: st.DrawFn) -> tuple[int, list[tuple[tuple[int, ...], dict[str, list[int]]]]]:
    """Possible CPUs (2..6), and steps of (online CPUs, {irq: count per possible CPU})."""
    ncpus = draw(st.integers(2, 6))
    steps = []
    counts: dict[str, list[int]] = {}
    for _ in range(draw(st.integers(2, 7))):
        online = tuple(
            c for c in range(ncpus) if c == 0 or draw(st.booleans())
        )  # CPU0 never goes offline, as on x86
        now: dict[str, list[int]] = {}
        for irq in NIC + OTHERS:
            if not draw(st.integers(0, 5)):  # gone this step (freed); back later from zero
                counts.pop(irq, None)
                continue
            was = counts.get(irq, [0] * ncpus)
            adds = draw(
                st.lists(
                    st.sampled_from([0, 0, 1, 7, 1000, U32 - 3]), min_size=ncpus, max_size=ncpus
                )
            )
            now[irq] = counts[irq] = [(a + b) % U32 for a, b in zip(was, adds, strict=True)]
        steps.append((online, now))
    return ncpus, steps


def _write(tree: Path, ncpus: int, online: tuple[int, ...], now: dict[str, list[int]]) -> str:
    head = "     " + "".join(f"CPU{c:<8}" for c in online)
    rows = [head]
    for irq in sorted(now, key=int):
        cells = "".join(f" {now[irq][c]:>10}" for c in online)
        rows.append(f"{irq:>4}:{cells}  PCI-MSI 1-edge      {NAMES[irq]}")
    rows.append(" LOC:" + "".join(f" {c * 5:>10}" for c in online) + "   Local timer interrupts")
    text = "\n".join(rows) + "\n"
    (tree / "proc").mkdir(parents=True, exist_ok=True)
    (tree / "proc/interrupts").write_text(text)
    cpu = tree / "sys/devices/system/cpu"
    cpu.mkdir(parents=True, exist_ok=True)
    (cpu / "possible").write_text(f"0-{ncpus - 1}\n")
    (cpu / "online").write_text(",".join(map(str, online)) + "\n")
    shutil.rmtree(tree / "sys/kernel/irq", ignore_errors=True)
    for irq, per_cpu in now.items():
        d = tree / "sys/kernel/irq" / irq
        d.mkdir(parents=True)
        (d / "per_cpu_count").write_text(",".join(map(str, per_cpu)) + "\n")
    return text


@settings(max_examples=30, deadline=None)
@given(histories())
def test_per_irq_and_incremental_rates_equal_a_full_parse(
    history: tuple[int, list[tuple[tuple[int, ...], dict[str, list[int]]]]],
) -> None:
    ncpus, steps = history
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp)
        whole = HostReader(HostRoot.fixture(tree))  # incremental parser, whole table
        per_irq = HostReader(HostRoot.fixture(tree))  # the NIC's files between full reads
        prev: tuple[Counters, Counters, Counters] | None = None
        known: set[str] = set()  # the NIC's IRQs the sampler would ask for
        named: set[str] = set()  # the IRQs the per-IRQ reader's last whole read showed
        try:
            for k, (online, now) in enumerate(steps):
                text = _write(tree, ncpus, online, now)
                a = replace(whole.counters(None), time=float(k))
                # Whole reads first and every third step (the sampler's cadence); between
                # them, the NIC's IRQs that the last whole read named, as the sampler asks.
                cadence = k % 3 == 0
                b = per_irq.counters(None, None if cadence else frozenset(known))
                b = replace(b, time=float(k))
                assert b.irq_full == (cadence or not known <= set(now))  # one vanished
                if b.irq_full:
                    named = set(now)
                ref = replace(a, interrupts=parse_interrupts(text))
                if prev is not None:
                    want = compute_rates(prev[0], ref, NIC).irqs
                    got_whole = compute_rates(prev[1], a, NIC).irqs
                    got_files = compute_rates(prev[2], b, NIC).irqs
                    had = prev[2].interrupts.by_irq()
                    for irq in NIC:
                        assert got_whole.get(irq) == want.get(irq), irq
                        if irq in had:  # new to the per-IRQ path: a rate from the next step
                            assert got_files.get(irq) == want.get(irq), irq
                        else:
                            assert irq not in got_files
                prev = (ref, a, b)
                known = {irq for irq in NIC if irq in named}
        finally:
            whole.close()
            per_irq.close()
