"""The Advisor's window reuses the sampler's rates (issue 38): every reused path equals the
full computation, on random counters (hypothesis) and on the real sampler's samples."""

from __future__ import annotations

from functools import partial
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.support.fixture_hosts import host_4cpu_series
from tests.support.recorded import sampled
from tests.unit.core.test_rates import counters
from tuitune.core.advise.window import window_of
from tuitune.core.watch.rates import Rates, compute_rates, narrowed
from tuitune.core.watch.sampler import Sampler
from tuitune.core.watch.snapshot import Counters
from tuitune.tui.controllers.advisor import known_step, usable

_U32 = st.integers(0, 0xFFFFFFFF)
HDR = "     CPU0 CPU1 CPU2\n"


def _sample(t: float, rows: list[list[int]], busy: list[int]) -> Counters:
    text = HDR + "".join(
        f" {40 + i}: {r[0]} {r[1]} {r[2]} PCI-MSI x q{i}\n" for i, r in enumerate(rows)
    )
    idle = 1000 * int(t) + 50
    stat = "".join(f"cpu{c} {b} 0 {b // 2} {idle} 0 0 0\n" for c, b in enumerate(busy))
    return counters(t, stat=stat, interrupts=text)


_ROWS = st.integers(1, 8)
_SERIES = _ROWS.flatmap(
    lambda n: st.lists(
        st.tuples(
            st.lists(st.lists(_U32, min_size=3, max_size=3), min_size=n, max_size=n),
            st.lists(st.integers(0, 10_000), min_size=3, max_size=3),
        ),
        min_size=2,
        max_size=6,
    )
)
_DETAIL = st.one_of(st.none(), st.frozensets(st.sampled_from([str(40 + i) for i in range(8)])))


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(_SERIES, _DETAIL)
def test_narrowed_full_rates_equal_rates_computed_for_the_detail(
    series: list[tuple[list[list[int]], list[int]]], detail: frozenset[str] | None
) -> None:
    a, b = (_sample(float(t), rows, busy) for t, (rows, busy) in enumerate(series[:2]))
    assert narrowed(compute_rates(a, b), detail) == compute_rates(a, b, detail)
    wider = detail | {"40"} if detail is not None else None
    assert narrowed(compute_rates(a, b, wider), detail) == compute_rates(a, b, detail)


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(_SERIES, _DETAIL, st.lists(st.booleans(), max_size=6))
def test_a_window_of_known_steps_equals_the_computed_window(
    series: list[tuple[list[list[int]], list[int]]],
    detail: frozenset[str] | None,
    have: list[bool],
) -> None:
    samples = [_sample(float(t), rows, busy) for t, (rows, busy) in enumerate(series)]
    # Some steps known (computed with every IRQ's detail, as the all-IRQs view does), others
    # not (a sample the sampler made against counters the window does not hold).
    known: list[Rates | None] = [
        compute_rates(a, b) if i < len(have) and have[i] else None
        for i, (a, b) in enumerate(pairwise(samples))
    ]
    assert window_of(samples, detail, known=known) == window_of(samples, detail)


def test_the_samplers_own_rates_are_the_windows_steps(tmp_path: Path) -> None:
    """On the real sampler: each sample's rates are known as the step from the sample before
    (both the NIC's detail and every IRQ's), and the window built from them is the one
    computed from the counters."""
    for all_irqs in (False, True):
        reader, ifname = host_4cpu_series(tmp_path / str(all_irqs), samples=5)
        with reader:
            taken = sampled(reader, ifname, 5, setup=partial(Sampler.set_all_irqs, on=all_irqs))
        cs = [s.counters for s in taken if s.counters is not None]
        assert len(cs) == 5
        steps = [known_step(s, before) for before, s in zip(cs, taken[1:], strict=False)]
        nic = frozenset(q.irq for q in taken[0].nic.irqs) if taken[0].nic else frozenset()
        assert nic
        known = [usable(k, nic) for k in steps]
        assert all(k is not None for k in known), steps  # every step reused, none recomputed
        assert window_of(cs, nic, known=known) == window_of(cs, nic)
        # Not the step from the window's previous sample: not reused.
        assert known_step(taken[2], cs[0]) is None
        # Rates with only the NIC's detail cannot stand for every IRQ's.
        assert (usable(steps[0], None) is None) == (not all_irqs)
