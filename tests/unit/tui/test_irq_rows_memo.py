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
from tuitune.core.watch.cpuview import landing, landing_text
from tuitune.core.watch.rates import IrqRate, Rates
from tuitune.tui.look.glyphs import UNICODE
from tuitune.tui.look.palette import DEFAULT_PALETTE as P
from tuitune.tui.panels.irqpanel import IrqData, IrqMemo, irq_rows
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
