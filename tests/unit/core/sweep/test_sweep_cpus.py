"""The sweep's CPU dimensions and its order: RPS/XPS, the NIC's IRQ placement as a plan and
iperf3's -A as dimensions (each value checked in the spec, then worked out on a recorded host
before the first write), and the shuffled order drawn from a recorded seed."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from tests.support.fixture_hosts import host_32cpu
from tuitune.core.bench.notebook import Notebook
from tuitune.core.session import Session
from tuitune.core.sweep.plan import combinations, measuring_order
from tuitune.core.sweep.runner import SweepError, SweepRunner, Target
from tuitune.core.sweep.spec import SpecError, parse


def _spec(body: str, head: str = "") -> object:
    return parse(tomllib.loads(f'[sweep]\nname = "c"\nrepeats = 1\n{head}\n{body}'))


def _values(body: str) -> list[str]:
    spec = _spec(body)
    return [t for v in spec.dimensions[0].values for _, t in v.settings]  # type: ignore[attr-defined]


def test_cpu_values_are_read_as_a_user_would_type_them() -> None:
    assert _values('[[dimension]]\nsetting = "rps"\nvalues = ["none", 1, [0, 1], "2-3"]') == [
        "none",
        "1",
        "0-1",
        "2-3",
    ]
    assert _values('[[dimension]]\nsetting = "xps tx-0"\nvalues = [[], "0"]') == ["none", "0"]
    irqs = '[[dimension]]\nsetting = "irqs"\nvalues = ["spread", "cpu 2", 3, "cpus 0-3", [4, 5]]'
    assert _values(irqs) == ["spread local", "cpu 2", "cpu 3", "cpus 0-3", "cpus 4-5"]
    pins = '[[dimension]]\nsetting = "pin"\nvalues = ["none", 0, "0,1", [2, 3]]'
    assert _values(pins) == ["none", "0", "0,1", "2,3"]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('setting = "rps rx-x"\nvalues = ["0"]', "'rx-x' is not a queue name"),
        ('setting = "rps tx-0"\nvalues = ["0"]', "rps is set on rx-N queues"),
        ('setting = "xps"\nvalues = ["0-q"]', "values[1]"),
        ('setting = "irqs"\nvalues = ["everywhere"]', "an IRQ plan is 'spread local'"),
        ('setting = "irqs"\nvalues = ["cpu 0-3"]', "'cpu N' names one CPU"),
        ('setting = "irqs"\nvalues = [[]]', "at least one CPU"),
        ('setting = "pin"\nvalues = ["0,1,2"]', "pin is 'none', a client CPU"),
        ('setting = "pin"\nvalues = [-1]', "pin is 'none'"),
        ('setting = "pin"\nvalues = [0]\nboth = true', "a test parameter"),
    ],
)
def test_bad_cpu_values_are_one_line_naming_the_field(body: str, says: str) -> None:
    with pytest.raises(SpecError) as err:
        _spec(f"[[dimension]]\n{body}")
    assert says in str(err.value) and "\n" not in str(err.value)


GRID = """
[[dimension]]
setting = "tso"
values = ["on", "off"]
[[dimension]]
setting = "mtu"
values = [1500, 9000]
[[dimension]]
setting = "streams"
values = [1, 4, 8]
"""


def test_the_shuffle_is_reproducible_from_its_seed_and_covers_every_cell() -> None:
    spec = _spec(GRID)
    walk = [c.key for c in combinations(spec)]  # type: ignore[arg-type]
    one = [c.key for c in measuring_order(spec, 7)]  # type: ignore[arg-type]
    assert one == [c.key for c in measuring_order(spec, 7)]  # type: ignore[arg-type]
    assert sorted(one) == sorted(walk) and len(one) == 12
    orders = {tuple(c.key for c in measuring_order(spec, s)) for s in range(20)}  # type: ignore[arg-type]
    assert len(orders) > 10  # the seed decides the order: not the walk with a twist
    assert tuple(walk) not in orders or len(orders) > 1
    snake = _spec(GRID, 'order = "snake"\nseed = 7')
    assert [c.key for c in measuring_order(snake, 7)] == walk  # type: ignore[arg-type]
    assert _spec(GRID, "seed = 42").seed == 42  # type: ignore[attr-defined]
    for bad, says in (('order = "random"', "order"), ("seed = -1", "seed"), ('seed = "1"', "seed")):
        with pytest.raises(SpecError, match=says):
            _spec(GRID, bad)


def _runner(tmp: Path, body: str) -> SweepRunner:
    reader, ifname = host_32cpu(tmp, samples=1)
    spec = _spec(body)
    session = Session(
        reader.root, journal_dir=tmp / "journal", call=reader.call, handles=reader.handles
    )
    target = Target(ifname, "192.0.2.1", 5201)
    return SweepRunner(spec, session, reader, target, Notebook(tmp / "runs.jsonl"), lambda _: None)  # type: ignore[arg-type]


def _irq_lines(tree: Path) -> dict[str, str]:
    return {
        p.parent.name: p.read_text()
        for p in sorted((tree / "proc/irq").glob("*/smp_affinity_list"))
    }


def test_an_irq_plan_is_one_affinity_per_queue_irq_worked_out_on_the_host(tmp_path: Path) -> None:
    body = '[[dimension]]\nsetting = "irqs"\nvalues = ["spread local", "cpu 3"]'
    runner = _runner(tmp_path, body)
    before = _irq_lines(tmp_path / "host_32cpu")
    with runner.reader:
        per_cell = runner.plan()
    assert before == _irq_lines(tmp_path / "host_32cpu")  # planning writes nothing
    spread = dict(per_cell[[c.label for c in runner.combos].index("irqs spread local")][0])
    on_3 = dict(per_cell[[c.label for c in runner.combos].index("irqs cpu 3")][0])
    assert sorted(k.queue for k in spread) == [f"eth0-TxRx-{q}" for q in range(8)]
    # One queue a physical core of node 0 (0-7; 16-23 are their SMT siblings), like the
    # screen's spread key.
    assert sorted(spread.values(), key=int) == [str(c) for c in range(8)]
    assert set(on_3.values()) == {"3"} and set(on_3) == set(spread)


def test_pins_and_plans_this_host_cannot_take_change_nothing(tmp_path: Path) -> None:
    runner = _runner(tmp_path, '[[dimension]]\nsetting = "pin"\nvalues = ["none", "0", "40"]')
    with runner.reader, pytest.raises(SweepError) as err:
        runner.plan()
    assert "pin 40: -A: client CPU 40 is not online here" in str(err.value)
    assert "nothing was changed" in str(err.value)
    # The server's CPU is checked only where the server is known to run (the lab).
    runner = _runner(tmp_path / "b", '[[dimension]]\nsetting = "pin"\nvalues = ["0,40"]')
    with runner.reader:
        runner.plan()
    cell = runner.combos[0]
    bench = runner.bench_spec(cell)
    assert (bench.client_cpu, bench.server_cpu) == (0, 40)
