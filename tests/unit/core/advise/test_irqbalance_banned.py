"""`irqbalance-banned` (issue 32) on the recorded pegged host (tests/unit/advise_hosts.py: its
queue IRQs all on CPU 0, from real captures) with irqbalance's banning set around it: a ban of
the CPUs the IRQs sit on fights that placement (risk); banning the IRQs themselves while they
are still on every CPU leaves them unplaced (hint); no ban, or irqbalance not running, is
silence."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.unit.advise_hosts import recorded
from tuitune.core.advise import Facts, advise
from tuitune.core.host.irqbalance import IrqbalanceState
from tuitune.core.host.irqs import IrqAffinity

RULE = "irqbalance-banned"


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


def with_irqbalance(f: Facts, **kw: object) -> Facts:
    ib = IrqbalanceState(True, (812,), "/etc/default/irqbalance", frozenset(), (), False)
    return replace(f, host=replace(f.host, irqbalance=replace(ib, **kw)))  # type: ignore[arg-type]


def finding(f: Facts) -> object:
    return next((x for x in advise(f).findings if x.id == RULE), None)


def queue_cpus(f: Facts) -> frozenset[int]:
    assert f.nic is not None
    out: set[int] = set()
    for q in f.queue_irqs():
        aff = f.nic.irq_affinity[q.irq].smp_affinity
        assert isinstance(aff, frozenset)
        out |= aff
    return frozenset(out)


def test_banning_the_cpus_the_irqs_are_placed_on_is_a_risk(pegged: Facts) -> None:
    banned = with_irqbalance(pegged, banned_cpus=queue_cpus(pegged))
    f = finding(banned)
    assert f is not None and f.severity == "risk", f  # type: ignore[attr-defined]
    assert "it will move them off" in f.title  # type: ignore[attr-defined]
    assert f.sources[0].id == "irqbalance-man"  # type: ignore[attr-defined]


def test_banned_irqs_never_placed_are_a_hint(pegged: Facts) -> None:
    assert pegged.nic is not None
    queues = list(pegged.queue_irqs())
    everywhere = {
        q.irq: IrqAffinity(q.irq, pegged.host.topology.online, frozenset({0}), None, None)
        for q in queues
    }
    nic = replace(pegged.nic, irq_affinity={**pegged.nic.irq_affinity, **everywhere})
    f = finding(with_irqbalance(replace(pegged, nic=nic), banned_irqs=tuple(everywhere)))
    assert f is not None and f.severity == "hint", f  # type: ignore[attr-defined]


def test_silent_without_a_ban_or_without_irqbalance(pegged: Facts) -> None:
    assert finding(with_irqbalance(pegged)) is None
    cpus = queue_cpus(pegged)
    stopped = with_irqbalance(pegged, running=False, banned_cpus=cpus)
    assert finding(stopped) is None
    # Banning other CPUs than the IRQs' is no fight.
    others = pegged.host.topology.online - cpus
    assert finding(with_irqbalance(pegged, banned_cpus=others)) is None
