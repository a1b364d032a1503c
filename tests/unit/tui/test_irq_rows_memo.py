"""The IRQ panel keeps a row from the tick before when its IRQ's rate, affinity and name are
unchanged (issue 38): over random ticks, the rows made that way equal the rows made afresh
(hypothesis), and a kept row is the same object."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.host.interrupts import parse_interrupts
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.host.irqs import IrqAffinity
from tuitune.core.text import printable
from tuitune.core.units import rate
from tuitune.core.values import Unavailable
from tuitune.core.watch.cpuview import affinity_pending, landing, landing_text
from tuitune.core.watch.rates import IrqRate, Rates
from tuitune.tui.look.glyphs import UNICODE
from tuitune.tui.look.palette import DEFAULT_PALETTE as P
from tuitune.tui.look.palette import heat_level
from tuitune.tui.panels.irqpanel import IrqData, IrqMemo, _cpus, irq_rows, land_cell
from tuitune.tui.panels.rowview import CellValue, Row

IRQS = [str(40 + i) for i in range(6)]
CPUS = [0, 1, 2, 3]
INTERRUPTS = parse_interrupts(
    "     CPU0 CPU1 CPU2 CPU3\n"
    + "".join(f" {irq}: 1 2 3 4 PCI-MSI x eth0-TxRx-{i}\n" for i, irq in enumerate(IRQS))
    + "NMI: 1 1 1 1 Non-maskable interrupts\n"
)
NIC = tuple(NicIrq(irq, f"eth0-TxRx-{i}", "combined", i) for i, irq in enumerate(IRQS[:3]))


def _drawn(rows: Sequence[Row]) -> list[tuple[str, str, list[object]]]:
    def cell(c: CellValue) -> object:
        return (c(8), c(30)) if callable(c) else c

    return [(r.key, r.text(), [cell(c) for c in r.values]) for r in rows]


_RATE = st.one_of(
    st.none(),
    st.dictionaries(st.sampled_from(CPUS), st.sampled_from([0.5, 10.0, 3000.0]), max_size=3),
)
_AFF = st.one_of(
    st.none(),
    st.builds(
        IrqAffinity,
        st.just("40"),
        st.frozensets(st.sampled_from(CPUS), min_size=1),
        st.frozensets(st.sampled_from(CPUS), min_size=1),
        st.sampled_from([None, 0]),
        st.just("0"),
    ),
)
_TICK = st.tuples(
    st.lists(_RATE, min_size=len(IRQS), max_size=len(IRQS)),
    st.lists(_AFF, min_size=len(IRQS), max_size=len(IRQS)),
    st.booleans(),  # the baseline
)


def _data(
    tick: tuple[list[dict[int, float] | None], list[IrqAffinity | None], bool], show_all: bool
) -> IrqData:
    per_irq, affs, baseline = tick
    irqs = {
        irq: IrqRate(irq, sum(r.values()), r)
        for irq, r in zip(IRQS, per_irq, strict=True)
        if r is not None
    }
    affinity = {
        irq: IrqAffinity(irq, a.smp_affinity, a.effective, a.node, a.affinity_hint)
        for irq, a in zip(IRQS, affs, strict=True)
        if a is not None
    }
    return IrqData(
        NIC,
        affinity,
        INTERRUPTS,
        Rates(1.0, {}, irqs, {}),
        baseline,
        CPUS,
        show_all,
    )


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(st.lists(_TICK, min_size=1, max_size=5), st.booleans(), st.sampled_from([0, 40]))
def test_rows_kept_from_the_tick_before_equal_the_rows_made_afresh(
    ticks: list[tuple[list[dict[int, float] | None], list[IrqAffinity | None], bool]],
    show_all: bool,
    room: int,
) -> None:
    memo: IrqMemo = {}
    last: dict[str, Row] = {}
    for n, tick in enumerate(ticks):
        data = _data(tick, show_all)
        cols, rows = irq_rows(data, room, UNICODE, P, memo)
        fresh_cols, fresh = irq_rows(data, room, UNICODE, P)
        assert cols == fresh_cols
        assert _drawn(rows) == _drawn(fresh)
        if n:  # an IRQ whose inputs stayed (and the view with them) keeps its row object
            before = _data(ticks[n - 1], show_all)
            for r in rows:
                irq = r.key[4:]
                same = (
                    before.baseline == data.baseline
                    and before.rates is not None
                    and data.rates is not None
                    and before.rates.irqs.get(irq) == data.rates.irqs.get(irq)
                    and before.affinity.get(irq) == data.affinity.get(irq)
                )
                assert (r is last.get(r.key)) == same, irq
        last = {r.key: r for r in rows}


@settings(deadline=None)
@given(_TICK, st.booleans())
def test_what_the_filter_matches_names_where_each_irq_landed(
    tick: tuple[list[dict[int, float] | None], list[IrqAffinity | None], bool], show_all: bool
) -> None:
    """The landing CPUs in a row's filter text are made when `/` reads it (issue 38): the
    same words as made with the row, after the names it is also found by."""
    data = _data(tick, show_all)
    _, rows = irq_rows(data, 40, UNICODE, P)
    assert data.rates is not None
    for r in rows:
        irq = r.key[4:]
        where = landing_text(landing(data.rates.irqs.get(irq)))
        # Between them, the names `/` also finds it by (its action names, its NIC's).
        text = r.text()
        assert text.startswith(f"{r.search} ") and text.endswith(f" {where}"), text
        assert f"irq{irq} {irq}" in r.search


def _made_at_once(data: IrqData, room: int) -> list[tuple[str, list[object]]]:
    """Every row's cells made with the row, worked out here as the panel did before issue 38."""
    per_cpu_fits = len(data.cpus) + 13 <= room
    rates = data.rates
    out = []
    nic = {q.irq: q for q in data.nic_irqs}
    if data.show_all:
        assert data.interrupts is not None
        named = []
        for row in data.interrupts.rows:
            q = nic.get(row.irq)
            name = row.name or row.chip or row.irq
            named.append((row.irq, f"TxRx {q.index}" if q else printable(name, 60), q is not None))
    else:
        named = [(q.irq, f"TxRx {q.index}", True) for q in data.nic_irqs]
    for irq, queue, is_nic in named:
        r = rates.irqs.get(irq) if rates else None
        aff = data.affinity.get(irq)
        total = r.total if r else 0.0
        heat = P.heat[min(4, heat_level(total / 100))] if total else P.heat[0]
        cells: list[CellValue] = [
            ((queue, P.local) if is_nic and data.show_all else (queue, None),),
            printable(irq, 20),
            ((rate(total), heat),),
        ]
        if data.baseline:
            cells.append(rate(total * (rates.interval if rates else 0.0)))
        locked = aff is not None and (isinstance(aff.smp_affinity, Unavailable) or aff.managed)
        settable = irq.isascii() and irq.isdigit()
        cells += [
            land_cell(r, data.cpus, UNICODE, P, per_cpu_fits),
            (
                (
                    (_cpus(aff.smp_affinity) if aff else "-") if settable else "fixed",
                    P.locked if locked or not settable else None,
                ),
            ),
            (("pending", P.warn),)
            if aff and affinity_pending(aff.smp_affinity, aff.effective)
            else (_cpus(aff.effective) if aff else "-"),
            str(aff.node) if aff and aff.node is not None else "-",
        ]
        out.append((f"irq:{irq}", [(c(8), c(30)) if callable(c) else c for c in cells]))
    return out


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(st.lists(_TICK, min_size=2, max_size=4), st.booleans(), st.sampled_from([0, 40]))
def test_cells_made_when_drawn_equal_cells_made_with_the_row(
    ticks: list[tuple[list[dict[int, float] | None], list[IrqAffinity | None], bool]],
    show_all: bool,
    room: int,
) -> None:
    """A row's cells are made when it is drawn (IrqCells): the same cells as made with the
    row, and two rows compare equal (no repaint) only when their cells are the same."""
    memo: IrqMemo = {}
    last: dict[str, Row] = {}
    for tick in ticks:
        data = _data(tick, show_all)
        _, rows = irq_rows(data, room, UNICODE, P, memo)
        drawn = [(r.key, _drawn([r])[0][2]) for r in rows]
        assert drawn == _made_at_once(data, room)
        for r in rows:
            old = last.get(r.key)
            if old is not None and old == r:
                assert _drawn([old])[0][2] == _drawn([r])[0][2], r.key
        last = {r.key: r for r in rows}
