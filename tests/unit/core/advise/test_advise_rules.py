"""Each Advisor rule on recorded hosts (real captures) and on constructed windows at its
thresholds: it fires when its evidence is there and stays silent when it is not."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from tests.unit.advise_hosts import (
    DEFAULT_BUFFERS,
    cpu,
    ids,
    one,
    recorded,
    steps_window,
    with_sysctls,
)
from tuitune.core.advise import RULES, Context, Facts, advise, infer_context
from tuitune.core.advise import thresholds as t
from tuitune.core.advise.rules_tcp import bdp_bytes
from tuitune.core.host.ethtool import Coalesce
from tuitune.core.host.irqbalance import IrqbalanceState
from tuitune.core.session.settings import Key


@pytest.fixture(scope="module")
def pegged(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("pegged"), "pegged")


@pytest.fixture(scope="module")
def spread(tmp_path_factory: pytest.TempPathFactory) -> Facts:
    return recorded(tmp_path_factory.mktemp("spread"), "spread")


# ---- recorded hosts ------------------------------------------------------------------------


def test_pegged_host_names_cpu0_and_spreads_the_queues(pegged: Facts) -> None:
    f = one(pegged, "cpu-saturated")
    assert f is not None and f.severity == "bottleneck"
    assert f.title.startswith("cpu0 is saturated by eth0's traffic")
    assert any(e.startswith("cpu0: 100 % busy (50 % sys, 0 % irq, 50 % soft)") for e in f.evidence)
    assert any("100 % of eth0's rx interrupts land on cpu0" in e for e in f.evidence)
    # The change is the spread plan: the 8 queue IRQs, one per NIC-local core (node 0's
    # 0-7 first: SMT siblings 16-23 last), as journal keys for IRQ affinity.
    irqs = {q.irq: q.name for q in pegged.nic.irqs if q.kind != "misc"}  # type: ignore[union-attr]
    assert [(c.key.kind, c.value) for c in f.change] == [("irq_affinity", str(i)) for i in range(8)]
    assert {c.key.name: c.key.queue for c in f.change} == irqs
    assert {s.id for s in f.sources} >= {"nasa-40g", "redhat-10g"}


def test_spread_host_is_not_saturated(spread: Facts) -> None:
    # The netutils 4-CPU host: one queue per CPU, each CPU about half busy.
    assert "cpu-saturated" not in ids(advise(spread))


def test_softnet_drops_and_squeeze_on_the_pegged_host(pegged: Facts) -> None:
    facts = with_sysctls(
        pegged,
        {
            "net.core.netdev_max_backlog": "1000",
            "net.core.netdev_budget": "300",
            "net.core.netdev_budget_usecs": "2000",
        },
    )
    drops = one(facts, "softnet-drops")
    assert drops is not None and "cpu0" in drops.evidence[0]
    assert [(c.key, c.value) for c in drops.change] == [
        (Key.sysctl("net.core.netdev_max_backlog"), str(t.BACKLOG_LAN))
    ]
    wan = one(replace(facts, context=Context("wan")), "softnet-drops")
    assert wan is not None and wan.change[0].value == str(t.BACKLOG_WAN)
    squeeze = one(facts, "softnet-squeeze")
    assert squeeze is not None
    assert [c.value for c in squeeze.change] == ["600", "4000"]


def test_softnet_silent_on_the_spread_host(spread: Facts) -> None:
    assert {"softnet-drops", "softnet-squeeze"}.isdisjoint(ids(advise(spread)))


def test_nic_rx_drops_lan_and_wan(pegged: Facts) -> None:
    lan = one(pegged, "nic-rx-drops")
    assert lan is not None and lan.change == ()  # LAN: the CPU side first (NASA Table 5)
    assert "rx_missed_errors" in lan.evidence[0]
    wan = one(replace(pegged, context=Context("wan")), "nic-rx-drops")
    assert wan is not None
    assert [(c.key.label, c.value) for c in wan.change] == [("eth0 rings rx", "4096")]


def test_no_load_says_what_it_needs(tmp_path: Path) -> None:
    # One sample of a recorded tree: no window, so no dynamic rule guesses.
    facts = recorded(tmp_path, "pegged", ticks=1)
    advice = advise(facts)
    assert not {"cpu-saturated", "softnet-drops", "nic-rx-drops"} & ids(advice)
    notes = {n.rule: n.text for n in advice.notes}
    assert "run a benchmark" in notes["cpu-saturated"]


def test_busy_cpus_without_traffic_say_there_is_no_nic_traffic(pegged: Facts) -> None:
    """Issue 31 item 10: CPUs at 90 % in user time with an idle link are not "no load": the
    note says the NIC carried no traffic."""
    cpus = sorted(pegged.host.topology.online)
    steps = [{c: cpu(c, usr=90.0) for c in cpus} for _ in range(5)]
    facts = replace(pegged, window=steps_window(steps, {}, {"rx_packets": 10.0}))
    notes = {n.rule: n.text for n in advise(facts).notes}
    assert notes["cpu-saturated"].startswith("no NIC traffic in the window")
    assert "busy CPUs alone are not traffic" in notes["cpu-saturated"]
    assert "no load" not in " ".join(notes.values())


# ---- constructed windows at the edges ------------------------------------------------------


def _saturation(pegged: Facts, busy: list[float], share: float, other: float = 5.0) -> Facts:
    """Steps in which cpu0 is `busy` % (half sys, half soft); `share` of the NIC's queue
    interrupts land on cpu0, the rest on cpu1; every other CPU `other` % busy."""
    queues = [q.irq for q in pegged.nic.irqs if q.kind != "misc"]  # type: ignore[union-attr]
    cpus = sorted(pegged.host.topology.online)
    steps = [
        {c: cpu(c, sys=b / 2, soft=b / 2) if c == 0 else cpu(c, sys=other) for c in cpus}
        for b in busy
    ]
    irqs = {q: {0: 1000 * share, 1: 1000 * (1 - share)} for q in queues}
    return replace(pegged, window=steps_window(steps, irqs, {"rx_packets": 50000.0}))


def test_cpu_saturated_busy_edge(pegged: Facts) -> None:
    edge = t.CPU_BUSY_PCT
    assert one(_saturation(pegged, [edge] * 5, 1.0), "cpu-saturated") is not None
    assert one(_saturation(pegged, [edge - 0.5] * 5, 1.0), "cpu-saturated") is None


def test_cpu_saturated_most_of_window_edge(pegged: Facts) -> None:
    n = 10
    hot = round(n * t.MOST_OF_WINDOW)
    at = [100.0] * hot + [10.0] * (n - hot)
    below = [100.0] * (hot - 1) + [10.0] * (n - hot + 1)
    assert one(_saturation(pegged, at, 1.0), "cpu-saturated") is not None
    assert one(_saturation(pegged, below, 1.0), "cpu-saturated") is None


def test_cpu_saturated_share_edge(pegged: Facts) -> None:
    assert one(_saturation(pegged, [100.0] * 5, t.NIC_SHARE), "cpu-saturated") is not None
    assert one(_saturation(pegged, [100.0] * 5, t.NIC_SHARE - 0.01), "cpu-saturated") is None


def test_cpu_saturated_without_room_is_a_note(pegged: Facts) -> None:
    facts = _saturation(pegged, [100.0] * 5, 1.0, other=t.ROOM_PCT)
    assert one(facts, "cpu-saturated") is None
    assert any(n.rule == "cpu-saturated" and "no other" in n.text for n in advise(facts).notes)


# ---- static rules on the recorded state ----------------------------------------------------


def test_irqbalance_active_with_irqs_tuitune_placed(pegged: Facts) -> None:
    running = IrqbalanceState(True, (812,), None, frozenset(), (), False)
    on = replace(pegged, host=replace(pegged.host, irqbalance=running))
    queues = [q for q in pegged.nic.irqs if q.kind != "misc"]  # type: ignore[union-attr]
    held = frozenset(Key.irq(q.irq, q.name, "eth0") for q in queues)
    f = one(replace(on, held=held), "irqbalance-active")
    assert f is not None and [(c.key, c.value) for c in f.change] == [
        (Key.service("irqbalance"), "stopped")
    ]
    # IRQs on one CPU that tuitune did not place: irqbalance may have put them there itself.
    assert one(on, "irqbalance-active") is None
    assert any(n.rule == "irqbalance-active" for n in advise(on).notes)
    assert one(replace(pegged, held=held), "irqbalance-active") is None  # not running
    banned = replace(running, banned_irqs=tuple(q.irq for q in queues))
    told = replace(pegged, host=replace(pegged.host, irqbalance=banned), held=held)
    assert one(told, "irqbalance-active") is None  # told to leave them alone


def test_irq_moves_stop_irqbalance_first(pegged: Facts) -> None:
    running = IrqbalanceState(True, (812,), None, frozenset(), (), False)
    f = one(replace(pegged, host=replace(pegged.host, irqbalance=running)), "cpu-saturated")
    assert f is not None
    assert f.change[0].key == Key.service("irqbalance") and f.change[0].value == "stopped"
    assert [c.key.kind for c in f.change[1:]] == ["irq_affinity"] * 8
    assert one(pegged, "cpu-saturated").change[0].key.kind == "irq_affinity"  # type: ignore[union-attr]


def test_offload_disabled(pegged: Facts) -> None:
    nic = pegged.nic
    assert nic is not None and isinstance(nic.features, tuple)
    assert one(pegged, "offload-disabled") is None  # the igb capture: all on
    off = tuple(
        replace(x, active=False, requested=False) if x.name == "rx-gro" else x for x in nic.features
    )
    f = one(replace(pegged, nic=replace(nic, features=off)), "offload-disabled")
    assert f is not None and [(c.key.name, c.value) for c in f.change] == [("rx-gro", "on")]
    assert "12.8 Gb/s" in f.sources[0].measured  # NASA Table 2, GRO off at MTU 1500
    # On a veth GRO off is the default and saves nothing (the peer sends large segments):
    # silent there, while the send side still counts.
    veth = replace(nic, features=off, link=replace(nic.link, kind="veth"))
    assert one(replace(pegged, nic=veth), "offload-disabled") is None
    gso_off = tuple(
        replace(x, active=False, requested=False) if x.name == "tx-generic-segmentation" else x
        for x in off
    )
    veth = replace(veth, features=gso_off)
    f = one(replace(pegged, nic=veth), "offload-disabled")
    assert f is not None and [c.key.name for c in f.change] == ["tx-generic-segmentation"]
    fixed = tuple(replace(x, available=False) if x.name == "rx-gro" else x for x in off)
    assert one(replace(pegged, nic=replace(nic, features=fixed)), "offload-disabled") is None


def test_coalesce_off(pegged: Facts) -> None:
    nic = pegged.nic
    assert nic is not None and isinstance(nic.coalesce, Coalesce)

    def coalesce(adaptive: int, usecs: int) -> Facts:
        params = dict(nic.coalesce.params)  # type: ignore[union-attr]
        params.update({"adaptive-rx": adaptive, "rx-usecs": usecs})
        c = Coalesce(tuple(params.items()), "netlink")
        return replace(pegged, nic=replace(nic, coalesce=c))

    # The pegged window: ~44k interrupts/s per queue, above COALESCE_IRQ_PER_QUEUE.
    f = one(coalesce(0, 0), "coalesce-off")
    assert f is not None and [(c.key.name, c.value) for c in f.change] == [("adaptive-rx", "on")]
    assert one(coalesce(0, 3), "coalesce-off") is None
    assert one(coalesce(1, 0), "coalesce-off") is None
    latency = replace(coalesce(0, 0), context=Context("latency"))
    assert one(latency, "coalesce-off") is None


def test_mtu_small(pegged: Facts) -> None:
    nic = pegged.nic
    assert nic is not None

    def link(speed: int, mtu: int, kind: str | None = None) -> Facts:
        return replace(
            pegged, nic=replace(nic, link=replace(nic.link, speed_mbps=speed, mtu=mtu, kind=kind))
        )

    f = one(link(t.MTU_LINK_MBPS, t.MTU_SMALL), "mtu-small")
    assert f is not None and f.trial and f.change[0].value == str(t.MTU_JUMBO)
    assert any("364" in s.measured and "375" in s.measured for s in f.sources)  # CERN, 4 streams
    assert one(link(t.MTU_LINK_MBPS - 1, t.MTU_SMALL), "mtu-small") is None
    assert one(link(t.MTU_LINK_MBPS, t.MTU_JUMBO), "mtu-small") is None
    assert one(link(t.MTU_LINK_MBPS, t.MTU_SMALL, "veth"), "mtu-small") is None


def test_txqueuelen_wan(pegged: Facts) -> None:
    wan = replace(pegged, context=Context("wan"))
    f = one(wan, "txqueuelen-wan")  # the tree's 1000
    assert f is not None and f.change[0].value == str(t.TXQUEUELEN_WAN)
    assert one(pegged, "txqueuelen-wan") is None  # context any: a note, not a finding
    nic = wan.nic
    assert nic is not None
    long = replace(nic, link=replace(nic.link, txqlen=t.TXQUEUELEN_WAN))
    assert one(replace(wan, nic=long), "txqueuelen-wan") is None


@pytest.mark.parametrize(
    ("rule", "key", "bad", "fits", "misfit"),
    [
        ("timestamps-lan", "net.ipv4.tcp_timestamps", "1", "lan", "wan"),
        ("window-scaling-off", "net.ipv4.tcp_window_scaling", "0", "wan", "lan"),
        ("sack-off", "net.ipv4.tcp_sack", "0", "wan", "lan"),
    ],
)
def test_context_switches(
    pegged: Facts, rule: str, key: str, bad: str, fits: str, misfit: str
) -> None:
    good = "0" if bad == "1" else "1"
    facts = with_sysctls(pegged, {key: bad})
    f = one(replace(facts, context=Context(fits)), rule)  # type: ignore[arg-type]
    assert f is not None and f.change[0].value == good
    other = replace(facts, context=Context(misfit))  # type: ignore[arg-type]
    assert one(other, rule) is None
    assert any(n.rule == rule for n in advise(other).notes)  # says why it did not fire
    fine = replace(with_sysctls(pegged, {key: good}), context=Context(fits))  # type: ignore[arg-type]
    assert one(fine, rule) is None


def test_buffers_below_bdp(pegged: Facts) -> None:
    facts = with_sysctls(pegged, DEFAULT_BUFFERS)
    wan = replace(facts, context=Context("wan", rate_gbits=10, rtt_ms=50))
    f = one(wan, "buffers-below-bdp")
    bdp = bdp_bytes(10, 50)
    assert f is not None and f.severity == "bottleneck"
    values = {c.key.name: c.value for c in f.change}
    # tcp_mem's default (177000 pages, 725 MB) holds 62.5 MB: left alone.
    assert set(values) == set(DEFAULT_BUFFERS) - {"net.ipv4.tcp_mem"}
    for key in ("net.core.rmem_max", "net.core.wmem_max"):
        assert int(values[key]) >= bdp
    for key in ("net.ipv4.tcp_rmem", "net.ipv4.tcp_wmem"):
        assert int(values[key].split()[2]) >= bdp
    small = with_sysctls(wan, {"net.ipv4.tcp_mem": "1000 2000 4000"})  # 16 MB in pages
    f = one(small, "buffers-below-bdp")
    assert f is not None
    mem = next(c.value for c in f.change if c.key.name == "net.ipv4.tcp_mem")
    assert mem.split()[:2] == ["1000", "2000"] and int(mem.split()[2]) * 4096 >= bdp  # pages
    # At the edge: every buffer exactly the product is enough.
    exact = {k: (str(bdp) if "mem_max" in k else f"4096 87380 {bdp}") for k in DEFAULT_BUFFERS}
    exact["net.ipv4.tcp_mem"] = f"1 1 {-(-bdp // 4096)}"
    assert one(replace(wan, host=with_sysctls(wan, exact).host), "buffers-below-bdp") is None
    assert one(facts, "buffers-below-bdp") is None  # no rate and RTT: nothing to compare


def test_every_rule_is_documented() -> None:
    doc = (Path(__file__).resolve().parents[4] / "docs" / "advise.md").read_text()
    for rule in RULES:
        assert f"### `{rule}`" in doc


@pytest.mark.parametrize(
    ("stated", "rtt", "want"),
    [
        ("any", None, "any"),
        ("any", 0.99, "lan"),  # NASA's LAN: 0.24-0.31 ms
        ("any", 1.0, "any"),  # between a LAN and a WAN: no guess
        ("any", 2.0, "wan"),  # LOFAR's metro WAN was 3.77 ms
        ("lan", 48.6, "lan"),  # stated wins over the RTT
    ],
)
def test_context_inferred_from_rtt(stated: str, rtt: float | None, want: str) -> None:
    assert infer_context(stated, rtt) == want  # type: ignore[arg-type]
