"""The next step, in one line, for someone who has not done the tuning loop before.

The loop the reports follow (measure, find the busy core, move its work, measure again, compare)
is a pure function here of what the user has done so far (`Steps`, counted by the screen) and of
what the host shows (`Situation`). The screen shows the line under its panels; nothing here
knows about Textual. Every line fits 80 columns.
"""

from __future__ import annotations

from dataclasses import dataclass

from tuitune.core.watch.rates import Rates
from tuitune.core.watch.snapshot import NicState

BUSY = 70.0  # % of a CPU: above this a core is worth a look (its work can move elsewhere)
HINT_WIDTH = 78  # the line under the panels at 80 columns


@dataclass(frozen=True, slots=True)
class HotCore:
    """The busiest CPU and the NIC queue IRQs that land mostly on it."""

    cpu: int
    busy: float  # % of the CPU, all but idle and iowait
    irqs: tuple[str, ...]  # queue labels ("TxRx 0") or IRQ numbers


@dataclass(frozen=True, slots=True)
class Steps:
    """What the user has done in this session (the screen counts)."""

    runs: int = 0  # benchmark runs recorded
    changes: int = 0  # change steps made (each edit, toggle, spread, undo, revert)
    changes_at_last_run: int = 0  # `changes` when the last run was recorded
    compared: bool = False  # opened the runs list (N) after a second run
    hot: HotCore | None = None  # the busiest core seen while the last run ran


@dataclass(frozen=True, slots=True)
class Situation:
    """What the screen shows now."""

    ifname: str | None
    read_only: str | None = None  # why nothing can change (a recorded tree, a plain user)
    recorded: bool = False  # a recorded host tree (--root): nothing to measure or change
    lab: bool = False  # `tuitune lab`: the peer is known, B needs nothing typed
    bench_running: bool = False


def hot_core(rates: Rates | None, nic: NicState | None) -> HotCore | None:
    """The busiest CPU when it is above BUSY, with the NIC queue IRQs that mostly land on it."""
    if rates is None or not rates.cpus:
        return None
    cpu, c = max(rates.cpus.items(), key=lambda kv: (kv[1].busy, -kv[0]))
    if c.busy < BUSY:
        return None
    irqs = []
    for q in nic.irqs if nic is not None else ():
        r = rates.irqs.get(q.irq)
        if r is None or r.total <= 0:
            continue
        if r.per_cpu.get(cpu, 0.0) * 2 > r.total:  # most of its interrupts land there
            kind = "TxRx" if q.kind == "combined" else q.kind  # as the IRQ panel says it
            irqs.append(q.name if q.index is None else f"{kind} {q.index}")
    return HotCore(cpu, c.busy, tuple(irqs))


def hotter(a: HotCore | None, b: HotCore | None) -> HotCore | None:
    """The one to remember of two: the busier (a run's peak, not its last tick)."""
    if a is None or b is None:
        return a or b
    return b if b.busy > a.busy else a


def next_hint(steps: Steps, now: Situation) -> str:
    """One line: what to do next, or "" when the loop has been done once (nothing to teach)."""
    if now.ifname is None:
        return "Next: n picks the interface to tune"
    if now.recorded:
        return "A recorded host: Enter on a row says what it is; a lists every IRQ"
    if now.bench_running:
        return "Measuring: watch the CPU grid for the busiest core (X stops the run)"
    if steps.runs == 0:
        if now.lab:
            return "Next: B measures the lab's link (iperf3 to its peer): the number to beat"
        return "Next: B measures (iperf3 to a host running iperf3 -s): the number to beat"
    if now.read_only is not None:
        return "Read only here: N lists the runs; Enter on a row says what it does"
    if steps.changes > steps.changes_at_last_run:
        return "Next: B measures again with your change (u undoes it)"
    if steps.runs >= 2 and not steps.compared:
        return "Next: N compares the runs; u undoes a change that did not help"
    if steps.runs >= 2:
        return ""
    hot = steps.hot
    if hot is None:
        return "Next: change one setting (e or space; Enter explains a row), then B again"
    if hot.irqs:
        names = ", ".join(hot.irqs[:2]) + (" ..." if len(hot.irqs) > 2 else "")
        line = f"cpu{hot.cpu} was {hot.busy:.0f}% busy with {names}: 2, then s spreads or e moves"
        if len(line) <= HINT_WIDTH:
            return line
        return f"cpu{hot.cpu} was {hot.busy:.0f}% busy with NIC IRQs: 2, then s spreads or e moves"
    busy = f"cpu{hot.cpu} was {hot.busy:.0f}% busy"
    return f"{busy}: move work off it (e on its RPS/IRQ rows), then B again"
