"""Rules about where the network work runs: a pegged core, IRQs on the wrong node, irqbalance
moving pinned IRQs, and the softnet backlog."""

from __future__ import annotations

from collections.abc import Iterator

from tuitune.core.advise import thresholds as t
from tuitune.core.advise.facts import Facts, Outcome, cpus, pct, rate
from tuitune.core.advise.model import Change, Finding, Note, SourceRef
from tuitune.core.advise.window import NEEDS_LOAD, net_busy, other_load
from tuitune.core.host.irqmap import NicIrq
from tuitune.core.irqplan import spread_plan
from tuitune.core.session.settings import Key, cpus_value
from tuitune.core.watch.snapshot import HostState, NicState

_NASA_T4 = SourceRef(
    "nasa-40g",
    "40 GbE, IRQs kept on CPU 0: nuttcp on CPU 0 too gave 18.5-19.5 Gb/s and no loss, moved "
    "to CPUs 2, 6 or 13 7.1-17.4 Gb/s with 15,149-44,891 packets lost in 30 s (Table 4: the "
    "application moved, not the IRQ); even its best run (20.8 Gb/s, 0 retransmits) filled the "
    "server's CPU 0 (49.7 %sy + 50.0 %si in top), and its remedy was fewer interrupts",
)
_REDHAT_LOOP = SourceRef(
    "redhat-10g",
    "10 GbE: mpstat -P ALL showed the receive side's core 0 pegged (38.9 %sys, 60.4 %soft, "
    "0 % idle) with cores 1-7 idle at about 5 Gb/s; the loop: find the pegged core, move the "
    "NIC's IRQs with smp_affinity, pin the application near them, measure again",
)
_ESNET_IRQ = SourceRef(
    "esnet-100g",
    "48.6 ms: irqbalance off, one core per 10G interface, rx/tx queues bound with "
    "smp_affinity: 97.9 Gb/s over 10 streams",
)


def _irq_change(
    nic: NicState, plan: list[tuple[NicIrq, int]], host: HostState, evidence: list[str]
) -> tuple[Change, ...]:
    """The plan as journal changes. While irqbalance runs (and is not told to leave these IRQs
    alone) it would move them back: stopping it for the session comes first, in the same
    step, and the evidence says so."""
    ifname = nic.link.ifname
    moves = tuple(Change(Key.irq(q.irq, q.name, ifname), str(cpu)) for q, cpu in plan)
    ib = host.irqbalance
    if moves and ib.running and any(q.irq not in ib.banned_irqs for q, _ in plan):
        evidence.append("irqbalance runs: it would move them back, so it is stopped first")
        return (Change(Key.service("irqbalance"), "stopped"), *moves)
    return moves


def cpu_saturated(f: Facts) -> Iterator[Outcome]:
    rule = "cpu-saturated"
    w = f.window
    if not w.loaded or w.total is None:
        yield Note(rule, NEEDS_LOAD)
        return
    nic = f.nic
    queues = f.queue_irqs()
    total = w.total
    # Where the NIC's work lands: its queue interrupts, or NET_RX when it has none (veth).
    per_cpu: dict[int, float] = {}
    what = "rx interrupts"
    for q in queues:
        r = total.irqs.get(q.irq)
        for cpu, v in (r.per_cpu if r else {}).items():
            per_cpu[cpu] = per_cpu.get(cpu, 0.0) + v
    if sum(per_cpu.values()) <= 0:
        per_cpu = {c: r.net_rx for c, r in total.cpus.items() if r.net_rx > 0}
        what = "NET_RX softirqs"
    all_work = sum(per_cpu.values())
    local = f.local_cpus()
    for cpu in sorted(total.cpus):
        hot, n = w.busy_steps(cpu, t.CPU_BUSY_PCT)
        if n == 0 or hot / n < t.MOST_OF_WINDOW:
            continue
        share = per_cpu.get(cpu, 0.0) / all_work if all_work > 0 else 0.0
        if share < t.NIC_SHARE:
            continue
        room = sorted(
            c
            for c in local
            if c != cpu and c in total.cpus and net_busy(total.cpus[c]) < t.ROOM_PCT
        )
        c = total.cpus[cpu]
        evidence = [
            f"cpu{cpu}: {pct(net_busy(c))} busy ({pct(c.sys)} sys, {pct(c.irq)} irq, "
            f"{pct(c.soft)} soft) on average, at least {t.CPU_BUSY_PCT:.0f} % for {hot} of "
            f"the last {n} s (/proc/stat)" + other_load(c),
            f"{share * 100:.0f} % of {f.ifname}'s {what} land on cpu{cpu} "
            f"({rate(per_cpu.get(cpu, 0.0))}; /proc/"
            + ("interrupts)" if what == "rx interrupts" else "softirqs)"),
        ]
        if not room:
            yield Note(
                rule,
                f"cpu{cpu} is saturated, but no other NIC-local CPU (of {cpus(local)}) is "
                f"under {t.ROOM_PCT:.0f} %: more cores or fewer flows, not placement",
            )
            continue
        evidence.append(f"cpus {cpus(room)} (NIC-local) under {t.ROOM_PCT:.0f} % busy")
        change: tuple[Change, ...] = ()
        how = ""
        if nic is not None and len(queues) >= 2:
            plan = spread_plan(nic, f.host)
            change = _irq_change(nic, plan, f.host, evidence)
            how = f"spread {len(plan)} queue IRQs one per NIC-local core"
        elif nic is not None:
            rx = [q.name for q in nic.queues if q.name.startswith("rx-")]
            value = cpus_value(frozenset(room))
            change = tuple(Change(Key.rps_cpus(f.ifname, q), value) for q in rx)
            how = f"spread receive processing (RPS) over cpus {cpus(room)}"
        yield Finding(
            id=rule,
            severity="bottleneck",
            title=f"cpu{cpu} is saturated by {f.ifname}'s traffic: {how}",
            evidence=tuple(evidence),
            change=change,
            sources=(_NASA_T4, _REDHAT_LOOP, _ESNET_IRQ),
            context="any",
        )


def _where(aff: object) -> frozenset[int] | None:
    return aff if isinstance(aff, frozenset) and aff else None


def irq_remote_node(f: Facts) -> Iterator[Outcome]:
    rule = "irq-remote-node"
    nic = f.nic
    if nic is None or not f.queue_irqs():
        yield Note(rule, f"{f.ifname} has no queue IRQs here (a virtual device)")
        return
    node = nic.placement.numa_node
    nodes = f.host.topology.nodes
    if node is None or node not in nodes or len(nodes) < 2:
        yield Note(rule, "the NIC has no NUMA node, or the host has one node: nothing to judge")
        return
    local = nodes[node]
    remote: list[tuple[NicIrq, frozenset[int]]] = []
    for q in f.queue_irqs():
        aff = nic.irq_affinity.get(q.irq)
        if aff is None:
            continue
        where = _where(aff.effective) or _where(aff.smp_affinity)
        if where is not None and not where & local:
            remote.append((q, where))
    if not remote:
        return
    node_of = {c: n for n, cs in nodes.items() for c in cs}
    elsewhere = sorted({node_of.get(c, -1) for _, w in remote for c in w})
    plan = [(q, cpu) for q, cpu in spread_plan(nic, f.host) if q in {r[0] for r in remote}]
    shown = ", ".join(f"IRQ {q.irq} ({q.name}) on cpus {cpus(w)}" for q, w in remote[:4])
    more = f" and {len(remote) - 4} more" if len(remote) > 4 else ""
    evidence = [
        f"{f.ifname} is on NUMA node {node} (local cpus {cpus(local)}; sysfs numa_node)",
        f"{shown}{more} (/proc/irq/N/effective_affinity_list)",
    ]
    change = _irq_change(nic, plan, f.host, evidence)
    yield Finding(
        id=rule,
        severity="risk",
        title=f"{len(remote)} of {f.ifname}'s queue IRQs run on node "
        f"{', '.join(map(str, elsewhere))}, the NIC is on node {node}",
        evidence=tuple(evidence),
        change=change,
        sources=(_NASA_T4, _REDHAT_LOOP),
        context="any",
    )


def irqbalance_active(f: Facts) -> Iterator[Outcome]:
    """IRQs tuitune placed (its journal holds them) while irqbalance runs. An IRQ on one CPU
    is no proof of a hand placement: irqbalance itself puts each IRQ on one CPU."""
    rule = "irqbalance-active"
    ib = f.host.irqbalance
    nic = f.nic
    if not ib.running or nic is None:
        return
    held = {k.name for k in f.held if k.kind == "irq_affinity"}
    pinned = []
    for q in f.queue_irqs():
        aff = nic.irq_affinity.get(q.irq)
        asked = aff.smp_affinity if aff is not None else None
        if q.irq in held and q.irq not in ib.banned_irqs and isinstance(asked, frozenset):
            pinned.append((q, asked))
    if not pinned:
        yield Note(
            rule,
            "irqbalance runs: it will move any IRQ placed by hand (the screen asks to stop it "
            "before a move; the IRQ moves of cpu-saturated stop it first)",
        )
        return
    shown = ", ".join(f"IRQ {q.irq} -> {cpus(a)}" for q, a in pinned[:4])
    yield Finding(
        id=rule,
        severity="risk",
        title=f"irqbalance runs while {len(pinned)} of {f.ifname}'s IRQs are placed by tuitune: "
        "it will move them",
        evidence=(
            f"irqbalance pid {', '.join(map(str, ib.pids))} (/proc)",
            f"placed by tuitune (its journal), not banned: {shown} (/proc/irq/N/smp_affinity_list"
            + (f"; {ib.config_file})" if ib.config_file else ")"),
        ),
        change=(Change(Key.service("irqbalance"), "stopped"),),
        sources=(
            SourceRef("esnet-100g", "turned irqbalance off before binding queues to cores"),
            SourceRef(
                "nasa-40g",
                "running with IRQ balancing instead of binding gave many packet retransmits; "
                "stop irqbalance before setting smp_affinity",
            ),
        ),
        context="any",
    )


_IRQBALANCE_MAN = SourceRef(
    "irqbalance-man",
    "IRQBALANCE_BANNED_CPUS/CPULIST keeps irqbalance's IRQs off those CPUs (it moves them "
    "away); --banirq leaves an IRQ where it is, balanced by nobody",
)


def irqbalance_banned(f: Facts) -> Iterator[Outcome]:
    """irqbalance's banning against the NIC's placement: a queue IRQ placed only on banned
    CPUs and not banned itself is moved off them by irqbalance; a queue IRQ banned from
    balancing yet still on every CPU (never placed) is left where the kernel put it."""
    rule = "irqbalance-banned"
    ib = f.host.irqbalance
    nic = f.nic
    if not ib.running or nic is None or not (ib.banned_cpus or ib.banned_irqs):
        return
    online = f.host.topology.online
    fought, unplaced = [], []
    for q in f.queue_irqs():
        aff = nic.irq_affinity.get(q.irq)
        asked = aff.smp_affinity if aff is not None else None
        if not isinstance(asked, frozenset) or not asked:
            continue
        if q.irq not in ib.banned_irqs and ib.banned_cpus and asked <= ib.banned_cpus:
            fought.append((q, asked))
        elif q.irq in ib.banned_irqs and online and asked >= online:
            unplaced.append(q)
    where = f" ({ib.config_file})" if ib.config_file else ""
    if fought:
        shown = ", ".join(f"IRQ {q.irq} on {cpus(a)}" for q, a in fought[:4])
        yield Finding(
            id=rule,
            severity="risk",
            title=f"irqbalance bans CPUs {cpus(ib.banned_cpus)} and {len(fought)} of "
            f"{f.ifname}'s IRQs are placed only there: it will move them off",
            evidence=(
                f"irqbalance pid {', '.join(map(str, ib.pids))}; banned CPUs "
                f"{cpus(ib.banned_cpus)}{where}",
                f"not banned IRQs on banned CPUs: {shown} (/proc/irq/N/smp_affinity_list)",
            ),
            change=(Change(Key.service("irqbalance"), "stopped"),),
            sources=(
                _IRQBALANCE_MAN,
                SourceRef("esnet-100g", "turned irqbalance off before binding queues to cores"),
            ),
            context="any",
        )
        return  # one finding a rule: the worse one
    if unplaced:
        shown = ", ".join(f"IRQ {q.irq}" for q in unplaced[:4])
        yield Finding(
            id=rule,
            severity="hint",
            title=f"{len(unplaced)} of {f.ifname}'s IRQs are banned from irqbalance but never "
            "placed: nobody spreads them",
            evidence=(
                f"--banirq{where}: {shown} still on every online CPU "
                f"({cpus(online)}; /proc/irq/N/smp_affinity_list)",
            ),
            change=(),
            sources=(_IRQBALANCE_MAN,),
            context="any",
        )


def _softnet(f: Facts, rule: str, attr: str) -> tuple[float, dict[int, float]] | Note:
    w = f.window
    if w.total is None or w.total.interval <= 0:
        return Note(rule, "no window: sample at least two seconds")
    per = {c: getattr(r, attr) for c, r in w.total.cpus.items() if getattr(r, attr) > 0}
    return sum(per.values()), per


def _busiest(what: str, per: dict[int, float], column: int) -> str:
    """The evidence line of a softnet rule: the four CPUs with the most, and where it is read."""
    top = sorted(per.items(), key=lambda kv: -kv[1])[:4]
    cpus_ = ", ".join(f"cpu{c} {rate(v)}" for c, v in top)
    return f"{what}/s: {cpus_} (/proc/net/softnet_stat column {column})"


def softnet_drops(f: Facts) -> Iterator[Outcome]:
    rule = "softnet-drops"
    got = _softnet(f, rule, "drops")
    if isinstance(got, Note):
        yield got
        return
    total, per = got
    if total <= t.SOFTNET_DROPS_PER_S:
        return
    current = f.sysctl_ints("net.core.netdev_max_backlog")
    wan = f.context.kind == "wan"
    target = t.BACKLOG_WAN if wan else t.BACKLOG_LAN
    change: tuple[Change, ...] = ()
    if current and current[0] < target:
        change = (Change(Key.sysctl("net.core.netdev_max_backlog"), str(target)),)
    yield Finding(
        id=rule,
        severity="bottleneck",
        title=f"the receive backlog overflows: {rate(total)} packets dropped before TCP sees them",
        evidence=(
            _busiest("drops", per, 2),
            f"net.core.netdev_max_backlog = {current[0] if current else 'unknown'}",
        ),
        change=change,
        sources=(
            SourceRef("esnet-100g", "netdev_max_backlog 250000 in its standard tuning"),
            SourceRef(
                "nasa-40g",
                "LAN: netdev_max_backlog 30000 made a negligible difference (Table 3; it gives "
                "no drop counts for that test)",
            ),
            SourceRef("lofar-wan", "WAN, 10 GigE: suggests netdev_max_backlog 30000"),
        ),
        context="any",
    )


def softnet_squeeze(f: Facts) -> Iterator[Outcome]:
    rule = "softnet-squeeze"
    got = _softnet(f, rule, "squeezes")
    if isinstance(got, Note):
        yield got
        return
    total, per = got
    if total < t.SQUEEZE_PER_S:
        return
    change = []
    values = []
    for key in ("net.core.netdev_budget", "net.core.netdev_budget_usecs"):
        now = f.sysctl_ints(key)
        values.append(f"{key} = {now[0] if now else 'unknown'}")
        if now and now[0] > 0:
            change.append(Change(Key.sysctl(key), str(now[0] * t.BUDGET_FACTOR)))
    yield Finding(
        id=rule,
        severity="risk",
        title=f"receive runs end with work left ({rate(total)} time_squeeze): a larger budget",
        evidence=(
            _busiest("time_squeeze", per, 3),
            "; ".join(values),
        ),
        change=tuple(change),
        sources=(
            SourceRef(
                "kernel-doc",
                "not measured by the reports: the kernel's documentation of netdev_budget and "
                "netdev_budget_usecs; doubling is tuitune's step, measure after it",
            ),
        ),
        context="any",
    )
