"""app-remote-node and app-on-irq-cpu on the recorded 2-node host whose igb queues all land on
CPU 0 (real captures), with the NIC's processes placed where each branch needs them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.unit.advise_hosts import one, recorded
from tuitune.core.advise import Facts, advise
from tuitune.core.procs.model import NicProcess, ProcIdent, ThreadRun
from tuitune.core.session.settings import Key

NODE0 = "0-7,16-23"


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


def proc(ran_on: set[int], cpu: float = 40.0, comm: str = "nuttcp", pid: int = 812) -> NicProcess:
    threads = tuple(ThreadRun(pid + i, comm, c, frozenset(range(32))) for i, c in enumerate(ran_on))
    return NicProcess(
        ident=ProcIdent(pid, 5550, 0, comm),
        cmdline=(comm, "-S"),
        allowed=frozenset(range(32)),
        threads=threads,
        cpu_by_cpu={min(ran_on): cpu},
        sockets=2,
        kernel_thread=False,
        on_nic_node=None,
        owner_is_caller=True,
        ran_on=frozenset(ran_on),
    )


def test_a_process_on_the_other_node_is_moved_to_the_nics(pegged: Facts) -> None:
    f = one(replace(pegged, processes=(proc({8, 9}),)), "app-remote-node")
    assert f is not None and f.severity == "risk"
    assert f.title == "nuttcp (pid 812) runs on node 1, eth0 on node 0"
    assert [(c.key, c.value) for c in f.change] == [(Key.proc_affinity(812, 5550), NODE0)]
    assert any("last ran on cpus 8-9" in e for e in f.evidence)
    # Already on the NIC's node, or partly: nothing to say.
    assert one(replace(pegged, processes=(proc({3}),)), "app-remote-node") is None
    assert one(replace(pegged, processes=(proc({3, 8}),)), "app-remote-node") is None


def test_a_hostile_name_is_escaped_in_the_finding(pegged: Facts) -> None:
    f = one(replace(pegged, processes=(proc({8}, comm="x\x1b[2Jy"),)), "app-remote-node")
    assert f is not None and "\x1b" not in f.title and "x\\x1b[2Jy" in f.title


def test_sharing_the_irq_cpu_says_both_schools_and_offers_another_core(pegged: Facts) -> None:
    f = one(replace(pegged, processes=(proc({0}),)), "app-on-irq-cpu")
    assert f is not None and f.severity == "hint" and f.context == "any"
    assert "shares cpu0 with eth0's receive work" in f.title
    assert "NASA" in f.title and "same node but another core" in f.title
    assert [c.value for c in f.change] == ["1-7,16-23"]
    assert {s.id for s in f.sources} == {"nasa-40g", "redhat-10g", "esnet-100g"}


def test_beside_the_irq_cpu_offers_nasas_pairing(pegged: Facts) -> None:
    f = one(replace(pegged, processes=(proc({3}),)), "app-on-irq-cpu")
    assert f is not None and f.context == "lan" and [c.value for c in f.change] == ["0"]
    # Too little CPU to be the NIC's mover: a note, no finding.
    quiet = advise(replace(pegged, processes=(proc({3}, cpu=1.0),)))
    assert "app-on-irq-cpu" not in {x.id for x in quiet.findings}
    assert any(n.rule == "app-on-irq-cpu" for n in quiet.notes)


def test_processes_not_read_say_nothing_and_none_running_is_a_note(pegged: Facts) -> None:
    silent = advise(pegged)
    assert not any(n.rule.startswith("app-") for n in silent.notes)
    empty = advise(replace(pegged, processes=()))
    assert any(n.rule == "app-remote-node" and "no process" in n.text for n in empty.notes)
