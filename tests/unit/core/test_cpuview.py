"""core/watch/cpuview.py: the CPU list's orders, where an IRQ lands, and a pending affinity."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tuitune.core.values import Unavailable
from tuitune.core.watch.cpuview import (
    SORTS,
    Share,
    affinity_pending,
    landing,
    landing_text,
    next_sort,
    nic_interrupts,
    sort_cpus,
)
from tuitune.core.watch.rates import CpuRates, IrqRate, Rates


def cpu(n: int, usr: float = 0.0, soft: float = 0.0) -> CpuRates:
    idle = 100.0 - usr - soft
    return CpuRates(n, usr, 0, 0, 0, 0, soft, 0, 0, 0, idle, 0, 0, 0, 0, 0)


def rates() -> Rates:
    # Topology order 0, 4, 1, 5 (SMT siblings together); CPU 5 has no entry (no time passed).
    cpus = {0: cpu(0, soft=50), 4: cpu(4, usr=90), 1: cpu(1, usr=5, soft=30)}
    irqs = {
        "92": IrqRate("92", 300.0, {1: 200.0, 0: 100.0}),
        "93": IrqRate("93", 150.0, {1: 150.0}),
        "7": IrqRate("7", 5000.0, {4: 5000.0}),  # not the NIC's
    }
    return Rates(1.0, cpus, irqs, {})


ORDER = [0, 4, 1, 5]


def test_each_order_puts_the_heaviest_first_then_by_cpu_number() -> None:
    r = rates()
    assert sort_cpus(ORDER, r, "topology") == ORDER
    assert sort_cpus(ORDER, r, "load") == [4, 0, 1, 5]  # 90, 50, 35, none
    assert sort_cpus(ORDER, r, "softirq") == [0, 1, 4, 5]  # 50, 30, then the idle ones by number
    assert sort_cpus(ORDER, r, "nic", ["92", "93"]) == [1, 0, 4, 5]  # 350/s, 100/s


_W = st.floats(0, 100, allow_nan=False)


@settings(deadline=None)  # a loaded machine is slow, not wrong
@given(
    st.lists(st.integers(0, 40), unique=True),
    st.dictionaries(st.integers(0, 40), st.tuples(_W, _W)),
    st.dictionaries(st.integers(0, 40), _W),
    st.sampled_from(SORTS),
)
def test_each_order_is_the_order_by_weight_then_number(
    order: list[int],
    loads: dict[int, tuple[float, float]],
    nic: dict[int, float],
    by: str,
) -> None:
    """The two C-keyed sorts equal the one sort by (-weight, CPU) they stand for."""
    cpus = {n: cpu(n, usr=u / 2, soft=s / 2) for n, (u, s) in loads.items()}
    r = Rates(1.0, cpus, {"92": IrqRate("92", sum(nic.values()), nic)}, {})

    def weight(n: int) -> float:
        c = cpus.get(n)
        if by == "load":
            return c.busy if c else 0.0
        if by == "softirq":
            return c.soft if c else 0.0
        return nic.get(n, 0.0)

    want = order if by == "topology" else sorted(order, key=lambda n: (-weight(n), n))
    assert sort_cpus(order, r, by, ["92"]) == want


def test_nic_interrupts_sum_only_the_given_irqs() -> None:
    assert nic_interrupts(rates(), ["92", "93", "gone"]) == {1: 350.0, 0: 100.0}


def test_the_sort_key_cycles_through_every_order() -> None:
    seen = ["topology"]
    for _ in SORTS:
        seen.append(next_sort(seen[-1]))
    assert seen == ["topology", "load", "softirq", "nic", "topology"]
    assert next_sort("auto") == "topology"


def test_landing_names_each_cpu_with_its_share() -> None:
    shares = landing(rates().irqs["92"])
    assert [(s.cpu, round(s.percent)) for s in shares] == [(1, 67), (0, 33)]
    assert landing_text(shares) == "cpu1 67%, cpu0 33%"
    assert landing_text(shares, top=1) == "cpu1 67%, 1 more"
    assert landing(None) == [] and landing(IrqRate("9", 0.0, {})) == []
    assert landing_text([Share(12, 71.4), Share(13, 28.6)]) == "cpu12 71%, cpu13 29%"


def test_pending_while_the_effective_affinity_lies_outside_the_asked_one() -> None:
    asked, now = frozenset({12}), frozenset({0})
    assert affinity_pending(asked, now)
    assert not affinity_pending(asked, frozenset({12}))
    assert not affinity_pending(frozenset({12, 13}), frozenset({13}))  # one CPU of the mask
    assert not affinity_pending(asked, Unavailable("missing", "not on this kernel"))
    assert not affinity_pending(None, now) and not affinity_pending(asked, frozenset())
